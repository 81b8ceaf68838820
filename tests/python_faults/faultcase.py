"""What the cases of tests/python_faults share: a small CI2002 config,
runners made from it, and a signal sent to the case's own process group
(as Ctrl-C is to a shell's job) with the time it took to stop."""
import copy
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import warnings

import pams_cpp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CI2002 = os.path.join(ROOT, "samples", "CI2002", "config.json")
# The engine's warnings (the config's, tick sizes) are not what cases test.
warnings.filterwarnings("ignore", message="hifreqSubmitRate")
warnings.filterwarnings("ignore", message="order price does not accord")


def config(steps=100, max_normal_orders=4, num_parallel=2, start_method=None, agent_class=None,
           first_steps=100, **simulation):
    """CI2002 with `first_steps` and `steps` steps in its two sessions,
    maxNormalOrders and numParallel set, FCNAgents of class agent_class (if
    given), every task of a process runner in a worker."""
    with open(CI2002) as f:
        c = json.load(f)
    c["simulation"]["sessions"][0]["iterationSteps"] = first_steps
    c["simulation"]["sessions"][1]["iterationSteps"] = steps
    for s in c["simulation"]["sessions"]:
        s["maxNormalOrders"] = max_normal_orders
    c["simulation"]["numParallel"] = num_parallel
    # The cases are about tasks in worker processes: none runs in the main
    # process (which a stuck call there would hold, as in SequentialRunner).
    c["simulation"]["runRoundsWhileWorkersStart"] = False
    if start_method:
        c["simulation"]["startMethod"] = start_method
    c["simulation"].update(simulation)
    if agent_class:
        c["FCNAgents"]["class"] = agent_class
    return c


def runner(kind, settings, classes=(), seed=1, **kwargs):
    """A runner of class `kind` (a name in pams_cpp.runners) with the
    classes registered."""
    cls = getattr(pams_cpp.runners, kind)
    r = cls(settings=copy.deepcopy(settings), prng=random.Random(seed), **kwargs)
    for c in classes:
        r.class_register(c)
    return r


class InPython(pams_cpp.agents.FCNAgent):
    """An FCNAgent whose submit_orders is Python's (calling the engine's):
    the process runners run its calls in workers (a built-in agent's, or a
    subclass's that overrides nothing, run in the main process)."""

    def submit_orders(self, markets):
        return super().submit_orders(markets)


class Failing(pams_cpp.agents.FCNAgent):
    """An FCNAgent whose submit_orders raises ValueError("no price today")
    at step 110 (the agent_error cases)."""

    def submit_orders(self, markets):
        if markets[0].get_time() == 110:
            raise ValueError("no price today")
        return super().submit_orders(markets)


def agent_error(kind, start_method=None):
    """Runs Failing agents in a runner of class `kind` and checks what
    arrives: the agent's own ValueError, with a note naming the agent and
    the step and, from a worker process, the worker's traceback (with the
    source line) as its cause; raises it again for the harness."""
    settings = config(agent_class="Failing", start_method=start_method)
    try:
        runner(kind, settings, [Failing]).main()
    except ValueError as e:  # the agent's own type
        assert type(e) is ValueError, type(e)
        assert e.__notes__[0].startswith("in submit_orders of agent FCNAgents-"), e.__notes__
        assert e.__notes__[0].endswith("(Failing) at step 110"), e.__notes__
        if start_method is not None:
            cause = str(e.__cause__)
            assert f'File "{__file__}", line' in cause, cause
            assert 'raise ValueError("no price today")' in cause, cause
        raise


class Stuck(pams_cpp.agents.FCNAgent):
    """An FCNAgent whose submit_orders never returns from step 105 on
    (time.sleep; the ctrl_c_stuck cases)."""

    def submit_orders(self, markets):
        if markets[0].get_time() >= 105:
            time.sleep(3600)  # a call that does not return
        return super().submit_orders(markets)


def ctrl_c_stuck(kind, delay, **simulation):
    """Runs Stuck agents in a runner of class `kind` (the config's
    `simulation` keys set as given), sends Ctrl-C after `delay` seconds,
    and reports how long the run took to stop; no agent may be blamed for
    the KeyboardInterrupt, which is raised again for the harness."""
    settings = config(agent_class="Stuck", steps=10**6, **simulation)
    stuck = runner(kind, settings, [Stuck])
    ctrl_c = Signal(delay)
    try:
        stuck.main()
    except KeyboardInterrupt as e:
        report_stop(ctrl_c)
        assert not getattr(e, "__notes__", None), e.__notes__  # no agent is blamed
        raise


