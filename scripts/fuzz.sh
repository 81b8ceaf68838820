#!/usr/bin/env bash
# make fuzz: builds the libFuzzer target tests/fuzz/config_fuzzer with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer (build-fuzz/), and runs it
# for FUZZ_SECONDS (default 60) on a corpus seeded with every config of the
# repository (samples, differential configs, the bad-config corpus), using a
# dictionary of PAMS's keys. Any crash, leak, sanitizer report or hang fails
# it; the input that caused it is saved in out/fuzz/ (crash-*, leak-*, ...).
set -euo pipefail
seconds="${FUZZ_SECONDS:-60}"
cd "$(dirname "$0")/.."
clang="$(command -v clang++-14 || command -v clang++ || true)"
if [ -z "$clang" ]; then
  echo "fuzz: clang++ not found (scripts/install-deps.sh installs clang-14)" >&2
  exit 1
fi
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$clang" -DPAMS_FUZZ=ON -DPAMS_SANITIZE=address,undefined \
  -DPAMS_BUILD_TESTS=OFF -DPAMS_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-fuzz --target config_fuzzer
mkdir -p out/fuzz/corpus out/fuzz/seeds
for f in samples/*/*.json tests/differential/configs/*.json tests/bad_configs/*.json; do
  cp "$f" "out/fuzz/seeds/$(echo "$f" | tr / _)"
done
echo "Fuzzing config loading and validation for ${seconds} s"
status=0
build-fuzz/bin/config_fuzzer -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
  -max_len=16384 -dict=tests/fuzz/config.dict -artifact_prefix=out/fuzz/ \
  -print_final_stats=1 out/fuzz/corpus out/fuzz/seeds > out/fuzz/log 2>&1 || status=$?
grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added)" out/fuzz/log || true
if [ "$status" -ne 0 ]; then
  tail -60 out/fuzz/log
  echo "fuzz: FINDING (exit status $status); the input is in out/fuzz/" >&2
  exit 1
fi
echo "fuzz: no finding in ${seconds} s"
