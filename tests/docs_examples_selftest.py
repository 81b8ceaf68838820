#!/usr/bin/env python3
"""tests/docs_examples_test.py on a fixture (tests/docs_examples/fixture.md)
whose blocks say what must become of them (an `<!-- expect: ok|fail|file|skip
-->` comment before each): the blocks that must fail are reported as failed,
by file and line, the others pass, are written or skipped, the counts are
right and the exit status is 1. A harness that passed everything would pass
the documentation's own examples too; this shows that it does not.

Usage: docs_examples_selftest.py --pams BIN --python PY [--build-dir DIR]
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "docs_examples", "fixture.md")


def expectations():
    """{line of the block's opening fence: ok|fail|file|skip}."""
    expected = {}
    pending = None
    with open(FIXTURE, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        m = re.match(r"<!-- expect: (\w+)", line)
        if m:
            pending = m.group(1)
        elif line.startswith("```") and line.strip() != "```":
            if pending:
                expected[number] = pending
            pending = None
    return expected


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--python", required=True)
    p.add_argument("--build-dir")
    args = p.parse_args()
    command = [sys.executable, os.path.join(HERE, "docs_examples_test.py"),
               "--pams", args.pams, "--python", args.python, "--only", FIXTURE]
    if args.build_dir:
        command += ["--build-dir", args.build_dir]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    print(out)
    name = os.path.relpath(FIXTURE, os.path.dirname(HERE))
    problems = []
    if proc.returncode != 1:
        problems.append(f"exit status {proc.returncode}, expected 1")
    expected = expectations()
    # A continue group is reported at its last block; the fixture's first
    # "ok" block is the head of such a group.
    reported = {}
    for m in re.finditer(rf"^\s*(ok|skip|file)\s+{re.escape(name)}:(\d+)", out, re.M):
        reported[int(m.group(2))] = m.group(1)
    for m in re.finditer(rf"^FAILED {re.escape(name)}:(\d+)", out, re.M):
        reported[int(m.group(1))] = "fail"
    heads = [line for line, what in expected.items() if what == "ok" and line not in reported]
    for line, what in sorted(expected.items()):
        got = reported.get(line)
        if got is None and line in heads[:1]:
            continue
        if got != what:
            problems.append(f"{name}:{line}: expected {what}, got {got or 'nothing'}")
    fails = sum(1 for w in expected.values() if w == "fail")
    summary = re.search(r"(\d+) example blocks in 1 files: (\d+) ran and passed .*?, "
                        r"(\d+) were written .*?, (\d+) skipped, (\d+) failed", out)
    want = (len(expected), sum(1 for w in expected.values() if w == "ok"),
            sum(1 for w in expected.values() if w == "file"),
            sum(1 for w in expected.values() if w == "skip"), fails)
    if not summary or tuple(int(g) for g in summary.groups()) != want:
        problems.append(f"summary {summary.group(0) if summary else 'missing'}; expected "
                        f"{want[0]} blocks, {want[1]} passed, {want[2]} files, "
                        f"{want[3]} skipped, {want[4]} failed")
    for problem in problems:
        print(f"SELFTEST: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
