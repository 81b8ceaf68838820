"""pytest setup for pams_cpp's tests (run in .venv-py, which also holds the
reference PAMS): PAMS's numerics must be the reference ones (Debian's numpy
on the reference BLAS/LAPACK, numpy's AVX-512 exp off) for its results to
be the ones pams-cpp reproduces; tests/CMakeLists.txt sets the environment,
and this checks it before anything imports numpy."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.append(os.path.join(ROOT, "tests", "differential"))  # pams_reference (check_env)
sys.path.insert(0, os.path.join(ROOT, "tests"))   # pams_samples

REFERENCE_ENV = {
    "NPY_DISABLE_CPU_FEATURES": "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL",
    "LD_LIBRARY_PATH": "/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack",
}


def pytest_configure(config):
    from pams_reference import check_env

    check_env()


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _no_kept_workers_between_tests():
    """Worker processes are kept after a run for later runs of this process
    (workerIdleTimeout): each test ends its own, so that tests that count a
    run's workers (or look for leftovers) see only theirs."""
    yield
    import pams_cpp.runners

    pams_cpp.runners.shutdown_workers()


def processes_tagged(tag):
    """The pids of processes whose environment has PAMS_TEST_TAG=tag."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"PAMS_TEST_TAG={tag}".encode() in f.read().split(b"\0"):
                    found.append(int(pid))
        except (OSError, ValueError):
            pass
    return found
