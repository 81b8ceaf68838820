#!/usr/bin/env python3
"""TensorFlow agents and TensorFlowAgentParallelRunner, through `pams run`.

* identical: with tensorflowIntraOpThreads set, the TensorFlow sample gives
  byte-identical step and agent CSVs under SequentialRunner and
  TensorFlowAgentParallelRunner (numParallel 1, 2, 4; spawn, forkserver,
  and fork, which works when TensorFlow has not run in the main process).
* threads: every worker process really runs TensorFlow with the configured
  intra-op and inter-op thread counts (counted in /proc while it runs), and
  sees TF_DETERMINISTIC_OPS when the main process has it.
* fork: once TensorFlow has run in the main process, "fork" is refused with
  a clear error and "spawn" still works (tests/tensorflow_fork_check).
* missing: without TensorFlow (PAMS_TENSORFLOW_LIBRARY pointing nowhere), a
  config that needs it fails with the installation message and exit status
  2, no crash; configs that do not need it run unchanged.

TensorFlow must be installed (`make test` installs tensorflow-cpu into
.venv-tf); these tests are skipped only when PAMS_SKIP_TENSORFLOW_TESTS=1.

Usage: tensorflow_test.py --pams BIN --fork-check BIN [--only PART]
"""
import argparse
import os
import signal
import subprocess
import sys
import time
import scratch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "samples", "tensorflow", "config.json")
TF_RUNNER = "TensorFlowAgentParallelRunner"


def run(pams, *args, env=None):
    return subprocess.run([pams, "run", SAMPLE, "--seed", "4", *args],
                          capture_output=True, text=True, env=env, timeout=600)


def available(pams):
    proc = run(pams, "--set", "simulation.sessions[0].iterationSteps=1",
               "--set", "simulation.sessions[1].iterationSteps=1")
    return proc.returncode == 0, proc.stderr


def identical(args, failures):
    tmp = scratch.folder("pams-tf-")
    files = lambda tag: [os.path.join(tmp, f"steps{tag}.csv"),
                         os.path.join(tmp, f"agents{tag}.csv")]
    s, a = files("-seq")
    ref = run(args.pams, "--steps-csv", s, "--agents-csv", a)
    if ref.returncode != 0:
        failures.append("SequentialRunner failed: " + ref.stderr[-800:])
        return
    expected = [open(s).read(), open(a).read()]
    count = 0
    for method in ("spawn", "forkserver", "fork"):
        for n in ((1, 2, 4) if method != "fork" else (2,)):
            s, a = files("-par")
            proc = run(args.pams, "--runner", TF_RUNNER, "--steps-csv", s, "--agents-csv", a,
                       "--set", f"simulation.numParallel={n}",
                       "--set", f'simulation.startMethod="{method}"')
            count += 1
            name = f"{method} numParallel={n}"
            if proc.returncode != 0:
                failures.append(f"{name}: exit {proc.returncode}: {proc.stderr[-800:]}")
            elif [open(s).read(), open(a).read()] != expected:
                failures.append(f"{name}: CSVs differ from SequentialRunner's")
    print(f"identical: {count} runs compared", flush=True)


def thread_names(pid):
    names = {}
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            names[name] = names.get(name, 0) + 1
    except OSError:
        pass
    return names


def workers_of(pid):
    """Processes below pid (workers, and the forkserver's workers)."""
    children = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(p))
            except (OSError, ValueError, IndexError):
                pass
    found, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            found.append(c)
            todo.append(c)
    return found


