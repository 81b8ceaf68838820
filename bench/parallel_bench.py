#!/usr/bin/env python3
"""Parallel runners: speedup and per-task overhead, timed in one run.

1. Speedup: 8 BusyAgents (each burns ~1 ms of CPU in submit_orders) asked
   per step, maxNormalOrders 8, 200 steps: EXECUTION TIME of
   SequentialRunner over that of each parallel runner with 2 workers
   (target on this 2-core machine: >= 1.8x).
2. Per-task overhead with FCN agents: CI2002 with maxNormalOrders 8 (nearly
   every agent asked places an order, so a step is ~8 tasks): (runner time -
   SequentialRunner time) / tasks, in microseconds, for each runner, and the
   same for PAMS 0.3.0's own MultiProcessAgentParallelRunner, which pickles
   the whole simulation for every task.

Each time is the minimum of several runs.

Usage: parallel_bench.py --pams BIN --test-agents LIB --reference-python PY
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "differential"))
from differential_test import REFERENCE_ENV  # noqa: E402

RUNNERS = [
    ("SequentialRunner", None),
    ("MultiThreadAgentParallelRunner", None),
    ("MultiProcessAgentParallelRunner", "fork"),
    ("MultiProcessAgentParallelRunner", "forkserver"),
    ("MultiProcessAgentParallelRunner", "spawn"),
]


def exec_time(text):
    return float(re.search(r"^# EXECUTION TIME (\S+)$", text, re.M).group(1))


def run_cpp(args, config, runner, method, workers, runs=3):
    cmd = [args.pams, "run", config, "--seed", "1", "--plugin", args.test_agents,
           "--runner", runner, "--set", f"simulation.numParallel={workers}"]
    if method:
        cmd += ["--set", f'simulation.startMethod="{method}"']
    return min(exec_time(subprocess.run(cmd, capture_output=True, text=True,
                                        check=True).stdout) for _ in range(runs))


def run_pams(args, config, runner, workers):
    script = f"""
import json, random, sys
import pams.runners as r
from pams.logs import MarketStepPrintLogger
settings = json.load(open({config!r}))
settings["simulation"]["numParallel"] = {workers}
runner = getattr(r, {runner!r})(settings=settings, prng=random.Random(1),
                                 logger=MarketStepPrintLogger())
runner.main()
"""
    env = dict(os.environ, **REFERENCE_ENV)
    out = subprocess.run([args.reference_python, "-c", script], capture_output=True,
                         text=True, check=True, env=env).stdout
    return exec_time(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--test-agents", required=True)
    p.add_argument("--reference-python", required=True)
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="pams-pbench-")

    busy = os.path.join(ROOT, "tests/parallel/busy.json")
    print("1. Speedup: 8 agents x ~1 ms of CPU per step, 200 steps, 2 workers")
    seq = run_cpp(args, busy, "SequentialRunner", None, 2)
    print(f"   {'SequentialRunner':45} {seq:8.3f} s")
    ok = True
    for runner, method in RUNNERS[1:]:
        t = run_cpp(args, busy, runner, method, 2)
        speedup = seq / t
        ok = ok and speedup >= 1.8
        label = runner + (f" ({method})" if method else "")
        print(f"   {label:45} {t:8.3f} s  speedup {speedup:.2f}x "
              f"{'ok' if speedup >= 1.8 else 'BELOW 1.8x'}")

    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        c = json.load(f)
    for s in c["simulation"]["sessions"]:
        s["maxNormalOrders"] = 8
    fcn = os.path.join(tmp, "ci2002-mno8.json")
    with open(fcn, "w") as f:
        json.dump(c, f)
    tasks = 600 * 8
    print(f"\n2. Per-task overhead, FCN agents (CI2002, maxNormalOrders 8, "
          f"~{tasks} tasks), 2 workers")
    base = run_cpp(args, fcn, "SequentialRunner", None, 2, runs=5)
    print(f"   {'SequentialRunner':45} {base * 1e3:8.2f} ms")
    for runner, method in RUNNERS[1:]:
        t = run_cpp(args, fcn, runner, method, 2, runs=5)
        label = runner + (f" ({method})" if method else "")
        print(f"   {label:45} {t * 1e3:8.2f} ms  "
              f"{(t - base) / tasks * 1e6:7.1f} us per task")
    # PAMS's own runners on a shorter run (its process runner pickles the
    # whole simulation per task).
    c["simulation"]["sessions"][1]["iterationSteps"] = 100
    short = os.path.join(tmp, "ci2002-mno8-short.json")
    with open(short, "w") as f:
        json.dump(c, f)
    short_tasks = 200 * 8
    pams_seq = run_pams(args, short, "SequentialRunner", 2)
    pams_proc = run_pams(args, short, "MultiProcessAgentParallelRunner", 2)
    print(f"   PAMS 0.3.0 MultiProcessAgentParallelRunner (200 steps): "
          f"{(pams_proc - pams_seq) / short_tasks * 1e6:7.1f} us per task "
          f"(SequentialRunner {pams_seq:.2f} s, process runner {pams_proc:.2f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
