#!/usr/bin/env bash
# Creates .venv-tf with the TensorFlow CPU wheel, whose
# tensorflow/libtensorflow_cc.so.2 pams-cpp loads at run time (and whose
# Python builds the sample models: scripts/make_tf_model.py). Pinned.
# PAMS_SKIP_TENSORFLOW_TESTS=1 skips it (and the TensorFlow tests).
set -euo pipefail
TF_VERSION=2.21.0
if [ "${PAMS_SKIP_TENSORFLOW_TESTS:-0}" = 1 ]; then
  echo "TensorFlow not installed: PAMS_SKIP_TENSORFLOW_TESTS=1"
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-tf"
# Not `pip show | grep -q`: grep -q exits at the first match, pip dies of
# SIGPIPE and pipefail would call the installed venv missing.
if ! { [ -x "$venv/bin/python" ] &&
   [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("tensorflow-cpu"))' 2>/dev/null)" = "$TF_VERSION" ]; }; then
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  echo "Installing tensorflow-cpu==$TF_VERSION into .venv-tf (a few hundred MB)"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "tensorflow-cpu==$TF_VERSION"
fi
# For tests/python_tf (pams_cpp's TensorFlow runner with Keras agents).
if ! "$venv/bin/python" -c "import cloudpickle, pytest" 2>/dev/null; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check "cloudpickle>=2.0" pytest
fi
ls "$venv"/lib/python3*/site-packages/tensorflow/libtensorflow_cc.so.2