def threads(args, failures):
    for method, intra, inter in (("spawn", 2, 1), ("forkserver", 1, 3), ("fork", 3, 2)):
        env = dict(os.environ, TF_DETERMINISTIC_OPS="1")
        cmd = [args.pams, "run", SAMPLE, "--seed", "1", "--runner", TF_RUNNER,
               "--set", "simulation.numParallel=2",
               # The agents' model calls in the workers (batched, they run
               # in the main process), every worker started at once (else
               # on 2 CPUs only the one that takes part in rounds starts).
               "--set", "simulation.batchModelCalls=false",
               "--set", "simulation.runRoundsWhileWorkersStart=false",
               "--set", f'simulation.startMethod="{method}"',
               "--set", f"simulation.tensorflowIntraOpThreads={intra}",
               "--set", f"simulation.tensorflowInterOpThreads={inter}",
               "--set", "simulation.sessions[1].iterationSteps=1000000"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, env=env, start_new_session=True)
        # Wait until both workers have run TensorFlow and their thread pools
        # are the configured ones. The counts are read until they match (or
        # the deadline passes, and the last reading is reported): while
        # TensorFlow starts, a worker may briefly hold more tf_Compute
        # threads (seen once in 5 runs under ASan's slower start).
        checked = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.5)
            checked = []
            for w in workers_of(proc.pid):
                names = thread_names(w)
                try:
                    with open(f"/proc/{w}/comm") as f:
                        comm = f.read().strip()
                    with open(f"/proc/{w}/environ", "rb") as f:
                        environ = f.read().split(b"\0")
                except OSError:
                    continue
                if names.get("tf_Compute"):
                    checked.append((w, names, comm, environ))
            if len(checked) == 2 and all(
                    (names.get(comm, 0) - 1, names.get("tf_Compute", 0)) == (intra, inter)
                    for _, names, comm, _ in checked):
                break
        os.killpg(proc.pid, signal.SIGINT)
        proc.communicate(timeout=30)
        name = f"threads {method} intra={intra} inter={inter}"
        if len(checked) != 2:
            failures.append(f"{name}: found {len(checked)} workers running TensorFlow")
            continue
        for w, names, comm, environ in checked:
            # TensorFlow's inter-op pool threads are named tf_Compute; the
            # intra-op pool's threads keep the process's name, beside the
            # main thread.
            got_inter = names.get("tf_Compute", 0)
            got_intra = names.get(comm, 0) - 1
            if (got_intra, got_inter) != (intra, inter):
                failures.append(f"{name}: worker {w} has intra {got_intra}, inter "
                                f"{got_inter} threads: {names}")
            if b"TF_DETERMINISTIC_OPS=1" not in environ:
                failures.append(f"{name}: worker {w} lacks TF_DETERMINISTIC_OPS")
    print("threads: 3 start methods", flush=True)


def fork(args, failures):
    proc = subprocess.run([args.fork_check, SAMPLE], capture_output=True, text=True,
                          timeout=600)
    print(proc.stdout, end="", flush=True)
    if proc.returncode != 0:
        failures.append("fork check failed: " + proc.stdout + proc.stderr[-500:])


def missing(args, failures):
    env = dict(os.environ, PAMS_TENSORFLOW_LIBRARY="/nonexistent/libtensorflow_cc.so.2")
    for extra in ([], ["--runner", TF_RUNNER]):
        proc = run(args.pams, *extra, env=env)
        name = f"missing TensorFlow {' '.join(extra)}"
        if proc.returncode != 2:
            failures.append(f"{name}: exit {proc.returncode}, expected 2")
        if "TensorFlow is needed here but is not available" not in proc.stderr or \
                "pip install tensorflow-cpu" not in proc.stderr:
            failures.append(f"{name}: no installation message: {proc.stderr[-500:]}")
        for bad in ("terminate called", "Segmentation", "Aborted"):
            if bad in proc.stderr:
                failures.append(f"{name}: {bad}")
    other = subprocess.run([args.pams, "run", os.path.join(ROOT, "samples/CI2002/config.json"),
                            "--seed", "1"], capture_output=True, text=True, env=env)
    if other.returncode != 0:
        failures.append("a config without TensorFlow failed when TensorFlow is missing")
    print("missing: 3 runs", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--fork-check", required=True)
    p.add_argument("--only", choices=["identical", "threads", "fork", "missing"])
    args = p.parse_args()
    if os.environ.get("PAMS_SKIP_TENSORFLOW_TESTS") == "1":
        print("TensorFlow tests skipped: PAMS_SKIP_TENSORFLOW_TESTS=1")
        sys.exit(77)
    failures = []
    if args.only != "missing":
        ok, err = available(args.pams)
        if not ok:
            sys.exit("TensorFlow is not available to pams (run `make test`, which "
                     "installs tensorflow-cpu into .venv-tf, or set "
                     "PAMS_SKIP_TENSORFLOW_TESTS=1 to skip these tests):\n" + err[-1500:])
    for name, fn in (("identical", identical), ("threads", threads), ("fork", fork),
                     ("missing", missing)):
        if args.only in (None, name):
            fn(args, failures)
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    scratch.run(main)
