"""The parallel_main sample of PAMS's development branch (Plham's
ParallelMain), on pams_cpp: the shock transfer model with N spot markets,
run by the runner chosen (the process runner by default). From the
repository's root::

    python -m samples.parallel_main.main --config samples/parallel_main/config.json --seed 1
    python -m samples.parallel_main.main -c samples/parallel_main/config-009.json -s 1 -n 2

Every runner prints the same market lines for the same seed. make_config.py
writes the configs; bench/parallel_main_bench.py measures the time per step.
"""
from samples._main import run_sample
from samples.parallel_main.workload_fcn_agent import WorkloadFCNAgent


def main() -> None:
    """Runs the sample (see the module)."""
    run_sample(classes=[WorkloadFCNAgent], with_runner=True, default_runner="multi_process")


if __name__ == "__main__":
    main()
