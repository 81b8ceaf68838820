"""A script written for PAMS, run under pams_cpp.install_as_pams() called
inside ``if __name__ == "__main__":``, whose agent module imports pams:
``python as_pams_workers_runs.py START_METHOD OUT [scrubbed]``. It runs
MultiProcessAgentParallelRunner with START_METHOD workers and
SequentialRunner on the same config and seed, and writes to OUT (JSON)
both runs' market prices and the pams each run's agents ran on. With
``scrubbed``, the script takes install_as_pams()'s variable out of its
environment first (as a launcher that starts processes with an
environment of its own would): the workers must run on pams_cpp all the
same. Used by test_assignments.py."""
import json
import os
import random
import sys


def run(runner_class, config, seed):
    from pams.logs.market_step_loggers import MarketStepSaver

    from as_pams_agents import MarkedFCNAgent

    saver = MarketStepSaver()
    runner = runner_class(settings=config, prng=random.Random(seed), logger=saver)
    runner.class_register(MarkedFCNAgent)
    runner.main()
    ran_on = {getattr(a, "ran_on", None) for a in runner.simulator.agents} - {None}
    # (the pams the agents' code ran on, whether some ran in another process)
    return ([log["market_price"] for log in saver.market_step_logs],
            sorted({name for name, _ in ran_on}), any(pid != os.getpid() for _, pid in ran_on))


def main(start_method, out, scrubbed):
    import pams_cpp

    pams_cpp.install_as_pams()
    if scrubbed:
        del os.environ["PAMS_CPP_AS_PAMS"]
    from pams.runners import SequentialRunner
    from pams.runners.agent_parallel import MultiProcessAgentParallelRunner

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "samples", "CI2002", "config.json")) as f:
        config = json.load(f)
    config["FCNAgents"].update({"class": "MarkedFCNAgent", "numAgents": 12})
    config["simulation"]["sessions"][1]["iterationSteps"] = 40
    for session in config["simulation"]["sessions"]:
        session["maxNormalOrders"] = 4  # rounds of 4 calls, in the 2 workers
    parallel = json.loads(json.dumps(config))
    parallel["simulation"].update(startMethod=start_method, numParallel=2,
                                  runRoundsWhileWorkersStart=False)
    results = {"sequential": run(SequentialRunner, config, 5),
               "processes": run(MultiProcessAgentParallelRunner, parallel, 5)}
    with open(out, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    main(sys.argv[1], sys.argv[2], sys.argv[3:] == ["scrubbed"])
