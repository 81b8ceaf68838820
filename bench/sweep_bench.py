#!/usr/bin/env python3
"""pams sweep's throughput, side by side with a process per run, and across
MPI ranks.

1. CI2002, --seeds 1-N on --jobs 2: `pams sweep` (sweep workers, many runs
   per process) against a process per run, the way pams sweep ran before
   (--old-pams: a pams binary of that version, whose sweep starts `pams run`
   for every seed; without it, the same is done here: a `pams run` child
   per seed, two at a time). Paired runs, medians, the ratio; with --out on
   disk and in memory (/dev/shm).
2. The same sweep under `mpirun -n 2` and `-n 3` (1 and 2 worker ranks).
3. The coordinator's own limit: a config of 2 steps and 2 agents under
   mpirun (rank 0 hands out runs that take almost nothing), rank 0's CPU
   time per run from the sweep's last stderr line, and the arithmetic of how
   many worker ranks one coordinator serves at the samples' run lengths.

Usage: sweep_bench.py --pams BIN [--old-pams BIN] [--mpirun MPIRUN]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.abspath(os.path.dirname(__file__)))
CI2002 = os.path.join(ROOT, "samples", "CI2002", "config.json")
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}
STATS = re.compile(r"# sweep: (\d+) runs in ([\d.]+) s \(([\d.]+) runs/s\); the coordinator "
                   r"used ([\d.]+) s of CPU \(([\d.]+) us a run\) and worked ([\d.]+) us a run")


def timed(cmd, env=None):
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return elapsed, proc


def process_per_run(pams, seeds, out):
    """A `pams run` child per seed, 2 at a time, each writing what a sweep's
    run writes."""
    running = []
    for seed in range(1, seeds + 1):
        run = os.path.join(out, f"seed-{seed}")
        os.makedirs(run)
        with open(os.path.join(run, "stdout.txt"), "w") as o, \
                open(os.path.join(run, "stderr.txt"), "w") as e:
            running.append(subprocess.Popen(
                [pams, "run", CI2002, "--seed", str(seed), "--steps-csv",
                 os.path.join(run, "steps.csv"), "--agents-csv",
                 os.path.join(run, "agents.csv")], stdout=o, stderr=e))
        if len(running) == 2:
            running.pop(0).wait()
    for p in running:
        p.wait()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--old-pams", help="a pams whose sweep runs a process per run")
    p.add_argument("--mpirun", default=shutil.which("mpirun"))
    p.add_argument("--seeds", type=int, default=200)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="pams-sweep-bench-")
    seeds = f"1-{args.seeds}"

    def sweep(pams, name, *extra, launcher=(), env=None, base=tmp):
        out = os.path.join(base, name)
        shutil.rmtree(out, ignore_errors=True)
        return timed([*launcher, pams, "sweep", CI2002, "--seeds", seeds, "--out", out,
                      *extra], env=env)

    # On disk (the temporary directory's filesystem) and, where there is one,
    # in memory (/dev/shm): a run writes a directory and four files, and
    # creating a file costs about a millisecond of CPU on some virtual
    # disks, which both sides pay alike.
    places = [("disk", tmp)]
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        places.append(("memory, /dev/shm", tempfile.mkdtemp(prefix="pams-sweep-bench-",
                                                            dir="/dev/shm")))
    print(f"# CI2002, {args.seeds} seeds (600 steps, 100 agents), 2 at a time; "
          f"medians of {args.repeats} paired runs")
    what = "pams sweep of the old version" if args.old_pams else "a pams run process per run"
    new_median = None
    for place, base in places:
        new, old = [], []
        for r in range(args.repeats):
            new.append(sweep(args.pams, "new", "--jobs", "2", "--quiet", base=base)[0])
            if args.old_pams:
                old.append(sweep(args.old_pams, "old", "--jobs", "2", "--quiet", base=base)[0])
            else:
                out = os.path.join(base, "old")
                shutil.rmtree(out, ignore_errors=True)
                start = time.perf_counter()
                process_per_run(args.pams, args.seeds, out)
                old.append(time.perf_counter() - start)
        n, o = statistics.median(new), statistics.median(old)
        new_median = new_median or n
        print(f"{place}: process per run ({what}): {o:.3f} s, {args.seeds / o:.0f} runs/s; "
              f"pams sweep (sweep workers): {n:.3f} s, {args.seeds / n:.0f} runs/s; "
              f"ratio {o / n:.2f}x (target >= 3x)")
        if base != tmp:
            shutil.rmtree(base)

    if not args.mpirun:
        print("# no mpirun: the MPI part is left out (apt-get install openmpi-bin "
              "libopenmpi-dev, then rebuild)")
        return
    env = dict(os.environ, **MPI_ENV)
    print(f"\n# the same sweep under mpirun (rank 0 coordinates, the others run), "
          f"medians of {args.repeats}")
    for ranks in (2, 3):
        times = [sweep(args.pams, f"mpi{ranks}", launcher=(args.mpirun, "-n", str(ranks)),
                       env=env)[0] for _ in range(args.repeats)]
        m = statistics.median(times)
        print(f"mpirun -n {ranks} ({ranks - 1} worker rank{'s' if ranks > 2 else ''}): "
              f"{m:.3f} s, {args.seeds / m:.0f} runs/s (mpirun's start included)")

    # The coordinator's limit: runs that take almost nothing.
    with open(CI2002) as f:
        tiny = json.load(f)
    tiny["simulation"]["sessions"] = [dict(tiny["simulation"]["sessions"][0],
                                           iterationSteps=1),
                                      dict(tiny["simulation"]["sessions"][1],
                                           iterationSteps=1)]
    tiny["FCNAgents"]["numAgents"] = 2
    tiny_path = os.path.join(tmp, "tiny.json")
    with open(tiny_path, "w") as f:
        json.dump(tiny, f)
    runs = 2000
    cpu, work, rates = [], [], []
    for _ in range(args.repeats):
        out = os.path.join(tmp, "tiny")
        shutil.rmtree(out, ignore_errors=True)
        _, proc = timed([args.mpirun, "-n", "3", args.pams, "sweep", tiny_path, "--seeds",
                         f"1-{runs}", "--out", out], env=env)
        m = STATS.search(proc.stderr)
        if not m:
            sys.exit(f"no statistics line in the sweep's stderr:\n{proc.stderr[-1000:]}")
        rates.append(float(m.group(3)))
        cpu.append(float(m.group(5)))
        work.append(float(m.group(6)))
    per_run = statistics.median(work)
    print(f"\n# the coordinator's limit: {runs} runs of 2 steps and 2 agents, mpirun -n 3")
    print(f"runs handed out: {statistics.median(rates):.0f} runs/s with 2 worker ranks; "
          f"rank 0 worked {per_run:.1f} us a run (messages, the run's directory, its "
          f"share of the summary; its CPU time, polling included: "
          f"{statistics.median(cpu):.1f} us a run)")
    limit = 1e6 / per_run
    print(f"one coordinator can hand out at most ~{limit:.0f} runs/s")
    single = new_median * 2 / args.seeds  # a run's time on one core (on disk)
    for name, seconds in (("CI2002 (600 steps)", single),
                          ("a 10x longer run", single * 10),
                          ("a 100x longer run", single * 100)):
        print(f"  {name}: {seconds * 1e3:.1f} ms a run -> one coordinator serves "
              f"~{seconds * limit:.0f} worker ranks")
    print("Beyond that the coordinator is the bottleneck; handing out batches of runs "
          "per message (or several coordinators, one per block of the grid) would lift "
          "it by the batch size.")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
