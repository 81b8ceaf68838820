#!/usr/bin/env bash
# Creates .venv-py and installs pams_cpp into it from this checkout
# (`pip install .`: scikit-build-core builds the engine and its extension
# with CMake). The venv is Debian's python3 seeing Debian's numpy and scipy
# (--system-site-packages), with the reference PAMS (pams==0.3.0) beside
# pams_cpp, so that the Python tests compare the two in one interpreter on
# the reference BLAS, as the differential tests do. Each call reinstalls
# pams_cpp; the build directory (build-python/<wheel tag>-<interpreter
# key>, python/backend/pams_build_backend.py) is kept, so only what changed
# compiles again.
set -euo pipefail
PAMS_VERSION=0.3.0
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-py"
pip=("$venv/bin/pip" --quiet --disable-pip-version-check)
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
if ! "$venv/bin/python" -c "import pams, sys; sys.exit(pams.__version__ != '$PAMS_VERSION')" 2>/dev/null; then
  "${pip[@]}" install --no-deps "pams==$PAMS_VERSION"
fi
# Debian's numpy stays, whatever a user installs later: `.venv-py/bin/pip
# install tensorflow-cpu` (what a failing `import tensorflow` invites)
# would replace it with numpy 2.x, which Debian's scipy, PAMS 0.3.0 and
# every module compiled for numpy 1.x cannot import. pip reads the venv's
# pip.conf, whose constraint pins numpy: pip then picks the newest release
# that runs on this numpy (tensorflow-cpu 2.17 here) or says why none does.
# Keras users who want the newest TensorFlow use `make keras` (.venv-keras).
numpy_version="$("$venv/bin/python" -c 'import numpy; print(numpy.__version__)')"
cat > "$venv/constraints.txt" <<EOF_CONSTRAINTS
# Written by scripts/setup-python.sh: Debian's numpy, which PAMS 0.3.0's
# results and Debian's scipy need (see docs/python.md, "TensorFlow").
numpy==$numpy_version
EOF_CONSTRAINTS
cat > "$venv/pip.conf" <<EOF_PIP
[install]
constraint = $venv/constraints.txt
EOF_PIP
# The build tools live in the venv (no build isolation), so that the CMake
# build directory, which records where nanobind is, stays valid between
# installs.
"${pip[@]}" install "scikit-build-core>=0.10" "nanobind>=2.0" pytest tqdm "cloudpickle>=2.0"
# Notebooks for tests/python/test_notebook.py: a Jupyter kernel run by
# nbclient, with ipywidgets for tqdm's widget.
"${pip[@]}" install ipykernel nbclient nbformat ipywidgets
# The tables' consumers the tests use, and dask.distributed for
# pams_cpp.sweep on a Dask cluster. Debian's numpy stays (PAMS's results
# depend on it): pandas 2.x and pyarrow < 21 still run on numpy 1.x.
"${pip[@]}" install "pandas>=2,<3" "pyarrow>=14,<21" \
  "dask[distributed]>=2024.1"
# ccache, where installed (CMakeLists.txt uses it by itself): with the
# checkout as its base directory, objects compiled in another checkout or
# build folder are found in the cache too.
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
fi
"${pip[@]}" install --no-build-isolation "$root"
"$venv/bin/python" -c "import pams_cpp; print('pams_cpp', pams_cpp.__version__, 'in .venv-py')"
