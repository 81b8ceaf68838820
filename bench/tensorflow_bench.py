#!/usr/bin/env python3
"""TensorFlowAgentParallelRunner against SequentialRunner, timed in one run.

1. A heavy, compute-bound model (scripts/make_tf_model.py --heavy: 2.4 million parameters, ~1.2 ms a
   call on one thread), 8 TensorFlow agents asked per step
   (maxNormalOrders 8), tensorflowIntraOpThreads 1: speedup of the runner
   with 2 spawned workers over SequentialRunner (target >= 1.7x on 2 cores),
   with its workers pinned to CPUs (the default) and not.
   The steady state is measured as the difference between a run of 20 and
   one of 620 steps, so that neither TensorFlow's loading (in the main
   process for SequentialRunner) nor the workers' start-up (reported apart,
   with their memory, from PAMS_WORKER_STATS) counts; each repeat runs
   every side back to back, and the ratios are medians of the repeats'.
2. Per-task overhead on the TensorFlow sample (small model): (runner time -
   start-up - SequentialRunner time) / tasks.

Usage: tensorflow_bench.py --pams BIN --tf-python PY
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = "TensorFlowAgentParallelRunner"
LONG = 620  # steps of the long run; the short one has 20
REPEATS = 3


def run(args, config, *extra, env=None):
    out = subprocess.run([args.pams, "run", config, "--seed", "1", *extra],
                         capture_output=True, text=True, env=env, check=True)
    t = float(re.search(r"^# EXECUTION TIME (\S+)$", out.stdout, re.M).group(1))
    workers = [(float(a), int(b), int(c)) for a, b, c in re.findall(
        r"# WORKER \d+ pid \d+ ready after (\S+) s, memory (\d+) MiB \(peak (\d+) MiB",
        out.stderr)]
    return t, workers


def median(args, config, *extra, runs=3):
    """The run of median time: this 2-core VM's timings vary by +-30%, and
    a median of a difference is steadier than a minimum."""
    results = sorted((run(args, config, *extra, env=dict(os.environ, PAMS_WORKER_STATS="1"))
                      for _ in range(runs)), key=lambda r: r[0])
    return results[len(results) // 2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--tf-python", required=True)
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="pams-tfbench-")
    model = os.path.join(tmp, "heavy_model")
    made = subprocess.run([args.tf_python, os.path.join(ROOT, "scripts", "make_tf_model.py"),
                           model, "--heavy", "--features", "10"],
                          capture_output=True, text=True, check=True)
    print(made.stdout.strip().splitlines()[-1])
    with open(os.path.join(ROOT, "samples", "tensorflow", "config.json")) as f:
        c = json.load(f)
    c["simulation"]["agents"] = ["TensorFlowAgents"]
    c["TensorFlowAgents"]["numAgents"] = 8
    c["TensorFlowAgents"]["modelPath"] = model
    # The same TensorFlow threads on both sides: one intra-op (from the
    # sample) and one inter-op thread, in SequentialRunner's main process
    # as in each worker.
    c["simulation"]["tensorflowInterOpThreads"] = 1
    # The agents' own calls in the workers: batched (the default), every
    # runner makes them in its main process, one call a round.
    c["simulation"]["batchModelCalls"] = False
    configs = {}
    for steps in (20, LONG):
        for sess, n in zip(c["simulation"]["sessions"], (10, steps - 10)):
            sess["iterationSteps"] = n
            sess["maxNormalOrders"] = 8
        configs[steps] = os.path.join(tmp, f"heavy-{steps}.json")
        with open(configs[steps], "w") as f:
            json.dump(c, f)
    parallel = ("--runner", RUNNER, "--set", "simulation.numParallel=2")
    variants = {"seq": (), "pinned": parallel,
                "unpinned": parallel + ("--set", "simulation.workerCpuAffinity=false")}
    env = dict(os.environ, PAMS_WORKER_STATS="1")
    # Paired: each repeat runs every variant back to back, so that the VM's
    # drift in speed (+-30% from minute to minute) hits all of them alike;
    # the ratios are the medians of the repeats' ratios.
    rows, workers = [], []
    for _ in range(REPEATS):
        row = {}
        for name, extra in variants.items():
            short, long_ = (run(args, configs[steps], *extra, env=env) for steps in (20, LONG))
            row[name] = (long_[0] - short[0], long_[0])
            if name == "pinned":
                workers = long_[1]
        rows.append(row)

    def med(values):
        values = sorted(values)
        return values[len(values) // 2]

    calls = (LONG - 20) * 8
    seq, par, unpinned = (med(r[k][0] for r in rows) for k in variants)
    speedup = med(r["seq"][0] / r["pinned"][0] for r in rows)
    unpinned_speedup = med(r["seq"][0] / r["unpinned"][0] for r in rows)
    print(f"1. Heavy model, 8 agents per step, {LONG - 20} steps more ({calls} calls), "
          f"medians of {REPEATS} paired repeats:")
    print(f"   SequentialRunner                          {seq:7.3f} s "
          f"({seq / calls * 1e3:.2f} ms a call)")
    print(f"   {RUNNER}, 2 workers  {par:7.3f} s (pinned to CPUs, the default)")
    print(f"   speedup {speedup:.2f}x {'ok' if speedup >= 1.7 else 'BELOW 1.7x'} "
          f"(whole {LONG}-step runs, start-up included: {med(r['seq'][1] for r in rows):.2f} s "
          f"vs {med(r['pinned'][1] for r in rows):.2f} s)")
    print(f"   the same, not pinned (workerCpuAffinity false)  {unpinned:7.3f} s, "
          f"speedup {unpinned_speedup:.2f}x")
    for i, (ready, rss, peak) in enumerate(workers):
        print(f"   worker {i}: ready (TensorFlow loaded, configured, model loaded) after "
              f"{ready:.3f} s; memory {rss} MiB (peak {peak} MiB)")

    sample = os.path.join(ROOT, "samples", "tensorflow", "config.json")
    unbatched = ("--set", "simulation.batchModelCalls=false")
    seq, _ = median(args, sample, *unbatched)
    par, workers = median(args, sample, "--runner", RUNNER, "--set", "simulation.numParallel=1",
                          *unbatched)
    startup = max(w[0] for w in workers)
    tasks = 600 * 4
    print(f"\n2. TensorFlow sample (~{tasks} tasks, 1 worker): SequentialRunner {seq:.3f} s, "
          f"runner {par:.3f} s (start-up {startup:.3f} s): "
          f"{(par - startup - seq) / tasks * 1e6:.1f} us per task")
    return 0


if __name__ == "__main__":
    sys.exit(main())
