#!/usr/bin/env python3
"""The Python face under faults: runs every case of this directory (a
script that uses pams_cpp wrongly, or whose classes misbehave, or that is
interrupted, terminated or loses a worker) and checks that the user sees
what the case's docstring says, as tests/bad_configs does for configs.

A case's docstring holds, after its description, lines of:

  Expect: TYPE: FRAGMENT   the run ends with the exception TYPE (the last
                           line of its traceback that starts "TYPE: "),
                           whose message contains FRAGMENT (which may be
                           empty); exit status 1
  Expect: ok               the case checks its own outcome and ends with
                           exit status 0, printing "OK"
  Exit: N                  another exit status (default 0 for ok, -2 (SIGINT)
                           for KeyboardInterrupt, else 1)
  Within: S                the case prints "stopped after X s": X < S
  Serial: yes              timing matters: run alone, after the others
  Timeout: S               seconds before the case counts as hung (30)

Every case is also checked for what must never happen: a hang (past its
timeout), a crash (ended by a signal), a process left behind (any process
still holding the case's PAMS_TEST_TAG in its environment after it
ended), and nanobind's report of objects leaked at exit.

Outcomes: clean (all as expected), unclear (it ended, but not with the
error or message expected) and bad (a hang, a crash, a process left
behind, a leak report). Exit status 0 when every case is clean.

Usage: python_faults_test.py --python VENV_PYTHON [--jobs N]
                              [--only serial|parallel] [CASE ...]
"""
import argparse
import concurrent.futures
import glob
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))


def spec_of(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    doc = re.match(r'\s*"""(.*?)"""', text, re.S)
    if not doc:
        raise SystemExit(f"{path}: no docstring")
    spec = {"timeout": 30.0, "serial": False, "within": None, "exit": None}
    for line in doc.group(1).splitlines():
        key, _, value = line.strip().partition(": ")
        if key == "Expect":
            spec["expect"] = value.strip()
        elif key == "Exit":
            spec["exit"] = int(value)
        elif key == "Within":
            spec["within"] = float(value)
        elif key == "Serial":
            spec["serial"] = value.strip() == "yes"
        elif key == "Timeout":
            spec["timeout"] = float(value)
    if "expect" not in spec:
        raise SystemExit(f"{path}: no 'Expect:' line in its docstring")
    if spec["exit"] is None:
        # An uncaught KeyboardInterrupt ends Python by SIGINT (as the shell
        # expects of a program stopped by Ctrl-C).
        spec["exit"] = (0 if spec["expect"] == "ok" else
                        -signal.SIGINT if spec["expect"].startswith("KeyboardInterrupt") else 1)
    return spec


def final_exception(stderr):
    """The text of the exception that ended the program: what follows the
    frames of the last traceback (its type, message and notes)."""
    lines = stderr.splitlines()
    starts = [i for i, line in enumerate(lines)
              if line.startswith("Traceback (most recent call last):")]
    if not starts:
        return ""
    rest = lines[starts[-1] + 1:]
    while rest and (rest[0].startswith(" ") or not rest[0]):
        rest = rest[1:]
    return "\n".join(rest)


def tagged_processes(tag):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if tag.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def run_case(python, path):
    """(outcome, reason, seconds) of one case."""
    spec = spec_of(path)
    tag = uuid.uuid4().hex
    env = dict(os.environ, PAMS_TEST_TAG=tag, PYTHONUNBUFFERED="1",
               PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pams-fault-") as cwd:
        proc = subprocess.Popen([python, path], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=spec["timeout"])
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            for pid in tagged_processes(tag):
                os.kill(pid, signal.SIGKILL)
            return "bad", f"hung: still running after {spec['timeout']} s\n{err[-1500:]}", \
                time.monotonic() - start
        seconds = time.monotonic() - start
        left = []
        for _ in range(20):  # workers reaped by now, or soon
            left = tagged_processes(tag)
            if not left:
                break
            time.sleep(0.05)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    tail = err[-3000:]
    if left:
        return "bad", f"processes left behind: {left}\n{tail}", seconds
    if proc.returncode < 0 and proc.returncode != spec["exit"]:
        return "bad", f"crashed: signal {-proc.returncode}\n{tail}", seconds
    if "nanobind: leaked" in err:
        return "bad", f"nanobind reports leaks at exit\n{tail}", seconds
    if proc.returncode != spec["exit"]:
        return "unclear", f"exit status {proc.returncode}, expected {spec['exit']}\n" \
                          f"{out[-1000:]}\n{tail}", seconds
    if spec["expect"] == "ok":
        if "OK" not in out.split():
            return "unclear", f"no OK printed\n{out[-1000:]}\n{tail}", seconds
    else:
        kind, _, fragment = spec["expect"].partition(":")
        kind, fragment = kind.strip(), fragment.strip()
        raised = final_exception(err)
        if not re.match(rf"(\w+\.)*{re.escape(kind)}(: |$)", raised) or fragment not in raised:
            return "unclear", f"expected '{kind}: ...{fragment}...'\n{tail}", seconds
    if spec["within"] is not None:
        stopped = re.findall(r"stopped after ([\d.]+) s", out)
        if not stopped or float(stopped[-1]) >= spec["within"]:
            return "unclear", f"expected to stop within {spec['within']} s: {out[-500:]}", \
                seconds
        return "clean", f"stopped {stopped[-1]} s after the signal", seconds
    return "clean", "", seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", required=True, help="the Python with pams_cpp")
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--only", choices=["serial", "parallel"],
                        help="only the cases marked Serial (timing matters), or only the others")
    parser.add_argument("cases", nargs="*")
    args = parser.parse_args()
    paths = sorted(glob.glob(os.path.join(HERE, "case_*.py")))
    if args.cases:
        paths = [p for p in paths if any(c in os.path.basename(p) for c in args.cases)]
    serial = [p for p in paths if spec_of(p)["serial"]]
    parallel = [p for p in paths if p not in serial]
    if args.only == "serial":
        parallel = []
    elif args.only == "parallel":
        serial = []
    paths = parallel + serial
    results = {}
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for path, result in zip(parallel, pool.map(lambda p: run_case(args.python, p), parallel)):
            results[path] = result
    for path in serial:
        results[path] = run_case(args.python, path)
    counts = {"clean": 0, "unclear": 0, "bad": 0}
    for path in paths:
        outcome, reason, seconds = results[path]
        counts[outcome] += 1
        name = os.path.basename(path)
        if outcome == "clean":
            print(f"{outcome:8} {seconds:5.1f} s  {name}" + (f" ({reason})" if reason else ""))
        else:
            print(f"{outcome:8} {seconds:5.1f} s  {name}")
            print("    " + reason.replace("\n", "\n    "))
    print(f"python_faults: {len(paths)} cases in {time.monotonic() - start:.1f} s: "
          f"{counts['clean']} clean, {counts['unclear']} unclear, {counts['bad']} bad")
    sys.exit(0 if counts["clean"] == len(paths) else 1)


if __name__ == "__main__":
    main()
