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
# pip's resolver would report PAMS 0.3.0's numpy>=1.25.1 as a conflict at
# every install into this venv (in a line starting "ERROR:"): the mismatch
# is intended (see below), so installs here do not check it
# (--no-warn-conflicts), and the line printed when PAMS is installed says why.
pip=("$venv/bin/pip" --quiet --disable-pip-version-check)
install=("${pip[@]}" install --no-warn-conflicts)
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
if ! "$venv/bin/python" -c "import pams, sys; sys.exit(pams.__version__ != '$PAMS_VERSION')" 2>/dev/null; then
  "${install[@]}" --no-deps "pams==$PAMS_VERSION"
  echo "pams $PAMS_VERSION in .venv-py runs on Debian's numpy $("$venv/bin/python" -c 'import numpy; print(numpy.__version__)'), below the numpy>=1.25.1 it lists, on purpose: PAMS's reference results need Debian's numpy and BLAS"
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
"${install[@]}" "scikit-build-core>=0.10" "nanobind>=2.0" pytest tqdm "cloudpickle>=2.0"
# Notebooks for tests/python/test_notebook.py: a Jupyter kernel run by
# nbclient, with ipywidgets for tqdm's widget.
"${install[@]}" ipykernel nbclient nbformat ipywidgets
# The tables' consumers the tests use, and dask.distributed for
# pams_cpp.sweep on a Dask cluster. Debian's numpy stays (PAMS's results
# depend on it): pandas 2.x and pyarrow < 21 still run on numpy 1.x.
"${install[@]}" "pandas>=2,<3" "pyarrow>=14,<21" \
  "dask[distributed]>=2024.1"
# ccache, where installed (CMakeLists.txt uses it by itself): with the
# checkout as its base directory, objects compiled in another checkout or
# build folder are found in the cache too.
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
fi
"${install[@]}" --no-build-isolation "$root"
"$venv/bin/python" -c "import pams_cpp; print('pams_cpp', pams_cpp.__version__, 'in .venv-py')"
