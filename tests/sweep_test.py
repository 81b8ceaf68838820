#!/usr/bin/env python3
"""pams sweep: many seeds of one config, resumable.

* basic: CI2002 (shortened) over seeds 1-6 on 2 jobs: summary.csv has one row
  per seed and market; a run's steps.csv, agents.csv and stdout are those of
  `pams run` with that seed, byte for byte; the stats in summary.csv equal
  `pams stats --json` on the run's steps.csv and a recomputation in Python;
  summary.json has every run; a second sweep on the complete DIR reruns
  nothing.
* interrupt: a sweep of 40 seeds on 2 jobs gets Ctrl-C (SIGINT to its process
  group) after a few runs: exit status 130, no process left, no .partial
  directory; resumed, it gets SIGTERM (to the sweep alone): exit status 143,
  the same checks; resumed again, it completes all 40 without rerunning any
  run completed before (their files keep their mtime).
* refused: another command on the same DIR (--set) is refused with exit
  status 2 and nothing is deleted; bad --seeds, --jobs, a missing config or
  plugin, a bad --set, an --out that is a file and a config inside DIR/runs
  give exit status 2 with a message naming them, before any run; a bad
  config value stops the sweep at the first run with exit status 2 and the
  run's message, and leaves DIR free for the corrected command.
* extend: seeds 1-3, then 1-5 on the same DIR runs only 4 and 5 and
  summarizes all five; --session 1 summarizes session 1 only, as pams stats
  --session 1 does.
* killed: a sweep killed with SIGKILL takes its runs with it (none is left
  a second later, writing into a .partial directory that the next sweep
  deletes); the sweep resumed completes, its runs identical to pams run.
* forward: SIGTERM to the sweep alone reaches its runs: two long runs stop
  at once.
* failed: runs that fail are reported with their seed and stderr, kept as
  seed-S.failed, and the sweep exits with status 1.
* grid: --grid over two keys times seeds 1-2: runs pK-seed-S with their
  params.json, each run's files those of pams run with the same --set and
  seed, summary.csv with the keys as columns, aggregate.csv's means and
  standard deviations those of summary.csv's rows recomputed in Python; a
  second sweep reruns nothing, seeds 1-3 run only seed 3 of each point;
  another grid on the same DIR and bad --grid values are refused (exit 2)
  before any run, naming the --grid.

Usage: sweep_test.py --pams BIN --test-agents LIB
"""
import argparse
import csv
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

import scratch

ROOT = os.path.dirname(os.path.abspath(os.path.dirname(__file__)))
CI2002 = os.path.join(ROOT, "samples", "CI2002", "config.json")
SHORT = "simulation.sessions[1].iterationSteps=200"
BUSY = os.path.join(ROOT, "tests", "parallel", "busy.json")
FAULTY = os.path.join(ROOT, "tests", "parallel", "faulty.json")
COLUMNS = ("seed,market_id,market_name,steps,return_mean,return_std,excess_kurtosis,"
           "return_acf_1,abs_return_acf_1,abs_return_acf_5,total_volume,"
           "mean_abs_fundamental_gap,final_market_price").split(",")


class Checker:
    def __init__(self, args):
        self.args = args
        self.tmp = scratch.folder("pams-sweep-")
        self.failures = []

    def part(self, name, failures_before):
        ok = len(self.failures) == failures_before
        print(f"{'ok' if ok else 'FAILED'}: {name}", flush=True)

    def check(self, ok, message):
        if not ok:
            self.failures.append(message)
            print("FAIL", message, flush=True)
        return ok

    def pams(self, *cmd, timeout=120):
        return subprocess.run([self.args.pams, *cmd], capture_output=True, text=True,
                              timeout=timeout)


def read_summary(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]


def runs_in(out):
    """Names of the entries of out/runs."""
    runs = os.path.join(out, "runs")
    return sorted(os.listdir(runs)) if os.path.isdir(runs) else []


def completed(out):
    return [n for n in runs_in(out) if "." not in n]


