#!/usr/bin/env python3
"""Runs a directory of pytest tests in another venv (.venv-tf with
TensorFlow, .venv-jax with JAX), where pams_cpp is the one installed in
.venv-py (--pams-python): a directory holding only a link to the package
goes first on PYTHONPATH, so that nothing else of .venv-py (its numpy)
shadows the venv's own. Exit status 77 (reported as skipped by ctest) only
when the --skip-env variable is 1; a missing venv otherwise fails."""
import argparse
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", required=True)
    parser.add_argument("--pams-python", required=True)
    parser.add_argument("--skip-env", required=True)
    parser.add_argument("--setup", required=True, help="the script that makes the venv")
    parser.add_argument("tests")
    args = parser.parse_args()
    if os.environ.get(args.skip_env) == "1":
        print(f"skipped: {args.skip_env}=1")
        sys.exit(77)
    python = os.path.join(args.venv, "bin", "python")
    if not os.path.exists(python):
        sys.exit(f"{python} is missing: {args.setup} makes it "
                 f"(or set {args.skip_env}=1 to skip these tests)")
    site = subprocess.run(
        [args.pams_python, "-c",
         "import os, pams_cpp; print(os.path.dirname(os.path.dirname(pams_cpp.__file__)))"],
        capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="pams_cpp-") as directory:
        os.symlink(os.path.join(site, "pams_cpp"), os.path.join(directory, "pams_cpp"))
        env = dict(os.environ)
        env["PYTHONPATH"] = directory + os.pathsep + env.get("PYTHONPATH", "")
        sys.exit(subprocess.call([python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                  args.tests], env=env))


if __name__ == "__main__":
    main()
