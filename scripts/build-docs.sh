#!/usr/bin/env bash
# Builds the API reference site into OUT (default build-docs/): Doxygen's
# HTML of include/pams/ (docs/api/Doxyfile) into OUT/doxygen/cpp, then Sphinx
# from docs/ (configuration docs/api/conf.py) into OUT/html, which copies the
# C++ pages in as OUT/html/cpp/. Both with warnings as errors. Open
# OUT/html/index.html. Needs scripts/setup-docs.sh (make docs runs it).
#
# Usage: scripts/build-docs.sh [OUT]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(realpath -m "${1:-$root/build-docs}")"
python="$root/.venv-py/bin/python"
cd "$root"
if ! command -v doxygen >/dev/null || ! "$python" -c "import sphinx, myst_parser, furo" 2>/dev/null; then
  echo "build-docs: doxygen, or Sphinx, MyST or Furo in .venv-py, is missing:" \
       "make docs-setup installs them" >&2
  exit 1
fi
version="$("$python" -c 'import pams_cpp; print(pams_cpp.__version__)')"

# Doxygen keeps no state between builds worth keeping (7 s): start afresh, so
# that a removed header leaves no page behind.
rm -rf "$out/doxygen"
mkdir -p "$out/doxygen"
PAMS_DOXYGEN_OUT="$out/doxygen" PAMS_VERSION="$version" doxygen docs/api/Doxyfile

# -E: read every source again (autodoc's pages depend on the installed
# package, which Sphinx's change tracking does not see). -W --keep-going:
# every warning is reported, then the build fails.
PAMS_DOXYGEN_HTML="$out/doxygen" "$python" -m sphinx -b html -E -q -W --keep-going \
  -c docs/api -d "$out/doctrees" docs "$out/html"
echo "API reference: $out/html/index.html"
