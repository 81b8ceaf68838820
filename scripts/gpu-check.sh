#!/usr/bin/env bash
# The GPU check of the agent-parallel runners (bench/gpu_check.py), for a
# machine with an NVIDIA GPU and the frameworks' GPU builds installed:
# builds pams_cpp from this checkout for that machine's python3 into a
# temporary folder, then runs bench/gpu_check.py once for each of PyTorch,
# JAX and TensorFlow that imports (saying which do not).
#
#   scripts/gpu-check.sh [--offline-deps DIR] [--steps N] [--suites] [--shell CMD]
#   scripts/gpu-check.sh --fetch-deps DIR     (on a Debian 12 machine)
#
# The build uses no build isolation: the python3 (or $PYTHON) must have
# scikit-build-core, nanobind, cmake and ninja, and the machine a C++20
# compiler. The libraries the engine builds with (scripts/install-deps.sh
# installs them on Debian) come from the system, or, on a machine with no
# package manager's network (a lent GPU machine), from DIR: the Debian 12
# packages that --fetch-deps downloads into it (run that where apt-get
# works), unpacked into a prefix used for this build and run only.
#
# --shell CMD runs CMD (bash) with that build instead of the checks.
# --suites also runs the framework suites (tests/python_torch, python_jax,
# python_tf) of each framework that imports, with that build, in parallel
# (pytest-xdist).
#
# Exit status: 0 when every framework that imports gave SequentialRunner's
# results bit for bit in every parallel run (and, with --suites, every
# suite passed); 1 otherwise.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-python3}"
offline_deps=""
steps=300
suites=false
shell=""

# The Debian packages of the engine's libraries (headers and CMake
# packages) and, for cairo, the runtime libraries of its chain.
debs=(nlohmann-json3-dev libfmt-dev libfmt9 libabsl-dev libabsl20220623 libssl-dev libssl3
      pkgconf-bin libpkgconf3 libcairo2-dev libcairo2 libfontconfig1 libfreetype6
      libpixman-1-0 libpng16-16 libx11-6 libxcb-render0 libxcb-shm0 libxcb1 libxext6
      libxrender1 libxau6 libxdmcp6 libbsd0 libmd0 libbrotli1 libexpat1)

while [[ $# -gt 0 ]]; do
  case "$1" in
    --fetch-deps)
      mkdir -p "$2"
      (cd "$2" && apt-get download "${debs[@]}")
      echo "gpu-check: ${#debs[@]} packages in $2; carry that folder to the GPU machine"
      exit 0 ;;
    --offline-deps) offline_deps="$(cd "$2" && pwd)"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --suites) suites=true; shift ;;
    --shell) shell="$2"; shift 2 ;;
    *) echo "gpu-check: unknown argument $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done

work="$(mktemp -d /tmp/pams-gpu-check.XXXXXX)"
trap 'rm -rf "$work"' EXIT

if [[ -n "$offline_deps" ]]; then
  prefix="$work/prefix"
  for deb in "$offline_deps"/*.deb; do dpkg -x "$deb" "$prefix"; done
  lib="$prefix/usr/lib/x86_64-linux-gnu"
  # cairo's own .pc needs the .pc files of its whole chain; the build needs
  # only its headers and library.
  cat >"$lib/pkgconfig/cairo.pc" <<EOF
Name: cairo
Description: cairo, unpacked by scripts/gpu-check.sh
Version: 1.16.0
Cflags: -I$prefix/usr/include/cairo
Libs: -L$lib -lcairo
EOF
  export CMAKE_PREFIX_PATH="$prefix/usr"
  export PKG_CONFIG="$prefix/usr/bin/pkgconf" PKG_CONFIG_LIBDIR="$lib/pkgconfig"
  # OpenSSL's configuration headers sit in Debian's multiarch include folder.
  export CPATH="$prefix/usr/include/x86_64-linux-gnu"
  export LD_LIBRARY_PATH="$lib:$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

echo "gpu-check: building pams_cpp for $("$python" --version 2>&1) ($(command -v "$python"))"
start=$SECONDS
CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "$python" -m pip install -q --no-build-isolation \
  --no-deps --no-compile --target "$work/site" --config-settings=build-dir="$work/build" "$root" \
  >"$work/build.log" 2>&1 || { tail -n 60 "$work/build.log"; exit 1; }
echo "gpu-check: built in $((SECONDS - start)) s"
export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"
"$python" -c "import pams_cpp; print('gpu-check: pams_cpp', pams_cpp.__version__, 'from',
                                   pams_cpp.__file__)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version \
  --format=csv,noheader | sed 's/^/gpu-check: GPU /'
if [[ -n "$shell" ]]; then
  (cd "$root" && bash -c "$shell")
  exit
fi

status=0
imported=()
for framework in torch jax tf; do
  module="$framework"; [[ $framework == tf ]] && module=tensorflow
  if ! version="$("$python" -c "import $module; print($module.__version__)" 2>/dev/null)"; then
    echo "gpu-check: $module does not import with $python: its check is not run"
    continue
  fi
  echo "gpu-check: $module $version"
  imported+=("tests/python_$framework")
  (cd "$root" && PYTHONUNBUFFERED=1 "$python" bench/gpu_check.py --framework "$framework" \
     --steps "$steps") || status=1
done
if $suites && [[ ${#imported[@]} -gt 0 ]]; then
  echo "gpu-check: the suites ${imported[*]}"
  # On the CPU, as they are written: sixteen processes each taking a
  # GPU (JAX's preallocation) would test the machine, not the runners.
  (cd "$root" && CUDA_VISIBLE_DEVICES="" "$python" -m pytest -q -p no:cacheprovider \
     -n "$(nproc)" "${imported[@]}") || status=1
fi
exit $status
