"""Runs PAMS's own test suite on pams_cpp and on PAMS 0.3.0 and prints both
pass counts (`make pams-suite PAMS_SRC=/path/to/pams`).

PAMS's tests are PAMS's: nothing of them is in this repository. Give the
path of a checkout of PAMS's repository at its 0.3.0 test suite (branch
`masanori/prallel-1`, whose tests/ and samples/ are 0.3.0's). Its tests/
and samples/ are copied to a temporary directory (so that the checkout's
own pams/ package is not imported), the branch's old runner names
`*AgentParallelRuner` are renamed to 0.3.0's `*AgentParallelRunner`, and
pytest runs them twice in .venv-py: with the plugin pams_cpp_as_pams
(scripts/pams_suite/, which calls pams_cpp.install_as_pams() before
anything imports pams) and without it (PAMS 0.3.0, installed beside
pams_cpp). PAMS's numerics are the reference ones (the reference BLAS, as
tests/CMakeLists.txt sets them for the Python tests).

Usage: pams_suite.py PAMS_CHECKOUT [--only pams_cpp|pams] [pytest args...]
Exit status: 0 when pams_cpp passes every test PAMS 0.3.0 passes except
those docs/python.md lists, 1 otherwise, 2 for a bad checkout.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = os.path.join(ROOT, ".venv-py", "bin", "python")
FETCH = """PAMS's test suite is not part of this repository; fetch it, e.g.:

  git clone --branch masanori/prallel-1 https://github.com/masanorihirano/pams /tmp/pams-src

(branch masanori/prallel-1: PAMS's tests/ and samples/ at its 0.3.0 tree), then

  make pams-suite PAMS_SRC=/tmp/pams-src
"""
REFERENCE_ENV = {
    "NPY_DISABLE_CPU_FEATURES": "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL",
    "LD_LIBRARY_PATH": "/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack",
}
# The tests docs/python.md lists as differing on pams_cpp ("PAMS's test
# suite"), with the reason there: none (pams_cpp passes every test PAMS
# 0.3.0 passes).
EXPECTED_DIFFERENCES: tuple = ()


def copy_suite(checkout: str, into: str) -> None:
    """PAMS's tests/ and samples/, with 0.3.0's runner names."""
    for part in ("tests", "samples"):
        shutil.copytree(os.path.join(checkout, part), os.path.join(into, part),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for folder, _, files in os.walk(into):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            renamed = re.sub(r"AgentParallelRuner\b", "AgentParallelRunner", text)
            if renamed != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(renamed)


def run(suite: str, on_pams_cpp: bool, extra: list) -> dict:
    """{test id: passed?} of one run of the suite."""
    env = dict(os.environ, **REFERENCE_ENV)
    env.pop("PAMS_CPP_AS_PAMS", None)
    args = [PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", "--tb=no",
            "-W", "ignore", *extra, "tests"]
    if on_pams_cpp:
        env["PYTHONPATH"] = os.path.join(ROOT, "scripts", "pams_suite")
        args[3:3] = ["-p", "pams_cpp_as_pams"]
    out = subprocess.run(args, cwd=suite, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True).stdout
    results = {}
    for line in out.splitlines():
        m = re.match(r"(PASSED|FAILED|ERROR) (\S+)", line)
        if m:
            results[m.group(2)] = m.group(1) == "PASSED"
    if not results:
        sys.stdout.write(out[-3000:])
    return results


def main() -> int:
    args = sys.argv[1:]
    if not args or not os.path.isdir(os.path.join(args[0], "tests", "pams")):
        if args and args[0]:
            print(f"{args[0]} is not a checkout of PAMS's repository (no tests/pams in it).\n")
        print(FETCH)
        return 2
    checkout, extra = args[0], args[1:]
    only = None
    if extra[:1] == ["--only"] and len(extra) > 1:
        only, extra = extra[1], extra[2:]
    with tempfile.TemporaryDirectory(prefix="pams-suite-") as suite:
        copy_suite(checkout, suite)
        ours = run(suite, True, extra) if only in (None, "pams_cpp") else {}
        theirs = run(suite, False, extra) if only in (None, "pams") else {}
    for label, results in (("pams_cpp", ours), ("PAMS 0.3.0", theirs)):
        if results:
            passed = sum(results.values())
            print(f"{label:>10}: {passed} of {len(results)} tests passed")
    if not ours or not theirs:
        return 0 if ours or theirs else 1
    worse = sorted(t for t, ok in ours.items() if not ok and theirs.get(t))
    unexplained = [t for t in worse if t not in EXPECTED_DIFFERENCES]
    print(f"passing on PAMS 0.3.0 but not on pams_cpp: {len(worse)}"
          f" ({len(worse) - len(unexplained)} listed in docs/python.md)")
    for test in worse:
        print(("  listed:   " if test in EXPECTED_DIFFERENCES else "  UNLISTED: ") + test)
    better = sorted(t for t, ok in ours.items() if ok and not theirs.get(t, True))
    if better:
        print(f"passing on pams_cpp but not on PAMS 0.3.0: {len(better)}")
        for test in better:
            print("  " + test)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
