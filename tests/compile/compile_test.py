#!/usr/bin/env python3
"""Compiles tests/compile/order_args.cc once per case with the project's
compiler: case 0 (orders built with named fields) must compile, and every
other case (price and volume swapped, positionally, in unnamed braces, or by
names out of order; a price as a market order's volume) must be refused.

Usage: compile_test.py --cxx COMPILER --include DIR
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = 5


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cxx", required=True)
    p.add_argument("--include", required=True)
    args = p.parse_args()
    failures = []
    for case in range(CASES):
        proc = subprocess.run(
            [args.cxx, "-std=c++20", "-fsyntax-only", "-Werror", f"-I{args.include}",
             f"-DPAMS_CASE={case}", os.path.join(HERE, "order_args.cc")],
            capture_output=True, text=True)
        compiled = proc.returncode == 0
        if compiled != (case == 0):
            failures.append(f"case {case}: {'compiled' if compiled else 'refused'}"
                            f"{'' if compiled else ': ' + proc.stderr[-400:]}")
    for f in failures:
        print("FAIL", f)
    print(f"{CASES} cases, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
