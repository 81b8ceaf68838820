#!/usr/bin/env python3
"""--events-csv overhead: CI2002 with 10^6 steps in its second session, run
with and without --events-csv (every order, cancel, execution and
expiration, ~1.6 million rows), interleaved, five runs each. Prints the
median EXECUTION TIME of both and the overhead in percent (target: a few
percent; the rows are formatted and written by a writer thread, so the
overhead depends on a second core being free).

Usage: events_csv_bench.py --pams BIN [--out DIR]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CI2002 = os.path.join(ROOT, "samples", "CI2002", "config.json")
STEPS = 1_000_000


def run(pams, *extra):
    out = subprocess.run([pams, "run", CI2002, "--seed", "1", "--quiet",
                          "--set", f"simulation.sessions[1].iterationSteps={STEPS}", *extra],
                         capture_output=True, text=True, check=True)
    return float(re.search(r"^# EXECUTION TIME (\S+)$", out.stdout, re.M).group(1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--out", default=None, help="directory for the CSV (default: a temp dir)")
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    out_dir = args.out or tempfile.mkdtemp(prefix="pams-events-bench-")
    os.makedirs(out_dir, exist_ok=True)
    events = os.path.join(out_dir, "events.csv")
    plain, logged = [], []
    for _ in range(args.runs):
        plain.append(run(args.pams))
        logged.append(run(args.pams, "--events-csv", events))
    with open(events, "rb") as f:
        rows = sum(1 for _ in f) - 1
    size = os.path.getsize(events)
    os.remove(events)
    a, b = statistics.median(plain), statistics.median(logged)
    print(f"CI2002, {STEPS + 100} steps, medians of {args.runs} runs:")
    print(f"  without --events-csv  {a:.3f} s")
    print(f"  with --events-csv     {b:.3f} s  ({rows} rows, {size / 1e6:.0f} MB)")
    print(f"  overhead {100 * (b - a) / a:+.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
