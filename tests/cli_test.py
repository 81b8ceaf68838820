#!/usr/bin/env python3
"""The pams command line: exit statuses and messages for bad flags, files and
plugins (status 2, a message naming what is wrong, nothing written to a
crash), the seed printed when none is given, and that the output is the same
when the printed seed is passed back.

Also: pams validate listing every problem, --events-csv, --quiet, the
progress bar on a terminal, and an interrupted run's files.

Usage: cli_test.py --pams BIN --plugin LIB
"""
import argparse
import csv
import json
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CI2002 = os.path.join(ROOT, "samples", "CI2002", "config.json")


def run(args, *cmd):
    return subprocess.run([args.pams, *cmd], capture_output=True, text=True, timeout=120)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--plugin", required=True)
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="pams-cli-")
    failures = []

    def expect(name, proc, status, pattern):
        if proc.returncode != status or not re.search(pattern, proc.stderr + proc.stdout):
            failures.append(f"{name}: status {proc.returncode} (expected {status}), "
                            f"output {proc.stderr.strip()[-300:]!r} (expected /{pattern}/)")

    expect("no subcommand", run(args), 2, "subcommand is required")
    expect("unknown subcommand", run(args, "fly"), 2, "fly")
    expect("help", run(args, "--help"), 0, "run")
    expect("run help", run(args, "run", "--help"), 0, "--steps-csv")
    expect("missing config", run(args, "run"), 2, "config is required")
    expect("no such config", run(args, "run", "/nonexistent.json"), 2,
           r"error: /nonexistent.json: cannot open config file")
    expect("bad seed", run(args, "run", CI2002, "--seed", "12x"), 2,
           "the seed must be an integer")
    expect("unknown flag", run(args, "run", CI2002, "--sed", "1"), 2, "--sed")
    expect("missing plugin", run(args, "run", CI2002, "--plugin", "/nonexistent.so"), 2,
           r"error: /nonexistent.so: cannot load plugin")
    expect("not a plugin", run(args, "run", CI2002, "--plugin", CI2002), 2,
           r"cannot load plugin")
    expect("unwritable csv",
           run(args, "run", CI2002, "--seed", "1", "--steps-csv", "/nonexistent/dir/s.csv"),
           2, r"error: /nonexistent/dir/s.csv: cannot open for writing")
    expect("plugin class needs plugin",
           run(args, "run", os.path.join(ROOT, "samples", "user_class", "config.json"),
               "--seed", "1"), 2, r'unknown agent class "UserDefinedFCNAgent"')

    # Without --seed: a seed is printed, and passing it back repeats the run.
    first = run(args, "run", CI2002)
    m = re.search(r"# SEED (\d+)", first.stderr)
    if first.returncode != 0 or not m:
        failures.append(f"no seed printed: {first.stderr[-300:]!r}")
    else:
        again = run(args, "run", CI2002, "--seed", m.group(1))
        strip = lambda s: [l for l in s.splitlines() if not l.startswith("# ")]
        if strip(first.stdout) != strip(again.stdout):
            failures.append("the printed seed does not repeat the run")
    # Big and negative seeds are Python ints too.
    for seed in ("123456789012345678901234567890", "-5"):
        proc = run(args, "run", CI2002, "--seed", seed)
        if proc.returncode != 0:
            failures.append(f"seed {seed}: status {proc.returncode}")
    # CSV files are complete even though stdout is the print logger.
    steps = os.path.join(tmp, "s.csv")
    proc = run(args, "run", CI2002, "--seed", "3", "--steps-csv", steps)
    with open(steps) as f:
        rows = f.read().splitlines()
    if proc.returncode != 0 or len(rows) != 601:
        failures.append(f"steps csv has {len(rows)} lines, expected 601")

    check_validate(args, tmp, failures)
    check_events_csv(args, tmp, failures)
    check_quiet_and_progress(args, tmp, failures)

    for f in failures:
        print("FAIL", f)
    print(f"{'ok' if not failures else 'FAILED'}: cli checks")
    sys.exit(1 if failures else 0)


BAD_MULTI = {
    "simulation": {
        "markets": ["Market", "Missing"], "agents": ["FCNAgents", "Other"],
        "sessions": [
            {"sessionName": 0, "iterationSteps": -5, "withOrderPlacement": True,
             "withOrderExecution": True, "withPrint": True},
            {"sessionName": 1, "iterationSteps": 10, "withOrderPlacement": True,
             "withOrderExecution": True, "withPrint": True, "maxNormalOrders": 1,
             "events": ["Nope"]}]},
    "Market": {"class": "Market", "tickSize": -1, "marketPrice": 300.0},
    "FCNAgents": {"class": "FCNAgent", "numAgents": 10, "markets": ["Market"],
                  "assetVolume": 50, "cashAmount": 10000,
                  "fundamentalWeight": {"expon": [1.0]}, "chartWeight": {"expon": [0.0]},
                  "noiseWeight": {"expon": [1.0]}, "noiseScale": 0.001,
                  "timeWindowSize": [100, 200], "orderMargin": [0.0, 0.1]},
    "Other": {"class": "NoSuchAgent", "markets": ["Market"]},
}


