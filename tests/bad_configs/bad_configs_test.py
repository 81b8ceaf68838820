#!/usr/bin/env python3
"""Every config in this directory is bad in one way: `pams run` must refuse it
with exit status 2 and print, on stderr, "error: " followed by the message
in the .expected file beside it (which names the file or key path), with no
crash, no abort and no exception trace; `pams validate` must list the same
message.

Usage: bad_configs_test.py --pams BIN
"""
import argparse
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    args = p.parse_args()
    pams = os.path.abspath(args.pams)
    configs = sorted(glob.glob(os.path.join(HERE, "*.json")))
    failures = []
    for config in configs:
        name = os.path.basename(config)
        with open(config[: -len(".json")] + ".expected", encoding="utf-8") as f:
            expected = "error: " + f.read().strip()
        proc = subprocess.run([pams, "run", name, "--seed", "1"], cwd=HERE,
                              capture_output=True, text=True, errors="replace",
                              timeout=60)
        errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
        problems = []
        if proc.returncode != 2:
            problems.append(f"exit status {proc.returncode}, expected 2")
        if errors != [expected]:
            problems.append(f"stderr errors {errors!r}, expected [{expected!r}]")
        for bad in ("terminate called", "Aborted", "Segmentation", "what():"):
            if bad in proc.stderr:
                problems.append(f"stderr contains {bad!r}")
        # pams validate finds the same problem (among any others).
        check = subprocess.run([pams, "validate", name], cwd=HERE, capture_output=True,
                               text=True, errors="replace", timeout=60)
        if check.returncode != 2 or expected not in check.stderr.splitlines():
            problems.append(f"pams validate: status {check.returncode}, "
                            f"stderr {check.stderr[-300:]!r}")
        if problems:
            failures.append(f"{name}: " + "; ".join(problems))
    for f in failures:
        print(f)
    print(f"{len(configs) - len(failures)} of {len(configs)} bad configs refused as expected")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
