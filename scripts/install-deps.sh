#!/usr/bin/env bash
# Installs the Debian packages pams-cpp builds and tests with, if missing.
# Idempotent and quiet when everything is there. Used by every make target.
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config
  # compiled objects kept between builds and clones (Makefile: CCACHE)
  ccache
  # libraries (see README: what each dependency is for)
  nlohmann-json3-dev libcli11-dev libfmt-dev libabsl-dev
  # SHA-512 of CPython's str seeds (the parallel_main sample's WorkloadFCNAgent)
  libssl-dev
  # pams sweep across MPI ranks (mpirun; the module libpams_mpi.so)
  libopenmpi-dev openmpi-bin
  # charts (pams plot)
  libcairo2-dev fonts-dejavu-core
  # make fuzz: libFuzzer and the sanitizers of clang
  clang-14 libclang-rt-14-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # the reference PAMS run on Debian's Python, numpy and scipy, with the
  # reference BLAS/LAPACK (tests/differential)
  python3 python3-venv python3-pip python3-numpy python3-scipy
  libblas3 liblapack3
  # the Python extension's headers, and libpython for the interop tests,
  # which embed the interpreter (python/src/interop/testing)
  python3-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing Debian packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
  --no-install-recommends "${missing[@]}"
