#!/usr/bin/env python3
"""The pams command line: exit statuses and messages for bad flags, files and
plugins (status 2, a message naming what is wrong, nothing written to a
crash), the seed printed when none is given, and that the output is the same
when the printed seed is passed back.

Usage: cli_test.py --pams BIN --plugin LIB
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

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

    for f in failures:
        print("FAIL", f)
    print(f"{'ok' if not failures else 'FAILED'}: cli checks")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
