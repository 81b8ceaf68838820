#!/usr/bin/env python3
"""The agent-parallel runners with Python agents, timed in this one run
against SequentialRunner and against PAMS 0.3.0's process runner. Run with
.venv-py's python (which holds pams_cpp and the reference PAMS):

    .venv-py/bin/python bench/python_parallel_bench.py

It measures:
  * the per-task overhead of MultiProcessAgentParallelRunner with a trivial
    Python agent (every task sent to a worker): (its time - the sequential
    time) / tasks, against PAMS 0.3.0's MultiProcessAgentParallelRunner on
    the same config (target: <= 200 us; PAMS: ~14 ms);
  * the speedup of 2 worker processes over SequentialRunner on this 2-core
    machine when each call computes for ~1 ms in Python (target >= 1.7x);
  * a worker's start-up time (spawn and fork) and its memory (VmRSS, read
    by the agents in the workers themselves and returned with their state).
Times are medians of paired runs.
"""
import argparse
import contextlib
import copy
import io
import json
import os
import random
import statistics
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import pams  # noqa: E402
import pams_cpp  # noqa: E402


def define(pkg):
    """A trivial Python agent, one that computes for about `work` seconds,
    and one that reads its process's memory."""

    class Trivial(pkg.agents.Agent):
        """Counts its calls (its field comes back from the workers)."""

        def submit_orders(self, markets):
            self.calls = getattr(self, "calls", 0) + 1
            return []

    class Busy(pkg.agents.FCNAgent):
        def submit_orders(self, markets):
            end = time.perf_counter() + 0.001
            x = 0
            while time.perf_counter() < end:
                x += 1
            return super().submit_orders(markets)

    class Measuring(pkg.agents.FCNAgent):
        def submit_orders(self, markets):
            with open("/proc/self/status") as f:
                rss = [line for line in f if line.startswith("VmRSS")][0].split()[1]
            self.seen = getattr(self, "seen", {})
            self.seen[os.getpid()] = int(rss)
            return super().submit_orders(markets)

    return {c.__name__: c for c in (Trivial, Busy, Measuring)}


class Trivial(pams.agents.Agent):
    """PAMS's process runner pickles agents by name: its class is here."""

    def submit_orders(self, markets):
        self.calls = getattr(self, "calls", 0) + 1
        return []


CLASSES = {pams: {"Trivial": Trivial}, pams_cpp: define(pams_cpp)}


def config_for(cls, steps, max_orders, num_parallel, **simulation):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        config = json.load(f)
    config["FCNAgents"]["class"] = cls
    config["FCNAgents"]["numAgents"] = 20
    config["simulation"]["sessions"] = [config["simulation"]["sessions"][1]]
    session = config["simulation"]["sessions"][0]
    session.update(iterationSteps=steps, maxNormalOrders=max_orders, sessionName=0)
    config["simulation"].update(numParallel=num_parallel, **simulation)
    return config


def timed(pkg, runner_class, config, seed=1):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner = runner_class(settings=copy.deepcopy(config), prng=random.Random(seed))
        for cls in CLASSES[pkg].values():
            runner.class_register(cls)
        start = time.perf_counter()
        runner.main()
        return time.perf_counter() - start, runner


def median_ratio(pairs):
    return statistics.median(a / b for a, b in pairs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n = args.repeats
    seq, mp = pams_cpp.runners.SequentialRunner, pams_cpp.runners.MultiProcessAgentParallelRunner

    # Per-task overhead: every task goes to a worker (workerTimeout), one
    # worker, a trivial agent (which submits nothing, so that every agent
    # is asked every step: 20 tasks a step).
    def calls(runner):
        return sum(getattr(a, "calls", 0) for a in runner.simulator.agents)

    config = config_for("Trivial", 500, 4, 1, workerTimeout=1e6, startMethod="fork")
    ours = []
    for _ in range(n):
        t_par, runner = timed(pams_cpp, mp, config)
        t_seq, _ = timed(pams_cpp, seq, config)
        ours.append((t_par - t_seq) / calls(runner))
    # PAMS pickles the whole simulation, histories included, for each task:
    # its cost grows with the steps run, and 100 steps keep it to seconds.
    pams_config = config_for("Trivial", 100, 4, 1)
    theirs = []
    for _ in range(max(1, n // 2)):
        t_par, _ = timed(pams, pams.runners.MultiProcessAgentParallelRunner, pams_config)
        t_seq, runner = timed(pams, pams.runners.SequentialRunner, pams_config)
        # PAMS's process runner returns no field: count the sequential run's.
        theirs.append((t_par - t_seq) / calls(runner))
    o, p = statistics.median(ours), statistics.median(theirs)
    print(f"per-task overhead, trivial Python agent, 1 worker: pams_cpp {o * 1e6:.0f} us "
          f"(500 steps), PAMS 0.3.0 {p * 1e3:.1f} ms (100 steps; {p / o:.0f}x) "
          "[target <= 200 us]")

    # Speedup of 2 workers with ~1 ms of Python work a call.
    config = config_for("Busy", 200, 4, 2, startMethod="fork")
    pairs = []
    for _ in range(n):
        t_seq, _ = timed(pams_cpp, seq, config)
        t_par, _ = timed(pams_cpp, mp, config)
        pairs.append((t_seq, t_par))
    print(f"2 workers, ~1 ms of Python a call: SequentialRunner "
          f"{statistics.median(a for a, _ in pairs):.3f} s, MultiProcess "
          f"{statistics.median(b for _, b in pairs):.3f} s, speedup "
          f"{median_ratio(pairs):.2f}x [target >= 1.7x]")

    # Start-up and memory: a run of one step with 2 workers, and what the
    # workers' agents read of their own memory.
    for method in ("fork", "spawn", "forkserver"):
        config = config_for("Measuring", 1, 2, 2, startMethod=method, workerTimeout=1e6)
        starts = []
        for _ in range(n):
            t_par, runner = timed(pams_cpp, mp, config)
            t_seq, _ = timed(pams_cpp, seq, config)
            starts.append(t_par - t_seq)
        rss = {}
        for agent in runner.simulator.agents:
            rss.update(getattr(agent, "seen", {}))
        workers = {pid: kb for pid, kb in rss.items() if pid != os.getpid()}
        print(f"start-up ({method}): {statistics.median(starts) * 1e3:.0f} ms for 2 workers; "
              f"memory per worker (VmRSS): "
              + ", ".join(f"{kb / 1024:.0f} MiB" for kb in workers.values()))


if __name__ == "__main__":
    main()
