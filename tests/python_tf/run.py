#!/usr/bin/env python3
"""Runs tests/python_tf (pams_cpp's TensorFlow runner with Keras agents)
with pytest in .venv-tf, TensorFlow's venv, which finds the pams_cpp of
.venv-py (--pams-python) through a link (conftest.py). Exit status 77
(reported as skipped by ctest) only when PAMS_SKIP_TENSORFLOW_TESTS=1;
a missing TensorFlow otherwise fails."""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", required=True)
    parser.add_argument("--pams-python", required=True)
    args = parser.parse_args()
    if os.environ.get("PAMS_SKIP_TENSORFLOW_TESTS") == "1":
        print("TensorFlow tests skipped: PAMS_SKIP_TENSORFLOW_TESTS=1")
        sys.exit(77)
    python = os.path.join(args.venv, "bin", "python")
    if not os.path.exists(python):
        sys.exit(f"{python} is missing: scripts/setup-tensorflow.sh makes it "
                 "(or set PAMS_SKIP_TENSORFLOW_TESTS=1 to skip these tests)")
    site = subprocess.run(
        [args.pams_python, "-c",
         "import os, pams_cpp; print(os.path.dirname(os.path.dirname(pams_cpp.__file__)))"],
        capture_output=True, text=True, check=True).stdout.strip()
    env = dict(os.environ, PAMS_CPP_SITE=site)
    sys.exit(subprocess.call([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", HERE],
                             env=env))


if __name__ == "__main__":
    main()
