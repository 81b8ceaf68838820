"""pams_cpp._core exports its module init function alone (python/exports.map).

Its copies of C++ standard library functions must stay private: where the
extension was the first module of a process to load libstdc++.so.6, an
exported copy took the place of the library's own, and on a machine whose
libstdc++ was newer than the compiler's headers `import pams_cpp; import
torch` aborted ("free(): invalid pointer", found on Ubuntu 24.04 with g++ 13).
"""
import shutil
import subprocess
import sys

import pytest

import pams_cpp._core


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="an ELF check")
def test_the_extension_exports_only_its_init_function():
    nm = shutil.which("nm")
    assert nm is not None, "nm (binutils, which the compiler installs) is missing"
    listing = subprocess.run([nm, "-D", "--defined-only", pams_cpp._core.__file__],
                             capture_output=True, text=True, check=True).stdout
    assert [line.split()[-1] for line in listing.splitlines()] == ["PyInit__core"]
