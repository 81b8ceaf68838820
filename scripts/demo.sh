#!/usr/bin/env bash
# make demo: run PAMS's CI2002 sample (100 FCN agents, 600 steps) with
# pams-cpp and print what happened: a price chart, numbers per session, and
# how long it took. Outputs are kept in out/demo/.
set -euo pipefail
build="${1:-build}"
cd "$(dirname "$0")/.."
out=out/demo
mkdir -p "$out"
"$build/bin/pams" run samples/CI2002/config.json --seed 42 \
  --steps-csv "$out/steps.csv" --agents-csv "$out/agents.csv" \
  > "$out/stdout.txt" 2> "$out/stderr.txt"
echo "pams-cpp: PAMS's CI2002 sample, seed 42 (stdout in $out/stdout.txt)"
grep '^# ' "$out/stdout.txt"
python3 python/summarize.py "$out/steps.csv" "$out/agents.csv"
echo
echo "Files: $out/steps.csv (one row per market and step), $out/agents.csv"
echo "Run any PAMS config: $build/bin/pams run CONFIG --seed N"
