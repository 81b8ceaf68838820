"""One run of a parallel_main config from Python, for
bench/parallel_main_runners_bench.py: pams_cpp's runner with a Python
subclass of WorkloadFCNAgent that overrides nothing but calls super() (so
every call goes through Python, as a user's subclass does), no logger.

    python bench/parallel_main_python_run.py CONFIG RUNNER NUM_PARALLEL
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from pams_cpp import runners  # noqa: E402
from samples.parallel_main.workload_fcn_agent import WorkloadFCNAgent  # noqa: E402


class PyWorkloadFCNAgent(WorkloadFCNAgent):
    """WorkloadFCNAgent, its calls made through Python."""

    def submit_orders(self, markets):
        return super().submit_orders(markets)


def main() -> None:
    path, runner_name, num_parallel = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(path, encoding="utf-8") as f:
        config = json.load(f)
    config["simulation"]["numParallel"] = num_parallel
    for value in config.values():
        if isinstance(value, dict) and value.get("class") == "WorkloadFCNAgent":
            value["class"] = "PyWorkloadFCNAgent"
    runner = getattr(runners, runner_name)(settings=config, prng=random.Random(1))
    runner.class_register(PyWorkloadFCNAgent)
    runner.main()


if __name__ == "__main__":
    main()
