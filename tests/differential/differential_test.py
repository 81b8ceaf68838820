#!/usr/bin/env python3
"""Differential test: the reference PAMS and pams-cpp run the same config with
the same seeds; stdout (minus the timing lines), the steps CSV and the agents
CSV must be identical byte for byte, i.e. every double bit for bit.

The reference runs in the pinned environment made by
scripts/setup-reference.sh, with Debian's numpy/scipy on the reference
BLAS/LAPACK and numpy's AVX-512 exp disabled; tests/differential/pams_reference.py
--check-env fails loudly when that is not what is loaded.

Usage: differential_test.py --pams BIN --plugin LIB --reference-python PY
                            --config CFG --seeds 1,2,3 [--keep DIR]
"""
import argparse
import os
import subprocess
import sys

# tests/scratch.py, one folder up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import scratch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The reference side: PAMS run by this folder's pams_reference.py (with
# pams_sample_classes.py, the samples' user classes for PAMS). PYTHONPATH is
# this folder alone, so that nothing of the caller's path reaches PAMS.
REFERENCE_SCRIPT = os.path.join(HERE, "pams_reference.py")
REFERENCE_PYTHONPATH = HERE
REFERENCE_ENV = {
    "NPY_DISABLE_CPU_FEATURES": "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL",
    "LD_LIBRARY_PATH": "/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack",
    "PYTHONWARNINGS": "ignore",
}


def run(cmd, env=None):
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(
            f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-3000:]}"
        )
    return proc.stdout


def without_timings(text):
    return "".join(
        line for line in text.splitlines(keepends=True) if not line.startswith("# ")
    )


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}:\n  PAMS:     {x}\n  pams-cpp: {y}"
    return f"lengths differ: PAMS {len(la)} lines, pams-cpp {len(lb)} lines"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--reference-python", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--keep")
    args = p.parse_args()
    if not os.path.exists(args.reference_python):
        sys.exit(
            f"reference Python {args.reference_python} is missing: run "
            "`make test` (it runs scripts/setup-reference.sh) or that script"
        )
    env = dict(os.environ, **REFERENCE_ENV)
    env["PYTHONPATH"] = REFERENCE_PYTHONPATH
    workdir = args.keep or scratch.folder("pams-diff-")
    os.makedirs(workdir, exist_ok=True)
    failures = 0
    for seed in args.seeds.split(","):
        files = {}
        for side in ("ref", "cpp"):
            files[side] = {
                "steps": os.path.join(workdir, f"{side}-{seed}-steps.csv"),
                "agents": os.path.join(workdir, f"{side}-{seed}-agents.csv"),
            }
        ref_out = run(
            [args.reference_python, REFERENCE_SCRIPT,
             args.config, "--seed", seed, "--check-env",
             "--steps-csv", files["ref"]["steps"], "--agents-csv", files["ref"]["agents"]],
            env=env,
        )
        cpp_out = run(
            [args.pams, "run", args.config, "--seed", seed, "--plugin", args.plugin,
             "--steps-csv", files["cpp"]["steps"], "--agents-csv", files["cpp"]["agents"]]
        )
        pairs = [("stdout", without_timings(ref_out), without_timings(cpp_out))]
        for kind in ("steps", "agents"):
            with open(files["ref"][kind], encoding="utf-8") as f:
                ref = f.read()
            with open(files["cpp"][kind], encoding="utf-8") as f:
                cpp = f.read()
            pairs.append((kind + " csv", ref, cpp))
        for name, ref, cpp in pairs:
            if ref != cpp:
                failures += 1
                print(f"seed {seed}: {name} differs, {first_difference(ref, cpp)}")
            elif not ref.strip():
                failures += 1
                print(f"seed {seed}: {name} is empty")
        if not failures:
            rows = pairs[1][1].count("\n") - 1
            print(f"seed {seed}: identical ({rows} step rows, "
                  f"{pairs[2][1].count(chr(10)) - 1} agents)")
    if failures:
        if args.keep:
            print(f"files kept in {workdir}")
        sys.exit(1)


if __name__ == "__main__":
    scratch.run(main)
