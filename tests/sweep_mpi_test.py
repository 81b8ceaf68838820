#!/usr/bin/env python3
"""pams sweep across the ranks of an MPI job (OpenMPI's mpirun).

* same: a grid x seeds sweep under `mpirun -n 3` (oversubscribed on 2 cores)
  writes summary.csv, summary.json and aggregate.csv byte-identical to a
  local sweep's, and every run's steps.csv and agents.csv identical too;
  the ranks, not local workers, did the runs (the stderr line says so).
* rank killed: a worker rank gets SIGKILL mid-sweep; the job ends with an
  error, the completed runs stay; the same command again runs only the
  missing ones (the completed keep their mtime) and its summary equals a
  local sweep's.
* refused: --jobs under MPI is refused with a message naming it; a pams whose
  MPI module is missing, started as if by mpirun, says how to get MPI
  (exit status 2) instead of running the sweep alone on each rank.

Usage: sweep_mpi_test.py --pams BIN --mpirun MPIRUN --test-agents LIB
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

import scratch

ROOT = os.path.dirname(os.path.abspath(os.path.dirname(__file__)))
CI2002 = os.path.join(ROOT, "samples", "CI2002", "config.json")
BUSY = os.path.join(ROOT, "tests", "parallel", "busy.json")
SHORT = "simulation.sessions[1].iterationSteps=200"
GRID = ["--grid", "FCNAgents.fundamentalWeight=[0.5, 1.0]"]
# OpenMPI refuses root, and more ranks than cores, without these.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}


class Checker:
    def __init__(self, args):
        self.args = args
        self.tmp = scratch.folder("pams-sweep-mpi-")
        self.failures = []
        self.env = dict(os.environ, **MPI_ENV)

    def check(self, ok, message):
        if not ok:
            self.failures.append(message)
            print("FAIL", message, flush=True)
        return ok

    def part(self, name, failures_before):
        ok = len(self.failures) == failures_before
        print(f"{'ok' if ok else 'FAILED'}: {name}", flush=True)

    def pams(self, *cmd, timeout=300):
        return subprocess.run([self.args.pams, *cmd], capture_output=True, text=True,
                              timeout=timeout)

    def mpirun(self, n, *cmd, timeout=300):
        return subprocess.run([self.args.mpirun, "-n", str(n), self.args.pams, *cmd],
                              capture_output=True, text=True, timeout=timeout, env=self.env)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def completed(out):
    runs = os.path.join(out, "runs")
    return sorted(n for n in os.listdir(runs) if "." not in n) if os.path.isdir(runs) else []


def same_outputs(c, local, mpi, name):
    for f in ("summary.csv", "summary.json", "aggregate.csv"):
        c.check(read(os.path.join(local, f)) == read(os.path.join(mpi, f)),
                f"{name}: {f} differs from the local sweep's")
    c.check(completed(local) == completed(mpi), f"{name}: runs {completed(mpi)}")
    for run in completed(local):
        for f in ("steps.csv", "agents.csv"):
            c.check(read(os.path.join(local, "runs", run, f)) ==
                    read(os.path.join(mpi, "runs", run, f)),
                    f"{name}: runs/{run}/{f} differs from the local sweep's")


def same(c):
    failures = len(c.failures)
    cmd = ["sweep", CI2002, "--seeds", "1-6", *GRID, "--set", SHORT, "--quiet"]
    local = os.path.join(c.tmp, "local")
    proc = c.pams(*cmd, "--out", local, "--jobs", "2")
    c.check(proc.returncode == 0, f"same: local sweep exit {proc.returncode}: {proc.stderr[-300:]}")
    mpi = os.path.join(c.tmp, "mpi")
    start = time.monotonic()
    proc = c.mpirun(3, *cmd[:-1], "--out", mpi)
    elapsed = time.monotonic() - start
    if c.check(proc.returncode == 0, f"same: mpirun exit {proc.returncode}: "
                                     f"{proc.stdout[-300:]} {proc.stderr[-500:]}"):
        c.check("2 at a time on 3 MPI ranks" in proc.stderr,
                f"same: the ranks did not do the runs: {proc.stderr[-300:]!r}")
        c.check(proc.stdout.count("12 runs of") == 1,
                f"same: the summary was not printed once, by rank 0: {proc.stdout!r}")
        same_outputs(c, local, mpi, "same")
    c.part(f"same (mpirun -n 3: {elapsed:.1f} s)", failures)


def rank_pids(rank, out):
    """Pids of the pams processes of this MPI rank sweeping into out."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if out.encode() in cmdline and b"sweep" in cmdline and \
                f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ:
            found.append(int(pid))
    return found


