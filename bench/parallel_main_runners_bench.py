#!/usr/bin/env python3
"""The agent-parallel runners on Plham's ParallelMain (the parallel_main
sample of PAMS's development branch), whole runs from the CLI and from
Python, each runner's time against SequentialRunner's in the same
repetition (medians of paired runs), and what a task costs the process
runner beyond the call.

  * CLI: `pams run CONFIG --runner R`, WorkloadFCNAgent built in.
  * Python: pams_cpp with a Python subclass of WorkloadFCNAgent whose
    submit_orders only calls super() (bench/parallel_main_python_run.py):
    every call goes through Python, as a user's subclass does.
  * Per-task overhead: (the process runner's CPU time, main process and
    workers, - SequentialRunner's) / tasks, in microseconds; tasks from
    PAMS_WORKER_STATS.

Wall times are whole runs, start-up included. numParallel is 2 unless
--num-parallel. With --baseline-pams BIN (a build of an earlier commit) the
CLI rows are also timed with it, in the same repetitions ("before").

Usage: parallel_main_runners_bench.py --pams BIN --python PY [--steps N] [--repeat K]
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RUNNERS = ["SequentialRunner", "MultiThreadAgentParallelRunner",
           "MultiProcessAgentParallelRunner"]
SHORT = {"SequentialRunner": "sequential", "MultiThreadAgentParallelRunner": "threads",
         "MultiProcessAgentParallelRunner": "processes"}


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, env=None):
    """(wall seconds, CPU seconds of the process and its children, stderr)."""
    cpu = children_cpu()
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    return wall, children_cpu() - cpu, done.stderr


def tasks_in(stderr):
    m = re.search(r"# ROUNDS \d+ with workers' tasks; tasks (\d+) here, (\d+) in workers", stderr)
    return int(m.group(1)) + int(m.group(2)) if m else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pams", required=True, help="the pams command")
    p.add_argument("--python", required=True, help="a Python with pams_cpp (.venv-py)")
    p.add_argument("--baseline-pams", help="an earlier build's pams command (CLI 'before' rows)")
    p.add_argument("--configs", default="config-009,config-002")
    p.add_argument("--steps", type=int, default=100, help="steps of each run (the configs: 500)")
    p.add_argument("--python-steps", type=int, default=None,
                   help="steps of the Python runs (default: --steps)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--num-parallel", type=int, default=2)
    args = p.parse_args()
    python_steps = args.python_steps or args.steps
    env = dict(os.environ, PAMS_WORKER_STATS="1")
    print(f"parallel_main runners: numParallel {args.num_parallel}, {os.cpu_count()} CPUs, "
          f"medians of {args.repeat} paired runs; ratio = SequentialRunner's wall / the runner's")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.configs.split(","):
            with open(os.path.join(ROOT, "samples", "parallel_main", name + ".json")) as f:
                config = json.load(f)
            sides = [("CLI", args.pams, args.steps)]
            if args.baseline_pams:
                sides.insert(0, ("CLI before", args.baseline_pams, args.steps))
            sides.append(("Python", None, python_steps))
            for side, pams, steps in sides:
                config["simulation"]["sessions"][0]["iterationSteps"] = steps
                path = os.path.join(tmp, f"{name}-{steps}.json")
                with open(path, "w") as f:
                    json.dump(config, f)
                walls = {r: [] for r in RUNNERS}
                cpus = {r: [] for r in RUNNERS}
                tasks = None
                for _ in range(args.repeat):
                    for r in RUNNERS:
                        if pams is not None:
                            cmd = [pams, "run", path, "--seed", "1", "--quiet", "--runner", r,
                                   "--set", f"simulation.numParallel={args.num_parallel}"]
                        else:
                            cmd = [args.python, os.path.join(HERE, "parallel_main_python_run.py"),
                                   path, r, str(args.num_parallel)]
                        wall, cpu, err = timed(cmd, env)
                        walls[r].append(wall)
                        cpus[r].append(cpu)
                        tasks = tasks_in(err) or tasks
                seq = walls["SequentialRunner"]
                cells = []
                for r in RUNNERS:
                    ratio = statistics.median(s / w for s, w in zip(seq, walls[r]))
                    cells.append(f"{SHORT[r]} {statistics.median(walls[r]):.2f} s ({ratio:.2f}x)")
                line = f"{name} {steps} steps, {side}: " + ", ".join(cells)
                if tasks:
                    extra = statistics.median(
                        c - s for c, s in zip(cpus["MultiProcessAgentParallelRunner"],
                                              cpus["SequentialRunner"]))
                    line += f"; process runner overhead {extra / tasks * 1e6:.1f} us a task"
                print(line, flush=True)


if __name__ == "__main__":
    main()
