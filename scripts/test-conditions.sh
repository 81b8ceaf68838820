#!/usr/bin/env bash
# Runs the whole CTest suite of a build folder under the conditions every
# test must pass in (tests/README.md, "On any machine"), after `make test`
# has set up and built everything:
#
#   scripts/test-conditions.sh load   [BUILD_DIR]  a busy loop on each CPU
#                                                 (nice 0) in the background
#   scripts/test-conditions.sh one-cpu [BUILD_DIR] the suite on CPU 0 only
#                                                 (taskset -c 0, one test at
#                                                 a time, as on a 1-CPU machine)
#   scripts/test-conditions.sh repeat [BUILD_DIR]  three times in a row
#
# Each run prints CTest's summary ("N% tests passed, M tests failed out of
# T", the failed tests' names) and its time; a run's whole output goes to
# BUILD_DIR/Testing/conditions-<mode>-<k>.log. Exit status: 0 when every
# run passed.
set -uo pipefail
mode="${1:-}"
build="${2:-build}"
case "$mode" in
  load | one-cpu | repeat) ;;
  *)
    echo "usage: $0 load|one-cpu|repeat [BUILD_DIR]" >&2
    exit 2
    ;;
esac
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "$0: $build has no CTest suite: run make test (or make build) first" >&2
  exit 2
fi
cpus="$(nproc)"
loops=()
stop_loops() {
  for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
}
trap stop_loops EXIT
failed=0
run() {  # run K CTEST-PREFIX...: one whole run of the suite
  local k="$1"
  shift
  local log="$build/Testing/conditions-$mode-$k.log"
  mkdir -p "$build/Testing"
  local start=$SECONDS
  "$@" ctest --test-dir "$build" --output-on-failure >"$log" 2>&1
  local rc=$?
  echo "== $mode run $k: $((SECONDS - start)) s, exit status $rc ($log)"
  grep -E "tests passed|^\s+[0-9]+ - " "$log"
  [ "$rc" -eq 0 ] || failed=1
}
case "$mode" in
  load)
    for _ in $(seq "$cpus"); do
      nice -n 0 sh -c 'while :; do :; done' &
      loops+=("$!")
    done
    run 1 env CTEST_PARALLEL_LEVEL="$cpus"
    ;;
  one-cpu)
    run 1 env CTEST_PARALLEL_LEVEL=1 taskset -c 0
    ;;
  repeat)
    for k in 1 2 3; do run "$k" env CTEST_PARALLEL_LEVEL="$cpus"; done
    ;;
esac
exit "$failed"
