#!/usr/bin/env bash
# Installs what `make docs` builds the API reference site with, if missing:
# Debian's doxygen (the C++ API from include/pams/) and, into .venv-py (made
# by `make python`; autodoc imports the pams_cpp installed there), Sphinx,
# MyST (the guides are Markdown) and the Furo theme (PAMS's site's theme).
# The Python packages are pinned: the site is built with warnings as errors,
# and a new Sphinx or theme may warn where this one did not. Idempotent and
# quiet when everything is there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-py"
SPHINX_PACKAGES=("sphinx==9.0.4" "myst-parser==5.2.0" "furo==2025.12.19")

if ! command -v doxygen >/dev/null; then
  echo "Installing Debian packages: doxygen"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends doxygen
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "scripts/setup-docs.sh: $venv is missing; run make python first" >&2
  exit 1
fi
if ! "$venv/bin/python" - "${SPHINX_PACKAGES[@]}" <<'EOF_CHECK' 2>/dev/null; then
import sys
from importlib.metadata import version
for spec in sys.argv[1:]:
    name, wanted = spec.split("==")
    if version(name) != wanted:
        sys.exit(1)
EOF_CHECK
  "$venv/bin/pip" --quiet --disable-pip-version-check install "${SPHINX_PACKAGES[@]}"
fi
