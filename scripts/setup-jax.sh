#!/usr/bin/env bash
# Creates .venv-jax with JAX for CPUs (and cloudpickle and pytest), where
# tests/python_jax runs pams_cpp's JaxAgentParallelRunner with agents that
# call JAX. A venv of its own: JAX needs a newer numpy than the Debian one
# PAMS's reference results depend on (.venv-py). Pinned.
# PAMS_SKIP_JAX_TESTS=1 skips it (and those tests).
set -euo pipefail
JAX_VERSION=0.10.2
if [ "${PAMS_SKIP_JAX_TESTS:-0}" = 1 ]; then
  echo "JAX not installed: PAMS_SKIP_JAX_TESTS=1"
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-jax"
if [ -x "$venv/bin/python" ] &&
   [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("jax"))' 2>/dev/null)" = "$JAX_VERSION" ] &&
   "$venv/bin/python" -c "import cloudpickle, pytest" 2>/dev/null; then
  exit 0
fi
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
echo "Installing jax==$JAX_VERSION (CPU) into .venv-jax"
"$venv/bin/pip" install --quiet --disable-pip-version-check "jax==$JAX_VERSION" \
  "cloudpickle>=2.0" pytest
