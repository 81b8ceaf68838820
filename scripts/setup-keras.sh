#!/usr/bin/env bash
# Creates .venv-keras: pams_cpp with the newest TensorFlow (tensorflow-cpu,
# numpy 2.x), for Keras users (`make keras`). It is a venv of its own, not
# .venv-py: .venv-py keeps Debian's numpy 1.x for the reference PAMS and
# the differential tests, which TensorFlow 2.18+ would replace. Each call
# reinstalls pams_cpp from this checkout.
set -euo pipefail
TF_VERSION=2.21.0
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-keras"
pip=("$venv/bin/pip" --quiet --disable-pip-version-check)
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('tensorflow-cpu') != '$TF_VERSION')" 2>/dev/null; then
  echo "Installing tensorflow-cpu==$TF_VERSION into .venv-keras (a few hundred MB)"
  "${pip[@]}" install "tensorflow-cpu==$TF_VERSION"
fi
"${pip[@]}" install "cloudpickle>=2.0" tqdm "scikit-build-core>=0.10" "nanobind>=2.0"
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
fi
"${pip[@]}" install --no-build-isolation "$root"
"$venv/bin/python" - <<'PY'
import numpy, tensorflow, pams_cpp
from pams_cpp.runners import TensorFlowAgentParallelRunner  # noqa: F401
print(f"pams_cpp {pams_cpp.__version__}, TensorFlow {tensorflow.__version__}, "
      f"numpy {numpy.__version__} in .venv-keras")
PY
