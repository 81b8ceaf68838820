#!/usr/bin/env python3
"""The seed's case: Keras agents written the seed's way
(bench/keras_seed_agents.py: an lru_cache-loaded model called eagerly on one
row in submit_orders, or through a tf.function) in
TensorFlowAgentParallelRunner against SequentialRunner, as a user feels it:
each side in a fresh Python process that has imported TensorFlow, timing
whole runs (runner creation, worker start-up, every step): the first run of
the process, the next one at once (a loop over seeds: workers kept, maybe
still starting), one after a pause (--pause, outside the clock: a notebook
user's next cell, by which time the kept workers have started; their first
calls load the model), and three more at once (workers warm), on

  (a) 12 Keras agents beside 20 FCNAgents, a 30-step session then 200 steps
      at maxNormalOrders 4 (about 1.5 model calls a round); six runs
      (seeds 5-10), and one of 1030 steps;
  (b) 12 Keras agents asked every round (maxNormalOrders 12, no FCNAgent);
      six runs, and one of 1030 steps.

SequentialRunner runs TensorFlow as the workers do (configure_tensorflow:
1 intra-op and 1 inter-op thread with 2 workers on 2 CPUs). Ratios are
sequential time / runner time, medians of paired runs (each pair: the
sides one after the other, in alternating order). Run in a venv with
TensorFlow and pams_cpp (scripts/bench.sh uses .venv-tf with pams_cpp on
the path):

    python bench/keras_seed_bench.py [--pairs N] [--only a|b] [--graph] [--pause S]
                                     [--rounds-here]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def child(args):
    """One side in this process: prints {"runs": [seconds of each run]}."""
    import random

    import tensorflow  # noqa: F401  (imported before the clock, as a user has)

    import keras_seed_agents as agents
    from pams_cpp.runners import SequentialRunner
    from pams_cpp.runners import TensorFlowAgentParallelRunner
    from pams_cpp.runners import configure_tensorflow

    settings = agents.config(args.model, args.agent, keras_agents=12,
                             fcn_agents=0 if args.case == "b" else 20, steps=args.steps,
                             max_normal_orders=12 if args.case == "b" else 4)
    settings["simulation"]["numParallel"] = max(args.workers, 1)
    settings["simulation"]["tensorflowIntraOpThreads"] = 1
    settings["simulation"]["tensorflowInterOpThreads"] = 1
    if args.rounds_here:
        settings["simulation"]["runRoundsWhileWorkersStart"] = True
    times = []
    for k, seed in enumerate(args.seeds):
        if k > 0 and k == args.pause_before:
            # Outside the clock: a user's pause between two notebook cells,
            # in which kept workers finish starting.
            time.sleep(args.pause)
        start = time.perf_counter()
        # In the clock, as the runner configures TensorFlow in its run (the
        # first call lists the devices, which starts TensorFlow's runtime).
        if args.workers == 0 and k == 0:
            configure_tensorflow(settings)
        if args.workers == 0:
            runner = SequentialRunner(settings=settings, prng=random.Random(seed))
        else:
            runner = TensorFlowAgentParallelRunner(settings=settings, prng=random.Random(seed))
        for cls in agents.classes():
            runner.class_register(cls)
        runner.main()
        times.append(time.perf_counter() - start)
    print("RESULT " + json.dumps({"runs": times}), flush=True)


def side(model, agent, case, workers, steps, seeds, pause=0.0, rounds_here=False):
    command = [sys.executable, os.path.abspath(__file__), "--child", "--model", model,
               "--agent", agent, "--case", case, "--workers", str(workers),
               "--steps", str(steps), "--pause", str(pause),
               "--pause-before", str(2 if pause else 0),
               "--seeds"] + [str(s) for s in seeds] + (["--rounds-here"] if rounds_here else [])
    env = dict(os.environ, PYTHONWARNINGS="ignore", TF_CPP_MIN_LOG_LEVEL="2")
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])["runs"]
    raise SystemExit(f"side {workers} workers failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")


def compare(model, agent, case, steps, seeds, pairs, workers=(1, 2), pause=0.0,
            rounds_here=False):
    """{workers: [per run: median of sequential/runner]} and the medians of
    the times; the last run after `pause` seconds (if any)."""
    ratios = {w: [[] for _ in seeds] for w in workers}
    times = {w: [[] for _ in seeds] for w in (0,) + tuple(workers)}
    for pair in range(pairs):
        order = [0] + list(workers)
        if pair % 2:
            order.reverse()
        got = {w: side(model, agent, case, w, steps, seeds, pause, rounds_here) for w in order}
        for w in (0,) + tuple(workers):
            for k, t in enumerate(got[w]):
                times[w][k].append(t)
        for w in workers:
            for k in range(len(seeds)):
                ratios[w][k].append(got[0][k] / got[w][k])
    med = lambda xs: statistics.median(xs)  # noqa: E731
    return ({w: [med(r) for r in ratios[w]] for w in workers},
            {w: [med(t) for t in times[w]] for w in times})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--only", choices=["a", "b"])
    parser.add_argument("--graph", action="store_true", help="also the tf.function agent")
    parser.add_argument("--long", type=int, default=1000,
                        help="steps of the long run's second session (0: none)")
    parser.add_argument("--hidden", default="64,64", help="the MLP's hidden layers")
    parser.add_argument("--pause", type=float, default=10.0,
                        help="seconds between the second and third 230-step runs (a "
                             "notebook user's pause between cells)")
    parser.add_argument("--rounds-here", action="store_true",
                        help="runRoundsWhileWorkersStart true: the main process runs the "
                             "agents' calls while the workers start (default: every call "
                             "in a worker, so that a crash there cannot end the program)")
    # A side, run by the above in a process of its own.
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    parser.add_argument("--agent", help=argparse.SUPPRESS)
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--steps", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--seeds", type=int, nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--pause-before", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    import keras_seed_agents as agents

    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "mlp.keras")
        subprocess.run([sys.executable, "-c",
                        f"import sys; sys.path.insert(0, {HERE!r}); import keras_seed_agents as a; "
                        f"a.make_model({model!r}, hidden=({args.hidden},))"],
                       check=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
        cases = [args.only] if args.only else ["a", "b"]
        kinds = ["KerasAgent"] + (["GraphKerasAgent"] if args.graph else [])
        print(f"# {os.cpu_count()} CPUs, MLP 64-{args.hidden.replace(',', '-')}-1, "
              f"{args.pairs} pairs, runRoundsWhileWorkersStart "
              f"{'true' if args.rounds_here else 'false (the default)'}; "
              "ratio = SequentialRunner time / runner time "
              "(whole runs, in fresh processes that imported TensorFlow)")
        for case in cases:
            for kind in kinds:
                ratios, times = compare(model, kind, case, 200, list(range(5, 11)), args.pairs,
                                        pause=args.pause, rounds_here=args.rounds_here)
                seq = times[0]
                for w in (1, 2):
                    print(f"({case}) {kind:15s} numParallel {w}: 230-step runs "
                          f"first {ratios[w][0]:.2f}x, next {ratios[w][1]:.2f}x, "
                          f"after a {args.pause:g} s pause {ratios[w][2]:.2f}x, "
                          f"then {ratios[w][3]:.2f}x / {ratios[w][4]:.2f}x / "
                          f"{ratios[w][5]:.2f}x "
                          f"(sequential {' / '.join(f'{t:.2f}' for t in seq)} s; "
                          f"runner {' / '.join(f'{t:.2f}' for t in times[w])} s)",
                          flush=True)
                if args.long:
                    ratios, times = compare(model, kind, case, args.long, [5], args.pairs,
                                            rounds_here=args.rounds_here)
                    for w in (1, 2):
                        print(f"({case}) {kind:15s} numParallel {w}: one {args.long + 30}-step "
                              f"run {ratios[w][0]:.2f}x (sequential {times[0][0]:.2f} s, "
                              f"runner {times[w][0]:.2f} s)", flush=True)


if __name__ == "__main__":
    main()
