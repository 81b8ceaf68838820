"""A process that keeps workers and forks a child, in a fresh interpreter:
`python forked_child_runs.py MODE OUT`, MODE shutdown_workers (the child
calls pams_cpp.runners.shutdown_workers()) or atexit (the child ends
through sys.exit, which runs the atexit handlers pams_cpp registered).
Writes to OUT, as JSON, the workers (pids) of a run before the fork and of
a run after the child ended, the child's exit status and the kept sets
after it; for tests/python/test_kept_workers.py."""
import copy
import json
import os
import random
import sys

import pams_cpp
from pams_cpp.runners import MultiProcessAgentParallelRunner
from pams_cpp.runners import shutdown_workers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Recorder(pams_cpp.agents.FCNAgent):
    """Records the process of each of its calls."""

    def submit_orders(self, markets):
        self.pids = getattr(self, "pids", []) + [os.getpid()]
        return super().submit_orders(markets)


def workers_of_a_run(settings, seed):
    runner = MultiProcessAgentParallelRunner(settings=copy.deepcopy(settings),
                                             prng=random.Random(seed))
    runner.class_register(Recorder)
    runner.main()
    pids = set()
    for agent in runner.simulator.agents:
        pids.update(getattr(agent, "pids", []))
    return sorted(pids - {os.getpid()})


def main(mode, out):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        settings = json.load(f)
    settings["simulation"]["sessions"][0]["iterationSteps"] = 10
    settings["simulation"]["sessions"][1]["iterationSteps"] = 40
    for session in settings["simulation"]["sessions"]:
        session["maxNormalOrders"] = 4
    settings["simulation"].update(numParallel=2, startMethod="spawn")
    settings["FCNAgents"]["class"] = "Recorder"
    before = workers_of_a_run(settings, 1)
    child = os.fork()
    if child == 0:
        if mode == "shutdown_workers":
            shutdown_workers()
            os._exit(0)
        sys.exit(0)  # the atexit handlers run
    _, status = os.waitpid(child, 0)
    kept = pams_cpp._core.kept_worker_sets()
    after = workers_of_a_run(settings, 2)
    with open(out, "w") as f:
        json.dump({"before": before, "after": after, "child_status": status,
                   "kept_after_child": kept}, f)


if __name__ == "__main__":
    main(*sys.argv[1:])