def rank_killed(c):
    failures = len(c.failures)
    out = os.path.join(c.tmp, "killed")
    # Runs of about half a second each: the kill lands mid-sweep.
    cmd = ["sweep", BUSY, "--seeds", "1-12", "--plugin", c.args.test_agents, "--set",
           "BusyAgents.busyMicroseconds=300", "--out", out]
    proc = subprocess.Popen([c.args.mpirun, "-n", "3", c.args.pams, *cmd, "--quiet"],
                            env=c.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while len(completed(out)) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    victims = rank_pids(2, out)
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    try:
        _, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, stderr = proc.communicate()
    done = completed(out)
    c.check(len(victims) == 1, f"rank killed: rank 2's processes {victims}")
    c.check(proc.returncode != 0, f"rank killed: mpirun exit {proc.returncode}")
    c.check(3 <= len(done) < 12, f"rank killed: {len(done)} runs completed: {done}")
    mtimes = {run: os.stat(os.path.join(out, "runs", run, "steps.csv")).st_mtime_ns
              for run in done}
    again = c.mpirun(3, *cmd)
    c.check(again.returncode == 0, f"rank killed: resumed exit {again.returncode}: "
                                   f"{again.stderr[-500:]}")
    c.check(f"{12 - len(done)} runs ({len(done)} done before)" in again.stderr,
            f"rank killed: the resumed sweep did not run only the missing: "
            f"{again.stderr[-300:]!r}")
    c.check(mtimes == {run: os.stat(os.path.join(out, "runs", run, "steps.csv")).st_mtime_ns
                       for run in done}, "rank killed: completed runs were rerun")
    c.check(sorted(os.listdir(os.path.join(out, "runs"))) == completed(out),
            f"rank killed: left {os.listdir(os.path.join(out, 'runs'))}")
    local = os.path.join(c.tmp, "killed-local")
    proc = c.pams(*cmd[:-1], local, "--jobs", "2", "--quiet")
    c.check(proc.returncode == 0, f"rank killed: local sweep: {proc.stderr[-300:]}")
    same_outputs(c, local, out, "rank killed")
    c.part(f"rank killed ({len(done)} of 12 runs done when rank 2 died)", failures)


def refused(c):
    failures = len(c.failures)
    out = os.path.join(c.tmp, "refused")
    proc = c.mpirun(2, "sweep", CI2002, "--seeds", "1-2", "--jobs", "2", "--out", out)
    c.check(proc.returncode != 0 and "--jobs: does not apply under MPI" in proc.stderr and
            proc.stderr.count("--jobs: does not apply") == 1,
            f"refused --jobs: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    # A pams without its MPI module, in an environment mpirun would give.
    lonely = os.path.join(c.tmp, "bin", "pams")
    os.makedirs(os.path.dirname(lonely))
    shutil.copy(c.args.pams, lonely)
    proc = subprocess.run([lonely, "sweep", CI2002, "--seeds", "1-2", "--out", out],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, OMPI_COMM_WORLD_SIZE="2",
                                   OMPI_COMM_WORLD_RANK="0"))
    c.check(proc.returncode == 2 and "MPI" in proc.stderr and
            "apt-get install libopenmpi-dev" in proc.stderr,
            f"no MPI module: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    proc = subprocess.run([lonely, "sweep", CI2002, "--seeds", "1-2", "--out", out],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, OMPI_COMM_WORLD_SIZE="2",
                                   OMPI_COMM_WORLD_RANK="1"))
    c.check(proc.returncode == 2 and proc.stderr == "",
            f"no MPI module, rank 1: exit {proc.returncode}, says {proc.stderr!r}")
    c.check(not os.path.exists(os.path.join(out, "runs")), "refused: runs were made")
    c.part("refused", failures)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--mpirun", required=True)
    p.add_argument("--test-agents", required=True)
    c = Checker(p.parse_args())
    start = time.monotonic()
    same(c)
    rank_killed(c)
    refused(c)
    print(f"{'ok' if not c.failures else 'FAILED'}: sweep MPI checks "
          f"({time.monotonic() - start:.1f} s)")
    sys.exit(1 if c.failures else 0)


if __name__ == "__main__":
    scratch.run(main)
