"""Runs in which a Python agent's call crashes its process, under a
framework's agent-parallel runner with its defaults (TensorFlow's, PyTorch's
or JAX's), each in a process of its own: `PAMS_TEST_FRAMEWORK=tf|torch|jax
python crash_runs.py MODE OUT` writes what the run left as JSON to OUT (for
the crash tests of tests/python_tf, python_torch and python_jax, run in
their venvs; framework_suite.py, beside this script, has the command line
and the config).

MODE: segfault (the first agent asked at step CRASH_STEP or later reads
address 0 through ctypes) or exit (it calls os._exit(3)). The run must end with a
SimulationError naming the agent, the step and how its worker ended, and
this process must live on: after the failed run it runs the same config
with SequentialRunner and an agent that does not crash."""
import ctypes
import os
import random

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import framework_suite as suite  # noqa: E402
import pams_cpp  # noqa: E402

FRAMEWORK = os.environ.get("PAMS_TEST_FRAMEWORK")
RUNNERS = {"tf": "TensorFlowAgentParallelRunner", "torch": "TorchAgentParallelRunner",
           "jax": "JaxAgentParallelRunner"}
CRASH_STEP = 40


class Crashing(pams_cpp.agents.FCNAgent):
    """An FCNAgent whose calls from CRASH_STEP on end their process the way
    PAMS_TEST_CRASH says (the workers inherit the variable)."""

    def submit_orders(self, markets):
        if markets[0].get_time() >= CRASH_STEP:
            if os.environ.get("PAMS_TEST_CRASH") == "segfault":
                ctypes.string_at(0)
            else:
                os._exit(3)
        return super().submit_orders(markets)


class Calm(pams_cpp.agents.FCNAgent):
    """An FCNAgent of a class of its own (the run after the crash)."""


def crash(how):
    os.environ["PAMS_TEST_CRASH"] = how
    runner_class = getattr(pams_cpp.runners, RUNNERS[FRAMEWORK])
    c = suite.config("Crashers", {"class": "Crashing", "numAgents": 4}, 2, steps=(20, 40))
    try:
        suite.run(runner_class, c, Crashing)
        error = None
    except pams_cpp.SimulationError as e:
        error = str(e)
    # This process lives on and runs again.
    c["Crashers"]["class"] = "Calm"
    runner = pams_cpp.runners.SequentialRunner(settings=c, prng=random.Random(1))
    runner.class_register(Calm)
    runner.main()
    return {"error": error, "pid": os.getpid(),
            "after": len(runner.simulator.agents)}


if __name__ == "__main__":
    suite.main({"segfault": lambda: crash("segfault"), "exit": lambda: crash("exit")})
