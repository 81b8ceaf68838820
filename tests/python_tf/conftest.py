"""pytest setup for the TensorFlow runner's tests: they run in .venv-tf
(TensorFlow's venv), which finds pams_cpp through PAMS_CPP_SITE (the
site-packages of .venv-py, tests/CMakeLists.txt sets it): a directory that
holds only a link to the package is put first on sys.path, so that nothing
else of .venv-py (its numpy, pandas) shadows .venv-tf's."""
import os
import sys
import tempfile

_site = os.environ.get("PAMS_CPP_SITE")
if _site:
    _dir = tempfile.mkdtemp(prefix="pams_cpp-")
    os.symlink(os.path.join(_site, "pams_cpp"), os.path.join(_dir, "pams_cpp"))
    sys.path.insert(0, _dir)
    # The runs of tf_runs.py in other processes find it the same way.
    os.environ["PYTHONPATH"] = _dir + os.pathsep + os.environ.get("PYTHONPATH", "")