class Paced(pams_cpp.agents.FCNAgent):
    """An FCNAgent whose calls take a millisecond (the signal_term cases)."""

    def submit_orders(self, markets):
        time.sleep(0.001)
        return super().submit_orders(markets)


def paced_run(kind, start_method=None):
    """Runs Paced agents for 10^6 steps in a runner of class `kind` that
    writes steps.csv (a StepsCsvLogger)."""
    settings = config(agent_class="Paced", steps=10**6, start_method=start_method)
    runner(kind, settings, [Paced], logger=pams_cpp.logs.StepsCsvLogger("steps.csv")).main()


def stop_paced_run(kind, kill, sig, status, start_method=None):
    """Starts paced_run in a program of its own (a new session), lets it
    write for 2 s, sends it `sig` with `kill` (os.kill: the program;
    os.killpg: its process group), and checks that it exits with `status`
    and that steps.csv holds every step done, in whole rows; prints OK."""
    with open("run.py", "w") as f:
        f.write('import faultcase\nif __name__ == "__main__":\n'
                f'    faultcase.paced_run({kind!r}, {start_method!r})\n')
    proc = subprocess.Popen([sys.executable, "run.py"], start_new_session=True)
    time.sleep(2)
    with open("steps.csv") as f:
        rows_before = f.read().count("\n")
    kill(proc.pid, sig)
    got = proc.wait(timeout=10)
    assert got == status, got
    with open("steps.csv") as f:
        text = f.read()
    rows = text.splitlines()
    assert text.endswith("\n") and all(len(r.split(",")) == 14 for r in rows), rows[-3:]
    # Every step done until the signal has its row (one market, one row a step).
    times = [int(r.split(",")[3]) for r in rows[1:]]
    assert times == list(range(len(times))), times[-5:]
    assert len(rows) >= max(rows_before, 100), (len(rows), rows_before)
    print(f"{len(rows) - 1} rows", "OK")


class Signal:
    """Sends `sig` to this process's group after `delay` seconds; elapsed()
    is the time since."""

    def __init__(self, delay, sig=signal.SIGINT):
        self.sent = None
        self._timer = threading.Timer(delay, self._send, args=(sig,))
        self._timer.daemon = True
        self._timer.start()

    def _send(self, sig):
        self.sent = time.monotonic()
        os.killpg(os.getpgrp(), sig)

    def elapsed(self):
        return time.monotonic() - self.sent


def report_stop(signal_, what="KeyboardInterrupt"):
    """Prints how long the run took to stop after the signal (the harness
    reads it)."""
    print(f"{what}: stopped after {signal_.elapsed():.3f} s", flush=True)


def same_results(a, b):
    return a == b


class Crashing(pams_cpp.agents.FCNAgent):
    """An FCNAgent whose call at step 110 ends its process as PAMS_TEST_CRASH
    says (the workers inherit it): "segfault" reads address 0 through
    ctypes, anything else calls os._exit(3)."""

    def submit_orders(self, markets):
        if markets[0].get_time() == 110:
            if os.environ.get("PAMS_TEST_CRASH") == "segfault":
                import ctypes

                ctypes.string_at(0)
            os._exit(3)
        return super().submit_orders(markets)


def crash_in_worker(how, start_methods, expect):
    """Runs Crashing agents (crashing as `how` says) under
    MultiProcessAgentParallelRunner with its defaults, for each start method
    of `start_methods` (None: the runner's default): each run must raise a
    SimulationError naming the agent, step 110 and `expect` (how the worker
    ended), and this process must live on: it then runs the config with
    SequentialRunner. Prints OK."""
    os.environ["PAMS_TEST_CRASH"] = how
    for method in start_methods:
        settings = config(agent_class="Crashing", start_method=method)
        del settings["simulation"]["runRoundsWhileWorkersStart"]  # the default
        try:
            runner("MultiProcessAgentParallelRunner", settings, [Crashing]).main()
        except pams_cpp.SimulationError as e:
            text = str(e)
            assert "(Crashing) at step 110" in text and expect in text, (method, text)
        else:
            raise AssertionError(f"a run whose agent crashed under {method} raised nothing")
    settings["FCNAgents"]["class"] = "FCNAgent"
    runner("SequentialRunner", settings).main()
    print("OK")
