#!/usr/bin/env bash
# make demo: run PAMS's CI2002 sample (100 FCN agents, 600 steps) with
# pams-cpp and print what happened: a price chart (in the terminal, and as
# out/demo/chart.png), numbers per session, the stylized facts of the
# returns, and how long it took. Outputs are kept in out/demo/.
set -euo pipefail
build="${1:-build}"
cd "$(dirname "$0")/.."
out=out/demo
mkdir -p "$out"
"$build/bin/pams" run samples/CI2002/config.json --seed 42 \
  --steps-csv "$out/steps.csv" --agents-csv "$out/agents.csv" \
  --events-csv "$out/events.csv" --plot "$out/chart.png" \
  > "$out/stdout.txt" 2> "$out/stderr.txt"
echo "pams-cpp: PAMS's CI2002 sample, seed 42 (stdout in $out/stdout.txt)"
grep '^# ' "$out/stdout.txt"
python3 scripts/summarize.py "$out/steps.csv" "$out/agents.csv"
echo
# Session 0 is a warm-up without trades: its flat prices would lower the
# return std, so the stylized facts are of session 1's steps only (the figure
# of the "session 1" line above; the one over all steps differs).
echo "Stylized facts of session 1 only (steps 100-599; pams stats --session 1):"
"$build/bin/pams" stats "$out/steps.csv" --session 1
echo
echo "Chart: $out/chart.png (pams plot $out/steps.csv -o chart.svg for SVG)"
echo "Files: $out/steps.csv (one row per market and step), $out/agents.csv,"
echo "       $out/events.csv (every order, cancel, execution and expiration)"
echo "Run any PAMS config: $build/bin/pams run CONFIG --seed N"
