#!/usr/bin/env python3
"""pams_cpp's TensorFlowAgentParallelRunner with Keras agents written in
Python against SequentialRunner, timed in this one run: the speedup of 2
spawned workers on this 2-core machine when each agent's call runs a Keras
model (target >= 1.7x with a model of ~1 ms a call), with the workers
pinned to CPUs (the runner's default) and not pinned
(simulation.workerCpuAffinity false). Run in .venv-tf with pams_cpp on the
path (scripts/bench.sh does it):

    PYTHONPATH=<a directory linking pams_cpp> .venv-tf/bin/python \\
        bench/tensorflow_python_bench.py

Beside the runner it times two bare pinned processes that make the same
model calls, half each, released together every step by a pipe and with
no simulation at all: the speedup this machine gives two processes calling
the model, which moves with the machine (on this virtual machine, from
1.2x to 2x within minutes) and which the runner's is printed against.

Both sides run TensorFlow with 1 intra-op and 1 inter-op thread (the
workers by the config, the sequential process by configure_tensorflow), so
that they compute the same numbers. Each side's time is that of the steps
after the first 20, read by a logger at the steps' ends: without the
workers' start-up (importing TensorFlow takes seconds per worker; it is
printed apart). The ratios are medians of paired runs.
"""
import argparse
import contextlib
import copy
import functools
import io
import json
import multiprocessing
import os
import random
import statistics
import tempfile
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import pams_cpp  # noqa: E402
from pams_cpp.runners import SequentialRunner  # noqa: E402
from pams_cpp.runners import TensorFlowAgentParallelRunner  # noqa: E402
from pams_cpp.runners import configure_tensorflow  # noqa: E402

# Calls a step (maxNormalOrders), workers.
CALLS, WORKERS = 4, 2


@functools.lru_cache(maxsize=None)
def model(path):
    """The model, compiled into a graph (a Keras call in eager mode costs
    milliseconds by itself), once per process."""
    import keras
    import tensorflow as tf

    loaded = keras.models.load_model(path)
    return tf.function(lambda x: loaded(x, training=False))


def ask_model(path, price, prng):
    """What an agent asks the model, as KerasAgent does."""
    import numpy as np

    x = np.full((1, 256), price / 300.0, dtype="float32")
    x[0, 0] = prng.random()
    return model(path)(x)


class KerasAgent(pams_cpp.agents.FCNAgent):
    """An FCN agent that first asks a Keras model about the market."""

    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings=settings, accessible_markets_ids=accessible_markets_ids)
        self.model_path = settings["modelPath"]

    def submit_orders(self, markets):
        ask_model(self.model_path, markets[0].get_market_price(), self.prng)
        return super().submit_orders(markets)


class Loading(TensorFlowAgentParallelRunner):
    def _get_worker_initializer(self):
        return model

    def _get_worker_initargs(self):
        return (self.settings["FCNAgents"]["modelPath"],)


MODELS = {
    "small": "~1 ms: an input layer's 128 outputs repeated into a [64, 128] activation "
             "through twelve 128x128 layers (0.9 MB of weights, about a core's L2 "
             "cache)",
    "wide": "several ms: scripts/make_tf_model.py's benchmark model, an [8, 768] activation "
            "through 768x768 layers (16 MB of weights, streamed from the shared L3 "
            "cache and memory at each call)",
}


def make_model(path, kind):
    """A Keras file of one of MODELS."""
    import keras

    keras.utils.set_random_seed(0)
    if kind == "small":
        layers = [keras.Input(shape=(256,)), keras.layers.Dense(128, activation="tanh"),
                  keras.layers.RepeatVector(64)]
        layers += [keras.layers.Dense(128, activation="tanh") for _ in range(12)]
    else:
        layers = [keras.Input(shape=(256,)), keras.layers.Dense(8 * 768, activation="tanh"),
                  keras.layers.Reshape((8, 768))]
        layers += [keras.layers.Dense(768, activation="tanh") for _ in range(4)]
    layers += [keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)]
    keras.Sequential(layers).save(path)


def config_for(path, steps):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        config = json.load(f)
    config["FCNAgents"].update({"class": "KerasAgent", "numAgents": 20, "modelPath": path})
    config["simulation"]["sessions"] = [config["simulation"]["sessions"][1]]
    config["simulation"]["sessions"][0].update(sessionName=0, iterationSteps=steps,
                                               maxNormalOrders=CALLS)
    config["simulation"].update(numParallel=WORKERS, tensorflowIntraOpThreads=1,
                                tensorflowInterOpThreads=1)
    return config


