#!/usr/bin/env python3
"""Memory and time of MultiProcessAgentParallelRunner against SequentialRunner
on a config where workers sit idle: CI2002 with a 10-step session at
maxNormalOrders 4 (so 4 workers start) and then a long session at
maxNormalOrders 1 (every round has one task, which runs in the main process
under runRoundsWhileWorkersStart true; the workers get no task and must not
pin the journal of changes). The agents are WorkloadFCNAgents without their
workload: the built-in FCNAgents' calls always run in the main process, and
no worker would start.

For each of --pairs paired runs (sequential, then the process runner with
start method fork and 4 workers) it reads the peak resident memory of the
sequential process (wait4), of the process runner's main process and of each
worker (PAMS_WORKER_STATS), and both runs' EXECUTION TIME, then prints the
medians of the ratios. Target: memory <= 1.3x the sequential run's, for the
main process and each worker, whatever the steps.

With --check R it exits 1 when a median memory ratio exceeds R (ctest runs a
shorter version this way).

Usage: parallel_memory_bench.py --pams BIN [--steps N] [--pairs K] [--check R]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(ROOT, "samples", "CI2002", "config.json")


def run(pams, steps, runner=None):
    cmd = [pams, "run", CONFIG, "--seed", "1", "--quiet",
           "--set", "simulation.sessions[0].iterationSteps=10",
           "--set", "simulation.sessions[0].maxNormalOrders=4",
           "--set", f"simulation.sessions[1].iterationSteps={steps}",
           "--set", "simulation.sessions[1].maxNormalOrders=1",
           "--set", 'FCNAgents.class="WorkloadFCNAgent"', "--set", "FCNAgents.bsWorkload=false"]
    if runner:
        cmd += ["--runner", runner, "--set", "simulation.numParallel=4",
                "--set", 'simulation.startMethod="fork"',
                "--set", "simulation.runRoundsWhileWorkersStart=true"]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err,
                                env=dict(os.environ, PAMS_WORKER_STATS="1"))
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        err.seek(0)
        text, errors = out.read(), err.read()
    if status != 0:
        sys.exit(f"{' '.join(cmd)} failed ({status}): {errors[-500:]}")
    seconds = float(re.search(r"^# EXECUTION TIME (\S+)$", text, re.M).group(1))
    main = re.search(r"^# MAIN pid \d+ .* (\d+) kB\)$", errors, re.M)
    workers = [int(k) for k in re.findall(r"^# WORKER \d+ .* (\d+) kB\)$", errors, re.M)]
    # wait4's maxrss covers the process and its children; for the
    # sequential run (no children) it is the process's own peak.
    return seconds, int(main.group(1)) if main else usage.ru_maxrss, workers


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--steps", type=int, default=1_000_000)
    p.add_argument("--pairs", type=int, default=3)
    p.add_argument("--check", type=float)
    args = p.parse_args()
    main_ratios, worker_ratios, time_ratios = [], [], []
    for _ in range(args.pairs):
        seq_s, seq_kb, _ = run(args.pams, args.steps)
        par_s, main_kb, workers = run(args.pams, args.steps,
                                      "MultiProcessAgentParallelRunner")
        if len(workers) != 4:
            sys.exit(f"expected 4 workers' statistics, got {workers}")
        main_ratios.append(main_kb / seq_kb)
        worker_ratios.append(max(workers) / seq_kb)
        time_ratios.append(par_s / seq_s)
        print(f"sequential {seq_kb / 1024:.1f} MiB {seq_s:.3f} s; process runner: "
              f"main {main_kb / 1024:.1f} MiB, workers "
              f"{', '.join(f'{w / 1024:.1f}' for w in workers)} MiB, {par_s:.3f} s",
              flush=True)
    m, w, t = (statistics.median(x) for x in (main_ratios, worker_ratios, time_ratios))
    print(f"CI2002, 10 steps at maxNormalOrders 4 then {args.steps} at 1, 4 workers "
          f"(medians of {args.pairs} pairs): peak memory main/sequential {m:.2f}x, "
          f"largest worker/sequential {w:.2f}x (target <= 1.3x); "
          f"time process/sequential {t:.2f}x")
    if args.check is not None and max(m, w) > args.check:
        print(f"FAIL: a memory ratio is above {args.check}")
        sys.exit(1)


if __name__ == "__main__":
    main()
