#!/usr/bin/env python3
"""The parallel_main sample's benchmark (Plham's ParallelMain, from PAMS's
development branch): pams-cpp's time per step for 2, 9 and 99 spot markets
with SequentialRunner, MultiThreadAgentParallelRunner and
MultiProcessAgentParallelRunner (`pams run --runner`, numParallel = the
CPUs), and PAMS's for a few steps of the 9-market config, in the same run.

The configs are samples/parallel_main/make_config.py's (500 WorkloadFCNAgents
per market, 100 arbitrage agents, workload 10x10, orderRate 0.1), with the
steps cut. A step's time is the run's EXECUTION TIME divided by its steps
(it grows as the books fill, so pams-cpp is also timed on exactly the steps
PAMS is timed on). PAMS's side is PAMS 0.3.0 with the sample's
WorkloadFCNAgent as a user class (bench/pams_parallel_main.py: the
development branch does not install here). PAMS's docs time the 9-market
model's decision phase with the heavier workload 100x100 (13.0 s a step):
--heavy times that too, and --full runs the 99-market config's 1,000 steps
(pams-cpp only: PAMS's docs need over 4 minutes for its first step).

Usage: parallel_main_bench.py --pams BIN --reference-python PY [--quick] [--heavy] [--full]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "samples", "parallel_main"))
from make_config import make_config  # noqa: E402

RUNNERS = ["SequentialRunner", "MultiThreadAgentParallelRunner",
           "MultiProcessAgentParallelRunner"]
REFERENCE_ENV = {"LD_LIBRARY_PATH": "/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack"}


def pams_cpp_seconds(pams, config, runner, tmp):
    """(setup, execution) seconds of `pams run` on config with runner."""
    path = os.path.join(tmp, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    out = subprocess.run([pams, "run", path, "--seed", "1", "--quiet", "--runner", runner],
                         check=True, capture_output=True, text=True).stdout
    setup = float(re.search(r"# INITIALIZATION TIME (\S+)", out).group(1))
    execution = float(re.search(r"# EXECUTION TIME (\S+)", out).group(1))
    return setup, execution


def pams_seconds(python, config, steps, tmp):
    """PAMS's time of each of the first `steps` steps (SequentialRunner)."""
    path = os.path.join(tmp, "pams_config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    out = subprocess.run([python, os.path.join(HERE, "pams_parallel_main.py"), path, str(steps)],
                         check=True, capture_output=True, text=True,
                         env=dict(os.environ, **REFERENCE_ENV)).stdout
    return json.loads(out.strip().splitlines()[-1])["seconds"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pams", required=True, help="the pams command")
    p.add_argument("--reference-python", required=True, help="Python of the reference PAMS")
    p.add_argument("--quick", action="store_true", help="fewer steps")
    p.add_argument("--heavy", action="store_true",
                   help="also the 9-market model with the workload 100x100 (PAMS: minutes)")
    p.add_argument("--full", action="store_true",
                   help="also pams-cpp's 1,000 steps of the 99-market config")
    args = p.parse_args()
    workers = os.cpu_count() or 1
    steps = {2: 10, 9: 10, 99: 5} if args.quick else {2: 50, 9: 50, 99: 20}
    pams_steps = 1 if args.quick else 3
    print(f"parallel_main (Plham's ParallelMain): time per step; numParallel {workers}")
    print(f"{'spot markets':>12}  {'agents':>6}  {'steps':>5}  " +
          "  ".join(f"{r.replace('AgentParallelRunner', ''):>16}" for r in RUNNERS))
    with tempfile.TemporaryDirectory() as tmp:
        for n, n_steps in steps.items():
            config = make_config(n_spots=n, steps=n_steps, num_parallel=workers)
            times = [pams_cpp_seconds(args.pams, config, r, tmp)[1] / n_steps for r in RUNNERS]
            print(f"{n:>12}  {500 * (n + 1) + 100:>6}  {n_steps:>5}  " +
                  "  ".join(f"{t * 1000:>13.1f} ms" for t in times))

        print()
        # The workload off (the market's and the arbitrageurs' work), the
        # sample's 10x10, and the 100x100 of PAMS's docs.
        workloads = [None, (10, 10)] + ([(100, 100)] if args.heavy else [])
        for workload in workloads:
            samples, paths = workload or (10, 10)
            config = make_config(n_spots=9, steps=pams_steps, bs_num_samples=samples,
                                 bs_num_steps=paths, with_workload=workload is not None,
                                 num_parallel=workers)
            theirs = pams_seconds(args.reference_python, config, pams_steps, tmp)
            ours = {r: pams_cpp_seconds(args.pams, config, r, tmp)[1] / pams_steps
                    for r in RUNNERS}
            mean = sum(theirs) / len(theirs)
            label = f"{samples}x{paths}" if workload else "off"
            print(f"9 spot markets, workload {label}, steps 1-{pams_steps} "
                  f"(the same steps for both):")
            print(f"  PAMS 0.3.0, SequentialRunner: {mean:.2f} s per step "
                  f"({', '.join(f'{t:.2f}' for t in theirs)})")
            for r, t in ours.items():
                print(f"  pams-cpp, {r}: {t * 1000:.1f} ms per step, {mean / t:.0f}x PAMS")
        if args.full:
            config = make_config(n_spots=99, steps=1000, num_parallel=workers)
            start = time.perf_counter()
            setup, execution = pams_cpp_seconds(args.pams, config, RUNNERS[1], tmp)
            print(f"\n99 spot markets, 1,000 steps, MultiThreadAgentParallelRunner: "
                  f"{execution:.0f} s ({execution / 1000 * 1000:.0f} ms per step; setup "
                  f"{setup:.1f} s; {time.perf_counter() - start:.0f} s in all)")


if __name__ == "__main__":
    main()
