#!/usr/bin/env bash
# make bench: pams-cpp against the reference PAMS on the same configs and
# seeds (bench/compare_pams.py prints the table and the ratios), the
# parallel runners' speedup and per-task overhead (bench/parallel_bench.py),
# TensorFlowAgentParallelRunner's (bench/tensorflow_bench.py; skipped with
# PAMS_SKIP_TENSORFLOW_TESTS=1), the cost of --events-csv
# (bench/events_csv_bench.py), Plham's ParallelMain at 2/9/99 markets against
# PAMS (bench/parallel_main_bench.py) and under each runner from the CLI and
# Python (bench/parallel_main_runners_bench.py), pams sweep's runs per second, locally and
# across MPI ranks (bench/sweep_bench.py), pams_cpp from Python against the CLI and
# PAMS (bench/python_bench.py), and the Google Benchmarks of the engine and the random generators.
# BENCH_QUICK=1 for a shorter run (fewer repetitions, smaller scaled configs).
set -euo pipefail
build="${1:-build}"
cd "$(dirname "$0")/.."
mkdir -p out/bench
quick=()
if [ "${BENCH_QUICK:-0}" = 1 ]; then quick=(--quick); fi
python3 bench/compare_pams.py --pams "$build/bin/pams" \
  --plugin "$build/lib/libpams_samples.so" \
  --reference-python .venv-ref/bin/python \
  --random-bench "$build/bin/random_bench" --out out/bench/compare.json "${quick[@]}"
echo
python3 bench/parallel_bench.py --pams "$build/bin/pams" \
  --test-agents "$build/lib/libpams_test_agents.so" \
  --reference-python .venv-ref/bin/python
echo
# (dev) Plham's ParallelMain (the parallel_main sample of PAMS's development
# branch): time per step at 2/9/99 markets, and PAMS's at 9 markets; the
# heavy workload and the 99-market config's 1,000 steps unless BENCH_QUICK=1.
full=(--heavy --full)
if [ "${BENCH_QUICK:-0}" = 1 ]; then full=(); fi
python3 bench/parallel_main_bench.py --pams "$build/bin/pams" \
  --reference-python .venv-ref/bin/python "${quick[@]}" "${full[@]}"
echo
# The same sample's config-009 and config-002, whole runs under the three
# runners from the CLI and from Python (a Python subclass of
# WorkloadFCNAgent), paired, with the process runner's cost per task.
# PAMS_BASELINE_PAMS=path/to/an/earlier/pams adds its CLI rows ("before").
baseline=()
if [ -n "${PAMS_BASELINE_PAMS:-}" ]; then baseline=(--baseline-pams "$PAMS_BASELINE_PAMS"); fi
runner_steps=(--steps 100 --python-steps 30)
if [ "${BENCH_QUICK:-0}" = 1 ]; then runner_steps=(--steps 20 --python-steps 5 --repeat 1); fi
python3 bench/parallel_main_runners_bench.py --pams "$build/bin/pams" \
  --python .venv-py/bin/python "${runner_steps[@]}" "${baseline[@]}"
echo
python3 bench/events_csv_bench.py --pams "$build/bin/pams" --out out/bench
echo
python3 bench/sweep_bench.py --pams "$build/bin/pams"
echo
.venv-py/bin/python bench/python_bench.py --pams "$build/bin/pams" \
  --plugin "$build/lib/libpams_samples.so" "${quick[@]}"
echo
.venv-py/bin/python bench/python_parallel_bench.py
echo
if [ "${PAMS_SKIP_TENSORFLOW_TESTS:-0}" = 1 ]; then
  echo "TensorFlow benchmark skipped: PAMS_SKIP_TENSORFLOW_TESTS=1"
else
  python3 bench/tensorflow_bench.py --pams "$build/bin/pams" --tf-python .venv-tf/bin/python
  # pams_cpp's TensorFlow runner with Keras agents written in Python: in
  # .venv-tf, with .venv-py's pams_cpp linked onto the path.
  link_dir="$(mktemp -d)"
  ln -s "$(.venv-py/bin/python -c 'import os, pams_cpp; print(os.path.dirname(pams_cpp.__file__))')" \
    "$link_dir/pams_cpp"
  PYTHONPATH="$link_dir" .venv-tf/bin/python bench/tensorflow_python_bench.py
  echo
  # The seed's case: eager Keras agents, whole runs in fresh processes;
  # every call in a worker (the default), then with the main process
  # running calls while the workers start (runRoundsWhileWorkersStart).
  PYTHONPATH="$link_dir" .venv-tf/bin/python bench/keras_seed_bench.py --graph
  PYTHONPATH="$link_dir" .venv-tf/bin/python bench/keras_seed_bench.py --rounds-here --long 0
  echo
  # The same agents' calls batched per round (pams_cpp.agents.ModelCall).
  PYTHONPATH="$link_dir" .venv-tf/bin/python bench/batched_model_calls_bench.py
  rm -rf "$link_dir"
fi
echo
"$build/bin/random_bench" --benchmark_filter='ShuffleFloor|SampleAll'
"$build/bin/engine_bench"
