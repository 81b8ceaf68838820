#!/usr/bin/env python3
"""Speed of pams-cpp against the reference PAMS, both timed in this one run.

For each config both sides run with the same seed and their own
"# EXECUTION TIME" line (PAMS's Runner.main) is read; each side runs several
times (the samples: PAMS 5, pams-cpp 15; the scaled configs: 1 and 3) and the
minimum is kept (this machine is a shared VM whose noise only adds time).
Also prints pams-cpp's per-step cost at 10^3 and 10^5 steps, and the
1000-agent config's per-step cost against the shuffle floor (the Google
Benchmark BM_SampleAll/1000 of random_bench).

Usage: compare_pams.py --pams BIN --plugin LIB --reference-python PY
                       --random-bench BIN [--quick] [--out FILE]
"""
import argparse
import copy
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "differential"))
from differential_test import REFERENCE_ENV  # noqa: E402
from differential_test import REFERENCE_PYTHONPATH  # noqa: E402
from differential_test import REFERENCE_SCRIPT  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests"))
from pams_samples import SAMPLES  # noqa: E402


def exec_time(output):
    m = re.search(r"^# EXECUTION TIME (\S+)$", output, re.M)
    if not m:
        raise RuntimeError("no EXECUTION TIME line in:\n" + output[-2000:])
    return float(m.group(1))


def run_cpp(args, config, seed):
    out = subprocess.run(
        [args.pams, "run", config, "--seed", str(seed), "--plugin", args.plugin],
        capture_output=True, text=True, check=True).stdout
    return exec_time(out)


def run_ref(args, config, seed):
    env = dict(os.environ, **REFERENCE_ENV)
    env["PYTHONPATH"] = REFERENCE_PYTHONPATH
    out = subprocess.run(
        [args.reference_python, REFERENCE_SCRIPT,
         config, "--seed", str(seed)],
        capture_output=True, text=True, check=True, env=env).stdout
    return exec_time(out)


def scaled_ci2002(tmp, agents, steps, max_normal_orders=None):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        c = json.load(f)
    c["FCNAgents"]["numAgents"] = agents
    sessions = c["simulation"]["sessions"]
    sessions[1]["iterationSteps"] = steps - sessions[0]["iterationSteps"]
    if max_normal_orders is not None:
        for s in sessions:
            s["maxNormalOrders"] = max_normal_orders
    name = f"CI2002-{agents}x{steps}" + (
        f"-mno{max_normal_orders}" if max_normal_orders else "")
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(c, f)
    return name, path


def measure(args, name, config, cpp_runs, ref_runs, seed=1):
    # Each side's runs back to back: a run just after the other side's is
    # slowed by the caches and memory that the other left behind.
    ref = [run_ref(args, config, seed) for _ in range(ref_runs)]
    cpp = [run_cpp(args, config, seed) for _ in range(cpp_runs)]
    # The minimum: this machine is a shared VM whose noise only adds time.
    c, r = min(cpp), min(ref)
    return {"config": name, "pams_s": r, "cpp_s": c, "ratio": r / c}


def shuffle_floor_ns(args):
    out = subprocess.run(
        [args.random_bench, "--benchmark_filter=BM_ShuffleFloor/1000$",
         "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true",
         "--benchmark_format=json"], capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    for b in data["benchmarks"]:
        if b["name"].endswith("_median"):
            return b["real_time"]  # ns per shuffle of 1000 agents
    raise RuntimeError("no median in random_bench output")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--reference-python", required=True)
    p.add_argument("--random-bench", required=True)
    p.add_argument("--quick", action="store_true",
                   help="fewer repetitions, smaller scaled configs")
    p.add_argument("--out", help="also write the results as JSON here")
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="pams-bench-")
    rows = []
    reps = (5, 1) if args.quick else (15, 5)
    for rel in SAMPLES:
        row = measure(args, rel, os.path.join(ROOT, rel), *reps)
        row["target"] = 100
        rows.append(row)
    steps = 2000 if args.quick else 10000
    name, big = scaled_ci2002(tmp, 1000, steps)
    rows.append(dict(measure(args, name, big, 3, 1), target=None))
    name, deep = scaled_ci2002(tmp, 1000, steps, max_normal_orders=10)
    rows.append(dict(measure(args, name, deep, 3, 1), target=300))

    print(f"{'config':40} {'PAMS s':>10} {'pams-cpp s':>11} {'ratio':>8} {'target':>7}")
    ok = True
    for r in rows:
        t = r["target"]
        mark = "" if t is None else ("ok" if r["ratio"] >= t else "BELOW")
        ok = ok and mark != "BELOW"
        print(f"{r['config']:40} {r['pams_s']:10.4f} {r['cpp_s']:11.5f} "
              f"{r['ratio']:8.1f} {('' if t is None else str(t) + 'x'):>7} {mark}")

    # Per-step cost as runs grow, and the shuffle floor.
    per_step = {}
    for n in (1000, 100000):
        _, cfg = scaled_ci2002(tmp, 100, n)
        per_step[n] = statistics.median(run_cpp(args, cfg, 1) for _ in range(5)) / n
    print(f"\nper-step cost, CI2002 (100 agents): 10^3 steps {per_step[1000]*1e6:.3f} us,"
          f" 10^5 steps {per_step[100000]*1e6:.3f} us"
          f" (ratio {per_step[100000]/per_step[1000]:.2f})")
    floor_ns = shuffle_floor_ns(args)
    big_row = rows[-2]
    big_step_ns = big_row["cpp_s"] / steps * 1e9
    print(f"1000-agent config: {big_step_ns:.0f} ns per step; shuffle floor "
          f"(BM_ShuffleFloor/1000) {floor_ns:.0f} ns; ratio {big_step_ns/floor_ns:.2f}"
          f" (target <= 1.5)")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"rows": rows, "per_step_s": per_step,
                       "shuffle_floor_ns": floor_ns,
                       "big_step_ns": big_step_ns}, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