def processes_mentioning(text):
    """Pids of live processes whose command line contains text (the sweep's
    runs name their output directory)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def children_of(pid):
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(p))
        except (OSError, IndexError, ValueError):
            pass
    return found


def python_facts(steps_csv):
    """return_std, excess_kurtosis, the lag-1 autocorrelations and the volume
    of the first market, recomputed from the CSV."""
    prices, volume = [], 0.0
    with open(steps_csv, newline="") as f:
        for row in csv.DictReader(f):
            if row["market_id"] != "0":
                continue
            prices.append(float(row["market_price"]))
            volume += float(row["executed_volume"] or 0)
    r = [math.log(b / a) for a, b in zip(prices, prices[1:])]
    n = len(r)
    m = sum(r) / n
    m2 = sum((x - m) ** 2 for x in r) / n
    m4 = sum((x - m) ** 4 for x in r) / n

    def acf(xs, k):
        mean = sum(xs) / len(xs)
        den = sum((x - mean) ** 2 for x in xs)
        return sum((xs[t] - mean) * (xs[t + k] - mean) for t in range(len(xs) - k)) / den

    a = [abs(x) for x in r]
    return {"return_std": math.sqrt(m2), "excess_kurtosis": m4 / m2 ** 2 - 3,
            "return_acf_1": acf(r, 1), "abs_return_acf_1": acf(a, 1),
            "total_volume": volume}


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def basic(c):
    failures = len(c.failures)
    out = os.path.join(c.tmp, "basic")
    cmd = ["sweep", CI2002, "--seeds", "1-6", "--jobs", "2", "--set", SHORT, "--out", out]
    proc = c.pams(*cmd)
    if not c.check(proc.returncode == 0, f"basic: exit {proc.returncode}: {proc.stderr[-500:]}"):
        return
    header, rows = read_summary(os.path.join(out, "summary.csv"))
    c.check(header == COLUMNS, f"basic: summary.csv header {header}")
    c.check([(r["seed"], r["market_id"]) for r in rows] == [(str(s), "0") for s in range(1, 7)],
            f"basic: summary.csv rows {[(r['seed'], r['market_id']) for r in rows]}")
    c.check(completed(out) == [f"seed-{s}" for s in range(1, 7)] and
            runs_in(out) == completed(out), f"basic: runs {runs_in(out)}")
    c.check("Market" in proc.stdout and "return_std" in proc.stdout,
            f"basic: no aggregate on stdout: {proc.stdout!r}")

    # Seed 3 by hand: the same files.
    run_dir = os.path.join(out, "runs", "seed-3")
    steps = os.path.join(c.tmp, "steps-3.csv")
    agents = os.path.join(c.tmp, "agents-3.csv")
    by_hand = c.pams("run", CI2002, "--seed", "3", "--set", SHORT, "--steps-csv", steps,
                     "--agents-csv", agents)
    c.check(by_hand.returncode == 0, f"basic: pams run: {by_hand.stderr[-300:]}")
    for name, path in (("steps.csv", steps), ("agents.csv", agents)):
        with open(path, "rb") as a, open(os.path.join(run_dir, name), "rb") as b:
            c.check(a.read() == b.read(), f"basic: runs/seed-3/{name} differs from pams run")
    strip = lambda text: [l for l in text.splitlines() if not l.startswith("# ")]
    with open(os.path.join(run_dir, "stdout.txt")) as f:
        c.check(strip(f.read()) == strip(by_hand.stdout),
                "basic: runs/seed-3/stdout.txt differs from pams run")

    # The stats: pams stats --json and Python.
    row = rows[2]
    stats = c.pams("stats", "--json", os.path.join(run_dir, "steps.csv"))
    if c.check(stats.returncode == 0, f"basic: pams stats: {stats.stderr[-300:]}"):
        facts = json.loads(stats.stdout)["markets"][0]
        expected = {
            "steps": facts["steps"], "return_mean": facts["return_mean"],
            "return_std": facts["return_std"], "excess_kurtosis": facts["excess_kurtosis"],
            "return_acf_1": facts["return_autocorrelation"][0],
            "abs_return_acf_1": facts["abs_return_autocorrelation"][0],
            "abs_return_acf_5": facts["abs_return_autocorrelation"][4],
            "total_volume": facts["total_volume"],
            "mean_abs_fundamental_gap": facts["mean_abs_fundamental_gap"],
        }
        for key, value in expected.items():
            c.check(float(row[key]) == float(value),
                    f"basic: summary.csv {key} {row[key]} != pams stats {value}")
    for key, value in python_facts(os.path.join(run_dir, "steps.csv")).items():
        c.check(close(float(row[key]), value),
                f"basic: summary.csv {key} {row[key]} != Python {value}")
    with open(os.path.join(run_dir, "steps.csv")) as f:
        last_price = [l for l in f.read().splitlines() if l][-1].split(",")[4]
    c.check(float(row["final_market_price"]) == float(last_price),
            f"basic: final_market_price {row['final_market_price']} != {last_price}")
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    c.check([r["seed"] for r in summary["runs"]] == list(range(1, 7)) and
            len(summary["runs"][2]["markets"][0]["abs_return_autocorrelation"]) == 10,
            "basic: summary.json lacks runs or facts")

    # Again on the complete DIR: nothing reruns, the summary is the same.
    mtimes = {s: os.stat(os.path.join(out, "runs", f"seed-{s}", "steps.csv")).st_mtime_ns
              for s in range(1, 7)}
    with open(os.path.join(out, "summary.csv")) as f:
        before = f.read()
    again = c.pams(*cmd)
    c.check(again.returncode == 0, f"basic: second sweep exit {again.returncode}")
    c.check(mtimes == {s: os.stat(os.path.join(out, "runs", f"seed-{s}", "steps.csv"))
                       .st_mtime_ns for s in range(1, 7)}, "basic: second sweep reran runs")
    with open(os.path.join(out, "summary.csv")) as f:
        c.check(f.read() == before, "basic: second sweep changed summary.csv")
    c.part("basic", failures)


def interrupt_once(c, cmd, out, at_least, to_group, name):
    """Starts the sweep, signals it once at_least runs are complete, checks how
    it stops. Returns the complete runs."""
    sig = signal.SIGINT if to_group else signal.SIGTERM
    proc = subprocess.Popen([c.args.pams, *cmd], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    saw_children = False
    while len(completed(out)) < at_least and time.monotonic() < deadline:
        saw_children = saw_children or bool(children_of(proc.pid))
        time.sleep(0.01)
    saw_children = saw_children or bool(children_of(proc.pid))
    if to_group:
        os.killpg(proc.pid, sig)  # Ctrl-C: the sweep and its runs get it
    else:
        os.kill(proc.pid, sig)
    stdout, stderr = proc.communicate(timeout=60)
    done = completed(out)
    c.check(proc.returncode == 128 + sig,
            f"{name}: exit {proc.returncode}, expected {128 + sig}: {stderr[-500:]}")
    c.check(saw_children, f"{name}: never saw the sweep's runs as its children")
    c.check("resume" in stderr, f"{name}: no word about resuming: {stderr[-300:]!r}")
    c.check(len(done) >= at_least and len(done) < 40,
            f"{name}: {len(done)} runs complete, expected {at_least} to 39")
    c.check(runs_in(out) == done, f"{name}: left {set(runs_in(out)) - set(done)}")
    c.check(not processes_mentioning(out), f"{name}: processes left: "
            f"{processes_mentioning(out)}")
    return done


def interrupt(c):
    failures = len(c.failures)
    out = os.path.join(c.tmp, "interrupt")
    cmd = ["sweep", BUSY, "--seeds", "1-40", "--jobs", "2", "--plugin", c.args.test_agents,
           "--set", "BusyAgents.busyMicroseconds=150", "--out", out, "--quiet"]
    mtime = lambda run: os.stat(os.path.join(out, "runs", run, "steps.csv")).st_mtime_ns
    first = interrupt_once(c, cmd, out, 3, True, "interrupt (SIGINT)")
    before = {run: mtime(run) for run in first}
    second = interrupt_once(c, cmd, out, len(first) + 3, False, "interrupt (SIGTERM)")
    c.check(set(first) < set(second), "interrupt: runs lost by the second interruption")
    before.update({run: mtime(run) for run in second if run not in before})

    proc = c.pams(*cmd)
    c.check(proc.returncode == 0, f"interrupt: resumed sweep exit {proc.returncode}: "
                                  f"{proc.stderr[-500:]}")
    c.check(completed(out) == sorted(f"seed-{s}" for s in range(1, 41)) and
            runs_in(out) == completed(out), f"interrupt: runs after resuming {runs_in(out)}")
    c.check(before == {run: mtime(run) for run in before},
            "interrupt: the resumed sweep reran completed runs")
    _, rows = read_summary(os.path.join(out, "summary.csv"))
    c.check(sorted(int(r["seed"]) for r in rows) == list(range(1, 41)),
            f"interrupt: summary.csv has {len(rows)} rows, expected 40")
    c.part(f"interrupt ({len(first)} then {len(second)} runs done when stopped)", failures)
    failures = len(c.failures)

    # Another command on the same DIR is refused, and nothing is deleted.
    other = list(cmd)
    other[other.index("--set") + 1] = "BusyAgents.busyMicroseconds=151"
    proc = c.pams(*other)
    c.check(proc.returncode == 2 and "another command" in proc.stderr,
            f"refused --set: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    c.check(len(completed(out)) == 40, "refused: runs were deleted")
    c.part("refused (another command on the same DIR)", failures)


def forward(c):
    """SIGTERM to the sweep alone reaches its runs: two runs of several seconds
    stop at once."""
    failures = len(c.failures)
    out = os.path.join(c.tmp, "forward")
    cmd = [c.args.pams, "sweep", BUSY, "--seeds", "1-2", "--jobs", "2", "--plugin",
           c.args.test_agents, "--set", "BusyAgents.busyMicroseconds=5000", "--out", out,
           "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(processes_mentioning(out)) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    start = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    elapsed = time.monotonic() - start
    c.check(proc.returncode == 128 + signal.SIGTERM and elapsed < 3 and runs_in(out) == []
            and not processes_mentioning(out),
            f"forward: exit {proc.returncode} after {elapsed:.1f} s, runs {runs_in(out)}, "
            f"processes {processes_mentioning(out)}: {stderr[-300:]!r}")
    c.part(f"forward (stopped in {elapsed:.2f} s)", failures)


def refused(c):
    failures = len(c.failures)
    out = os.path.join(c.tmp, "refused")
    for seeds in ("1-x", "5-1", "1,2,1", "0-1000000", "", "1,,2", "-3", "1,"):
        proc = c.pams("sweep", CI2002, "--seeds", seeds, "--out", out)
        c.check(proc.returncode == 2 and "--seeds" in proc.stderr,
                f"--seeds {seeds!r}: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    proc = c.pams("sweep", CI2002, "--seeds", "1-2", "--jobs", "0", "--out", out)
    c.check(proc.returncode == 2 and "--jobs" in proc.stderr,
            f"--jobs 0: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    proc = c.pams("sweep", "/nonexistent.json", "--seeds", "1-2", "--out", out)
    c.check(proc.returncode == 2 and "/nonexistent.json" in proc.stderr,
            f"missing config: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    c.check(not os.path.exists(out), "refused: bad input created the output directory")
    for bad, message in (("simulation.sessions[7].iterationSteps=1", "has no element 7"),
                         ("FCNAgents.timeWindowSize=[100]", "FCNAgents.timeWindowSize")):
        # Both are found before any run (the sweep sets the config up once).
        proc = c.pams("sweep", CI2002, "--seeds", "1-20", "--jobs", "2", "--out", out,
                      "--set", bad)
        c.check(proc.returncode == 2 and message in proc.stderr,
                f"--set {bad}: exit {proc.returncode}: {proc.stderr[-300:]!r}")
        c.check(runs_in(out) == [] and not os.path.exists(os.path.join(out, "sweep.json")),
                f"--set {bad}: left {runs_in(out)}")
    proc = c.pams("sweep", CI2002, "--seeds", "1-2", "--plugin", "/nonexistent.so",
                  "--out", out)
    c.check(proc.returncode == 2 and "/nonexistent.so" in proc.stderr,
            f"missing plugin: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    # --out naming a file (here the config itself): a clear message, and the
    # file untouched.
    with open(CI2002, "rb") as f:
        config_bytes = f.read()
    proc = c.pams("sweep", CI2002, "--seeds", "1-2", "--out", CI2002)
    c.check(proc.returncode == 2 and proc.stderr.startswith(
        f"error: --out {CI2002}: is a file, not a directory: --out names the directory")
        and "filesystem error" not in proc.stderr,
        f"--out a file: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    with open(CI2002, "rb") as f:
        c.check(f.read() == config_bytes, "--out a file: the file changed")
    proc = c.pams("sweep", CI2002, "--seeds", "1-2", "--out", os.path.join(CI2002, "sub"))
    c.check(proc.returncode == 2 and "filesystem error" not in proc.stderr and
            f"error: --out {CI2002}/sub: cannot create" in proc.stderr,
            f"--out under a file: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    inside = os.path.join(c.tmp, "inside")
    os.makedirs(os.path.join(inside, "runs"))
    shutil.copy(CI2002, os.path.join(inside, "runs", "config.json"))
    proc = c.pams("sweep", os.path.join(inside, "runs", "config.json"), "--seeds", "1-2",
                  "--out", inside)
    c.check(proc.returncode == 2 and "among its runs" in proc.stderr,
            f"config inside DIR/runs: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    # A key no class reads: one warning for the sweep, not one per run.
    typo = os.path.join(c.tmp, "typo")
    proc = c.pams("sweep", CI2002, "--seeds", "1-3", "--set", SHORT, "--set",
                  "FCNAgents.numAgent=10", "--out", typo)
    warnings = [l for l in proc.stderr.splitlines() if "FCNAgents.numAgent" in l]
    c.check(proc.returncode == 0 and len(warnings) == 1 and 'did you mean "numAgents"'
            in warnings[0], f"typo: exit {proc.returncode}, warnings {warnings!r}")
    # Fixed, the same DIR is fine (nothing was recorded).
    proc = c.pams("sweep", CI2002, "--seeds", "1-2", "--set", SHORT, "--out", out)
    c.check(proc.returncode == 0, f"after bad --set: exit {proc.returncode}: "
                                  f"{proc.stderr[-300:]!r}")
    c.part("refused (bad input)", failures)


def failed(c):
    failures = len(c.failures)
    out = os.path.join(c.tmp, "failed")
    proc = c.pams("sweep", FAULTY, "--seeds", "1-3", "--jobs", "2", "--plugin",
                  c.args.test_agents, "--set", 'Faulty.fault="exit"', "--out", out)
    c.check(proc.returncode == 1, f"failed: exit {proc.returncode}: {proc.stderr[-500:]!r}")
    c.check(runs_in(out) == [f"seed-{s}.failed" for s in (1, 2, 3)],
            f"failed: runs {runs_in(out)}")
    c.check("seed 2" in proc.stderr and "exit status 3" in proc.stderr and
            "seeds 1-3" in proc.stderr, f"failed: message {proc.stderr[-500:]!r}")
    c.part("failed", failures)


def extend(c):
    """1-3, then 1-5 on the same DIR: only 4 and 5 run, the summary has all
    five, sweep.json records 1-5. --session 1: the summary's facts are
    those of pams stats --session 1."""
    failures = len(c.failures)
    out = os.path.join(c.tmp, "extend")
    cmd = ["sweep", CI2002, "--set", SHORT, "--jobs", "2", "--out", out, "--quiet"]
    proc = c.pams(*cmd, "--seeds", "1-3")
    c.check(proc.returncode == 0, f"extend: 1-3: exit {proc.returncode}: {proc.stderr[-300:]}")
    mtime = lambda s: os.stat(os.path.join(out, "runs", f"seed-{s}", "steps.csv")).st_mtime_ns
    before = {s: mtime(s) for s in (1, 2, 3)}
    proc = c.pams(*cmd, "--seeds", "1-5", "--session", "1")
    c.check(proc.returncode == 0, f"extend: 1-5: exit {proc.returncode}: {proc.stderr[-300:]}")
    c.check(completed(out) == [f"seed-{s}" for s in range(1, 6)],
            f"extend: runs {runs_in(out)}")
    c.check(before == {s: mtime(s) for s in (1, 2, 3)}, "extend: seeds 1-3 were rerun")
    _, rows = read_summary(os.path.join(out, "summary.csv"))
    c.check([r["seed"] for r in rows] == ["1", "2", "3", "4", "5"],
            f"extend: summary.csv seeds {[r['seed'] for r in rows]}")
    with open(os.path.join(out, "sweep.json")) as f:
        c.check(json.load(f)["seeds"] == "1-5", "extend: sweep.json does not record 1-5")
    stats = c.pams("stats", "--json", "--session", "1",
                   os.path.join(out, "runs", "seed-4", "steps.csv"))
    facts = json.loads(stats.stdout)["markets"][0] if stats.returncode == 0 else {}
    row = rows[3] if len(rows) > 3 else {}
    c.check(row and facts and float(row["return_std"]) == facts["return_std"] and
            int(row["steps"]) == facts["steps"] == 200,
            f"extend: --session 1: summary {row} vs stats {facts}")
    c.part("extend", failures)


def killed(c):
    """SIGKILL to the sweep: its runs die with it (PR_SET_PDEATHSIG), at once
    rather than when their run would have ended; resumed, the sweep
    completes and each run equals pams run."""
    failures = len(c.failures)
    out = os.path.join(c.tmp, "killed")
    cmd = [c.args.pams, "sweep", BUSY, "--seeds", "1-3", "--jobs", "2", "--plugin",
           c.args.test_agents, "--set", "BusyAgents.busyMicroseconds=1000", "--out", out,
           "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while len(processes_mentioning(out)) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)  # the runs are under way (each takes a few seconds)
    runs = [p for p in processes_mentioning(out) if p != proc.pid]
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 1.5
    while processes_mentioning(out) and time.monotonic() < deadline:
        time.sleep(0.01)
    left = processes_mentioning(out)
    c.check(len(runs) == 2 and not left,
            f"killed: runs {runs} while the sweep lived, {left} alive 1.5 s after SIGKILL")
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    resumed = c.pams(*cmd[1:])
    c.check(resumed.returncode == 0 and completed(out) == ["seed-1", "seed-2", "seed-3"] and
            runs_in(out) == completed(out),
            f"killed: resumed exit {resumed.returncode}, runs {runs_in(out)}: "
            f"{resumed.stderr[-300:]!r}")
    steps = os.path.join(c.tmp, "killed-steps-1.csv")
    by_hand = c.pams("run", BUSY, "--seed", "1", "--plugin", c.args.test_agents, "--set",
                     "BusyAgents.busyMicroseconds=1000", "--steps-csv", steps, "--quiet")
    if c.check(by_hand.returncode == 0, f"killed: pams run: {by_hand.stderr[-300:]}"):
        with open(steps, "rb") as a, open(os.path.join(out, "runs", "seed-1", "steps.csv"),
                                          "rb") as b:
            c.check(a.read() == b.read(), "killed: seed-1 differs from pams run")
    c.part("killed", failures)


GRID = ["--grid", "FCNAgents.fundamentalWeight=[0.5, 1.0]",
        "--grid", "FCNAgents.chartWeight=[0.0, 2.0]"]
GRID_KEYS = ["FCNAgents.fundamentalWeight", "FCNAgents.chartWeight"]
GRID_POINTS = [("0.5", "0.0"), ("0.5", "2.0"), ("1.0", "0.0"), ("1.0", "2.0")]
STATISTICS = COLUMNS[4:]


def grid(c):
    failures = len(c.failures)
    out = os.path.join(c.tmp, "grid")
    cmd = ["sweep", CI2002, "--seeds", "1-2", *GRID, "--set", SHORT, "--jobs", "2",
           "--out", out]
    proc = c.pams(*cmd)
    if not c.check(proc.returncode == 0, f"grid: exit {proc.returncode}: {proc.stderr[-500:]}"):
        return
    names = [f"p{k}-seed-{s}" for k in range(4) for s in (1, 2)]
    c.check(completed(out) == sorted(names) and runs_in(out) == completed(out),
            f"grid: runs {runs_in(out)}")
    header, rows = read_summary(os.path.join(out, "summary.csv"))
    c.check(header == GRID_KEYS + COLUMNS, f"grid: summary.csv header {header}")
    c.check([(r[GRID_KEYS[0]], r[GRID_KEYS[1]], r["seed"]) for r in rows] ==
            [(a, b, str(s)) for a, b in GRID_POINTS for s in (1, 2)],
            f"grid: summary.csv rows {[(r[GRID_KEYS[0]], r[GRID_KEYS[1]], r['seed']) for r in rows]}")
    c.check("4 grid points" in proc.stdout and "fundamentalWeight=1.0 chartWeight=2.0"
            in proc.stdout, f"grid: terminal summary {proc.stdout!r}")
    # Point 2 (fundamentalWeight 1.0, chartWeight 0.0), seed 2, by hand.
    run_dir = os.path.join(out, "runs", "p2-seed-2")
    with open(os.path.join(run_dir, "params.json")) as f:
        c.check(json.load(f) == {"point": 2, "seed": 2, "set": {
            "FCNAgents.fundamentalWeight": 1.0, "FCNAgents.chartWeight": 0.0}},
            "grid: p2-seed-2/params.json")
    steps = os.path.join(c.tmp, "grid-steps.csv")
    agents = os.path.join(c.tmp, "grid-agents.csv")
    by_hand = c.pams("run", CI2002, "--seed", "2", "--set", SHORT, "--set",
                     "FCNAgents.fundamentalWeight=1.0", "--set", "FCNAgents.chartWeight=0.0",
                     "--steps-csv", steps, "--agents-csv", agents, "--quiet")
    c.check(by_hand.returncode == 0, f"grid: pams run: {by_hand.stderr[-300:]}")
    for name, path in (("steps.csv", steps), ("agents.csv", agents)):
        with open(path, "rb") as a, open(os.path.join(run_dir, name), "rb") as b:
            c.check(a.read() == b.read(), f"grid: runs/p2-seed-2/{name} differs from pams run")
    other = os.path.join(c.tmp, "grid-p0-steps.csv")
    c.pams("run", CI2002, "--seed", "2", "--set", SHORT, "--set",
           "FCNAgents.fundamentalWeight=0.5", "--set", "FCNAgents.chartWeight=0.0",
           "--steps-csv", other, "--quiet")
    with open(other, "rb") as a, open(steps, "rb") as b:
        c.check(a.read() != b.read(), "grid: two points gave the same run")
    # aggregate.csv: per point, the mean and sample standard deviation of
    # the two seeds' rows, as Python computes them from the same doubles.
    agg_header, agg = read_summary(os.path.join(out, "aggregate.csv"))
    c.check(agg_header == GRID_KEYS + ["market_id", "market_name", "runs"] +
            [f"{s}_{w}" for s in STATISTICS for w in ("mean", "std")],
            f"grid: aggregate.csv header {agg_header}")
    c.check(len(agg) == 4, f"grid: aggregate.csv has {len(agg)} rows")
    for k, row in enumerate(agg):
        members = rows[2 * k:2 * k + 2]
        c.check((row[GRID_KEYS[0]], row[GRID_KEYS[1]], row["runs"]) == (*GRID_POINTS[k], "2"),
                f"grid: aggregate.csv row {k}: {row}")
        for stat in STATISTICS:
            a, b = (float(m[stat]) for m in members)
            mean = (a + b) / 2
            std = math.sqrt(((a - mean) ** 2 + (b - mean) ** 2) / 1)
            c.check(float(row[f"{stat}_mean"]) == mean and float(row[f"{stat}_std"]) == std,
                    f"grid: aggregate.csv point {k} {stat}: {row[f'{stat}_mean']} ± "
                    f"{row[f'{stat}_std']}, expected {mean!r} ± {std!r}")
    with open(os.path.join(out, "summary.json")) as f:
        runs = json.load(f)["runs"]
    c.check(runs[5]["point"] == {"FCNAgents.fundamentalWeight": 1.0,
                                 "FCNAgents.chartWeight": 0.0} and runs[5]["seed"] == 2,
            f"grid: summary.json run 5 {runs[5].get('point')}")

    # Again: nothing reruns. Seeds 1-3: only seed 3 of each point.
    mtime = lambda name: os.stat(os.path.join(out, "runs", name, "steps.csv")).st_mtime_ns
    before = {name: mtime(name) for name in names}
    with open(os.path.join(out, "summary.csv")) as f:
        summary_before = f.read()
    again = c.pams(*cmd)
    with open(os.path.join(out, "summary.csv")) as f:
        c.check(again.returncode == 0 and f.read() == summary_before,
                f"grid: second sweep exit {again.returncode} or a changed summary")
    extended = c.pams(*[("1-3" if a == "1-2" else a) for a in cmd])
    c.check(extended.returncode == 0 and "4 runs (8 done before)" in extended.stderr,
            f"grid: seeds 1-3: exit {extended.returncode}: {extended.stderr[-300:]!r}")
    c.check(before == {name: mtime(name) for name in names}, "grid: completed runs reran")
    c.check(len(completed(out)) == 12, f"grid: runs after 1-3 {runs_in(out)}")
    _, rows = read_summary(os.path.join(out, "summary.csv"))
    c.check(len(rows) == 12 and rows[2]["seed"] == "3", "grid: summary after 1-3")

    # Another grid on the same DIR, and bad --grid values.
    proc = c.pams("sweep", CI2002, "--seeds", "1-2", "--grid",
                  "FCNAgents.fundamentalWeight=[0.5]", "--set", SHORT, "--out", out)
    c.check(proc.returncode == 2 and "another command" in proc.stderr and "grid" in proc.stderr,
            f"grid: another grid: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    proc = c.pams("sweep", CI2002, "--seeds", "1-2", "--set", SHORT, "--out", out)
    c.check(proc.returncode == 2 and "another command" in proc.stderr,
            f"grid: no grid on a grid's DIR: exit {proc.returncode}: {proc.stderr[-300:]!r}")
    c.check(len(completed(out)) == 12, "grid: a refused command deleted runs")
    bad_out = os.path.join(c.tmp, "grid-bad")
    for bad, message in (
            (["--grid", "FCNAgents.fundamentalWeight"], "--grid: expected KEY=JSON_ARRAY"),
            (["--grid", "FCNAgents.fundamentalWeight=0.5"], "--grid FCNAgents.fundamentalWeight"
                                                            ": expected a non-empty JSON array"),
            (["--grid", "FCNAgents.fundamentalWeight=[]"], "non-empty JSON array"),
            (["--grid", "FCNAgents.fundamentalWeight=[0.5,"], "--grid FCNAgents.fundamentalWeight"),
            (["--grid", "FCNAgents.fundamentalWeight=[1, 1]"], "the value 1 is given twice"),
            (["--grid", "FCNAgents.chartWeight=[1]", "--grid", "FCNAgents.chartWeight=[2]"],
             "the key is given twice"),
            (["--grid", "simulation.sessions[1].iterationSteps=[10]"], "also given to --set"),
            (["--grid", "Nope.x=[1, 2]"], "--grid point 0 (Nope.x=1)"),
            (["--grid", "FCNAgents.timeWindowSize=[[100, 200], [100]]"],
             "--grid point 1 (FCNAgents.timeWindowSize=[100])")):
        proc = c.pams("sweep", CI2002, "--seeds", "1-2", "--set", SHORT, *bad, "--out", bad_out)
        c.check(proc.returncode == 2 and message in proc.stderr,
                f"grid: {bad}: exit {proc.returncode}: {proc.stderr[-300:]!r}")
        c.check(runs_in(bad_out) == [], f"grid: {bad} left runs {runs_in(bad_out)}")
    c.part("grid", failures)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--test-agents", required=True)
    args = p.parse_args()
    c = Checker(args)
    start = time.monotonic()
    basic(c)
    refused(c)
    failed(c)
    extend(c)
    killed(c)
    forward(c)
    interrupt(c)
    grid(c)
    print(f"{'ok' if not c.failures else 'FAILED'}: sweep checks "
          f"({time.monotonic() - start:.1f} s)")
    sys.exit(1 if c.failures else 0)


if __name__ == "__main__":
    scratch.run(main)
