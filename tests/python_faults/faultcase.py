"""What the cases of tests/python_faults share: a small CI2002 config,
runners made from it, and a signal sent to the case's own process group
(as Ctrl-C is to a shell's job) with the time it took to stop."""
import copy
import json
import os
import random
import signal
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
