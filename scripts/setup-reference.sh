#!/usr/bin/env bash
# Creates .venv-ref: the reference PAMS for the differential tests and
# benchmarks. PAMS is pinned and installed with --no-deps into a venv that
# sees Debian's numpy and scipy (--system-site-packages), so that the
# reference runs on Debian's numerics, not on pip's OpenBLAS wheels.
set -euo pipefail
PAMS_VERSION=0.3.0
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-ref"
if [ -x "$venv/bin/python" ] &&
   "$venv/bin/python" -c "import pams, sys; sys.exit(pams.__version__ != '$PAMS_VERSION')" 2>/dev/null; then
  exit 0
fi
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
  "pams==$PAMS_VERSION"
"$venv/bin/python" -c "import pams; print('reference PAMS', pams.__version__)"
