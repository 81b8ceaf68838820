#!/usr/bin/env bash
# Creates .venv-torch with PyTorch (PyPI's wheel, which brings its CUDA
# libraries: about 5 GB on disk), numpy (without which importing torch
# warns), cloudpickle and pytest, where tests/python_torch runs pams_cpp's
# TorchAgentParallelRunner with agents that call a PyTorch model. A venv of
# its own, as .venv-jax: nothing of .venv-py's is seen there. Pinned.
# PAMS_SKIP_TORCH_TESTS=1 skips it (and those tests).
set -euo pipefail
TORCH_VERSION=2.15.0
if [ "${PAMS_SKIP_TORCH_TESTS:-0}" = 1 ]; then
  echo "PyTorch not installed: PAMS_SKIP_TORCH_TESTS=1"
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-torch"
if [ -x "$venv/bin/python" ] &&
   [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null)" = "$TORCH_VERSION" ] &&
   "$venv/bin/python" -c "import cloudpickle, numpy, pytest" 2>/dev/null; then
  exit 0
fi
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
echo "Installing torch==$TORCH_VERSION (with its CUDA libraries, about 3 GB to download), numpy,"
echo "cloudpickle and pytest into .venv-torch"
"$venv/bin/pip" install --quiet --disable-pip-version-check "torch==$TORCH_VERSION" \
  numpy "cloudpickle>=2.0" pytest