def check_validate(args, tmp, failures):
    """pams validate: a valid config passes; a config with five problems
    lists all five, each with its key path."""
    proc = run(args, "validate", CI2002)
    if proc.returncode != 0 or "valid (1 market, 100 agents" not in proc.stdout:
        failures.append(f"validate CI2002: {proc.returncode} {proc.stdout!r} {proc.stderr!r}")
    bad = os.path.join(tmp, "bad_multi.json")
    with open(bad, "w") as f:
        json.dump(BAD_MULTI, f)
    proc = run(args, "validate", bad)
    expected = [
        "error: Missing: is listed in simulation.markets but there is no entry",
        'error: Other.class: unknown agent class "NoSuchAgent"',
        "error: simulation.sessions[0].iterationSteps: must be >= 0, got -5",
        'error: simulation.sessions[1].events[0]: no entry is named "Nope"',
        "error: Market.tickSize: tick size must be a positive number, got -1",
        "5 problems found",
    ]
    missing = [e for e in expected if e not in proc.stderr]
    if proc.returncode != 2 or missing:
        failures.append(f"validate bad_multi: status {proc.returncode}, missing {missing}, "
                        f"stderr {proc.stderr!r}")
    # The same config under pams run stops at the first problem, status 2.
    proc = run(args, "run", bad, "--seed", "1")
    if proc.returncode != 2 or proc.stderr.count("error:") != 1:
        failures.append(f"run bad_multi: {proc.returncode} {proc.stderr!r}")
    proc = run(args, "validate", "/nonexistent.json")
    if proc.returncode != 2 or "cannot open config file" not in proc.stderr:
        failures.append(f"validate missing file: {proc.returncode} {proc.stderr!r}")


def check_events_csv(args, tmp, failures):
    """--events-csv agrees with --steps-csv: one order row per order counted
    by the markets, executions adding up to the executed volume."""
    steps, events = os.path.join(tmp, "es.csv"), os.path.join(tmp, "ee.csv")
    proc = run(args, "run", os.path.join(ROOT, "samples", "fat_finger", "config.json"),
               "--seed", "2", "--steps-csv", steps, "--events-csv", events)
    if proc.returncode != 0:
        failures.append(f"events csv run: {proc.stderr!r}")
        return
    with open(steps) as f:
        srows = list(csv.DictReader(f))
    with open(events) as f:
        erows = list(csv.DictReader(f))
    kinds = {k: [r for r in erows if r["kind"] == k]
             for k in ("order", "cancel", "execution", "expiration")}
    n_orders = sum(int(r["n_buy_orders"]) + int(r["n_sell_orders"]) for r in srows)
    volume = sum(int(r["executed_volume"]) for r in srows)
    if len(kinds["order"]) != n_orders:
        failures.append(f"events csv: {len(kinds['order'])} order rows, markets count {n_orders}")
    if sum(int(r["volume"]) for r in kinds["execution"]) != volume:
        failures.append("events csv: executed volumes do not add up")
    if not kinds["expiration"] or len(erows) != sum(len(v) for v in kinds.values()):
        failures.append("events csv: no expirations, or an unknown kind")
    ids = [int(r["order_id"]) for r in kinds["order"]]
    if ids != sorted(ids) or len(set(ids)) != len(ids):
        failures.append("events csv: order ids not unique and increasing")


def check_quiet_and_progress(args, tmp, failures):
    """--quiet prints no step lines; on a terminal, a long run shows a
    progress bar on stderr; an interrupted run leaves complete CSV rows."""
    proc = run(args, "run", CI2002, "--seed", "1", "--quiet")
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != 2 or not all(l.startswith("# ") for l in lines):
        failures.append(f"--quiet printed {proc.stdout[:200]!r}")
    long_run = ["--set", "simulation.sessions[1].iterationSteps=100000000"]
    events = os.path.join(tmp, "interrupted.csv")
    master, slave = pty.openpty()
    child = subprocess.Popen([args.pams, "run", CI2002, "--seed", "1", *long_run,
                              "--events-csv", events],
                             stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    time.sleep(2.5)
    child.send_signal(signal.SIGINT)
    output = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    status = child.wait(timeout=30)
    os.close(master)
    text = output.decode(errors="replace")
    if not re.search(r"\] +\d+% session 1  \d+/100000100 steps +[\d.]+[kM]? steps/s  ETA", text):
        failures.append(f"no progress bar on a terminal: {text[-300:]!r}")
    if status != 130 or "interrupted" not in text:
        failures.append(f"interrupted run: status {status}, {text[-200:]!r}")
    with open(events, "rb") as f:
        data = f.read()
    rows = data.split(b"\n")
    if not data.endswith(b"\n") or len(rows) < 1000 or any(
            r.count(b",") != 12 for r in rows[:-1]):
        failures.append("the interrupted run's events csv is not complete rows")
    # --plot: a PNG of the default size, from a temporary steps file.
    chart = os.path.join(tmp, "chart.png")
    proc = run(args, "run", CI2002, "--seed", "1", "--quiet", "--plot", chart)
    with open(chart, "rb") as f:
        head = f.read(24)
    if proc.returncode != 0 or head[:8] != b"\x89PNG\r\n\x1a\n" or \
            struct.unpack(">II", head[16:24]) != (1200, 800):
        failures.append(f"--plot: status {proc.returncode}, header {head!r}")
    proc = run(args, "run", CI2002, "--seed", "1", "--plot", os.path.join(tmp, "c.gif"))
    if proc.returncode != 2 or "must end in .png or .svg" not in proc.stderr or \
            "# EXECUTION TIME" in proc.stdout:
        failures.append(f"--plot with a bad name did not fail before the run: {proc.stderr!r}")
    # Not a terminal: no bar.
    proc = subprocess.run([args.pams, "run", CI2002, "--seed", "1",
                           "--set", "simulation.sessions[1].iterationSteps=1500000"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if "steps/s" in proc.stderr:
        failures.append("a progress bar was drawn on a pipe")


if __name__ == "__main__":
    main()