class Clock(pams_cpp.logs.Logger):
    """When each step ended."""

    def __init__(self):
        super().__init__()
        self.ends = []

    def process_market_step_end_log(self, log):
        self.ends.append(time.perf_counter())


def timed(runner_class, config):
    """(seconds of the steps after the 20th, seconds until the 20th ended)"""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clock = Clock()
        runner = runner_class(settings=copy.deepcopy(config), prng=random.Random(1),
                              logger=clock)
        runner.class_register(KerasAgent)
        start = time.perf_counter()
        runner.main()
        return clock.ends[-1] - clock.ends[19], clock.ends[19] - start


def bare_process(cpu, connection, config):
    """A process pinned to `cpu` making CALLS / WORKERS model calls each
    time it is told to."""
    os.sched_setaffinity(0, {cpu})
    configure_tensorflow(config)
    path = config["FCNAgents"]["modelPath"]
    prng = random.Random(cpu)
    for _ in range(20):
        ask_model(path, 300.0, prng)
    connection.send_bytes(b"ready")
    while connection.recv_bytes() == b"go":
        for _ in range(CALLS // WORKERS):
            ask_model(path, 300.0, prng)
        connection.send_bytes(b"done")


class BareProcesses:
    """WORKERS spawned processes on CPUs of their own, released together
    each step: how this machine scales the calls without a runner."""

    def __init__(self, config):
        context = multiprocessing.get_context("spawn")
        cpus = sorted(os.sched_getaffinity(0))
        self.connections, self.processes = [], []
        for k in range(WORKERS):
            ours, theirs = context.Pipe()
            process = context.Process(target=bare_process,
                                      args=(cpus[k % len(cpus)], theirs, config))
            process.start()
            self.connections.append(ours)
            self.processes.append(process)
        for connection in self.connections:
            connection.recv_bytes()

    def timed(self, steps):
        start = time.perf_counter()
        for _ in range(steps):
            for connection in self.connections:
                connection.send_bytes(b"go")
            for connection in self.connections:
                connection.recv_bytes()
        return time.perf_counter() - start

    def close(self):
        for connection in self.connections:
            connection.send_bytes(b"stop")
        for process in self.processes:
            process.join()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--models", default="small,wide",
                        help="comma-separated, of: " + ", ".join(MODELS))
    args = parser.parse_args()
    for kind in args.models.split(","):
        measure(kind, args)


def measure(kind, args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.keras")
        config = config_for(path, 20 + args.steps)
        configure_tensorflow(config)  # before TensorFlow runs here
        make_model(path, kind)
        # One call of the model, as an agent makes it (after a warm-up).
        prng = random.Random(0)
        for _ in range(20):
            ask_model(path, 300.0, prng)
        start = time.perf_counter()
        for _ in range(200):
            ask_model(path, 300.0, prng)
        call = (time.perf_counter() - start) / 200
        unpinned = copy.deepcopy(config)
        unpinned["simulation"]["workerCpuAffinity"] = False
        bare = BareProcesses(config)
        runs, startups = [], []
        try:
            for _ in range(args.repeats):
                seq, seq_start = timed(SequentialRunner, config)
                par, par_start = timed(Loading, config)
                free, _ = timed(Loading, unpinned)
                runs.append((seq, par, free, bare.timed(args.steps)))
                startups.append(par_start - seq_start)
        finally:
            bare.close()
        seq, par, free, bare_time = (statistics.median(r[i] for r in runs) for i in range(4))
        ratio = statistics.median(r[0] / r[1] for r in runs)
        free_ratio = statistics.median(r[0] / r[2] for r in runs)
        bare_ratio = statistics.median(r[0] / r[3] for r in runs)
        share = statistics.median(r[3] / r[1] for r in runs)
        print(f"Keras model \"{kind}\" ({MODELS[kind]}), {call * 1e3:.2f} ms a call, "
              f"{args.steps} steps x {CALLS} calls, medians of {args.repeats} paired runs:\n"
              f"  SequentialRunner {seq:.2f} s; TensorFlowAgentParallelRunner (2 spawned "
              f"workers) pinned {par:.2f} s, speedup {ratio:.2f}x [target >= 1.7x]; "
              f"unpinned {free:.2f} s, {free_ratio:.2f}x\n"
              f"  2 bare pinned processes making the same calls (how this machine scales them) "
              f"{bare_time:.2f} s, {bare_ratio:.2f}x: the pinned runner runs at {share:.2f} of "
              f"their speed; the workers' start-up {statistics.median(startups):.1f} s")


if __name__ == "__main__":
    main()
