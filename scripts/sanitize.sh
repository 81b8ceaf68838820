#!/usr/bin/env bash
# make sanitize: the whole test suite under AddressSanitizer and
# UndefinedBehaviorSanitizer, built with clang (build-asan/: every ctest
# test, the end-to-end ones running the instrumented pams; clang's UBSan
# includes float-cast-overflow, a double cast to an integer it does not fit,
# which GCC's does not check), then what runs threads under
# ThreadSanitizer (build-tsan/: the runner unit tests, the events CSV
# logger's writer thread, the output files' flusher thread, the channel's
# two-way sends, and MultiThreadAgentParallelRunner against
# SequentialRunner on every sample). Any report fails the job.
set -euo pipefail
cd "$(dirname "$0")/.."
tf_lib="${PAMS_TENSORFLOW_LIBRARY_PATH:-}"
common=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPAMS_BUILD_BENCHMARKS=OFF
        "-DPAMS_REFERENCE_PYTHON=$PWD/.venv-ref/bin/python"
        "-DPAMS_TENSORFLOW_LIBRARY=$tf_lib")
jobs="$(nproc)"

clang="$(command -v clang++-14 || command -v clang++ || true)"
if [ -z "$clang" ]; then
  echo "sanitize: clang++ not found (scripts/install-deps.sh installs clang-14)" >&2
  exit 1
fi
echo "== AddressSanitizer + UndefinedBehaviorSanitizer (clang): the whole test suite"
cmake -S . -B build-asan "${common[@]}" -DCMAKE_CXX_COMPILER="$clang" \
  -DPAMS_SANITIZE=address,undefined,float-cast-overflow >/dev/null
cmake --build build-asan -j "$jobs"
# Leaks are errors (but for fontconfig's cache, tests/sanitizers/lsan.supp);
# UBSan stops at the first report (-fno-sanitize-recover).
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# ASan's redzones and quarantine add ~150 bytes of memory per step to the
# soak test's run; it still checks that the growth is linear.
export PAMS_SOAK_MAX_BYTES_PER_STEP=1000
# (parallel.memory compares peak memory, which ASan's shadow and quarantine
# distort. The Python tests, python and (tensorflow|jax|torch).python, run
# .venv-py's pams_cpp, which `make test` built without sanitizers, and
# install, wheel and configure check how the library and the Python package
# are packaged and built: here they would only repeat `make test`.)
ctest --test-dir build-asan --output-on-failure -j "$jobs" \
  -E '^(parallel\.(faults|memory)|(tensorflow\.|jax\.|torch\.)?python|python\.faults(\.signals)?|sweep\.mpi|install|wheel|configure)$'
# The sweep under mpirun: OpenMPI leaves its runtime's allocations behind at
# MPI_Finalize, from components it has unloaded by then (no library name to
# suppress them by), so leaks are not checked there; every other error is.
# The sweep's own code (coordinator, workers) is leak-checked by the local
# sweep's test above.
ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
  ctest --test-dir build-asan --output-on-failure -R '^sweep\.mpi$'
# The fault tests crash a worker with SIGSEGV on purpose and expect it to die
# of that signal, which ASan would turn into a report and exit status 1.
ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0" \
  ctest --test-dir build-asan --output-on-failure -R '^parallel\.faults$'
unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS PAMS_SOAK_MAX_BYTES_PER_STEP

echo "== ThreadSanitizer: threads"
cmake -S . -B build-tsan "${common[@]}" -DPAMS_SANITIZE=thread >/dev/null
cmake --build build-tsan -j "$jobs" --target runner_test events_csv_logger_test \
  output_file_test channel_test pams_cli pams_samples pams_test_agents
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
build-tsan/tests/runner_test --gtest_brief=1
build-tsan/tests/events_csv_logger_test --gtest_brief=1
build-tsan/tests/output_file_test --gtest_brief=1
build-tsan/tests/channel_test --gtest_brief=1
for part in identical contract; do
  python3 tests/parallel_test.py --pams build-tsan/bin/pams \
    --plugin build-tsan/lib/libpams_samples.so \
    --test-agents build-tsan/lib/libpams_test_agents.so --only "$part" --threads-only
done
echo "sanitizers: clean"
