#!/usr/bin/env bash
# Installs what `make docs` builds the API reference site with, and what the
# documentation's examples import (tests/docs_examples_test.py), if missing:
# Debian's doxygen (the C++ API from include/pams/) and python3-matplotlib
# (README's notebook example plots; Debian's, built for Debian's numpy,
# which .venv-py sees) and, into .venv-py (made by `make python`; autodoc
# imports the pams_cpp installed there), Sphinx, MyST (the guides are
# Markdown), the Furo theme (PAMS's site's theme) and polars (docs/python.md
# hands a table to it). The Python packages are pinned: the site is built
# with warnings as errors, and a new Sphinx or theme may warn where this one
# did not. Idempotent and quiet when everything is there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-py"
PIP_PACKAGES=("sphinx==9.0.4" "myst-parser==5.2.0" "furo==2025.12.19" "polars==2.1.0")
DEBIAN_PACKAGES=(doxygen python3-matplotlib)

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian packages: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "scripts/setup-docs.sh: $venv is missing; run make python first" >&2
  exit 1
fi
if ! "$venv/bin/python" - "${PIP_PACKAGES[@]}" <<'EOF_CHECK' 2>/dev/null; then
import sys
from importlib.metadata import version
for spec in sys.argv[1:]:
    name, wanted = spec.split("==")
    if version(name) != wanted:
        sys.exit(1)
EOF_CHECK
  # --no-warn-conflicts: PAMS 0.3.0 beside Debian's numpy, on purpose (setup-python.sh)
  "$venv/bin/pip" --quiet --disable-pip-version-check install --no-warn-conflicts "${PIP_PACKAGES[@]}"
fi
