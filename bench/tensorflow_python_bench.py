#!/usr/bin/env python3
"""pams_cpp's TensorFlowAgentParallelRunner with Keras agents written in
Python against SequentialRunner, timed in this one run: the speedup of 2
spawned workers on this 2-core machine when each agent's call runs a Keras
model of a few ms (target >= 1.7x), with the workers pinned to CPUs (the
runner's default) and not pinned (simulation.workerCpuAffinity false), for
a model whose weights two workers stream from the shared cache and memory
and for one whose weights stay in each core's own L2 cache. Run in .venv-tf
with pams_cpp on the path (scripts/bench.sh does it):

    PYTHONPATH=<a directory linking pams_cpp> .venv-tf/bin/python \\
        bench/tensorflow_python_bench.py

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


@functools.lru_cache(maxsize=None)
def model(path):
    """The model, compiled into a graph (a Keras call in eager mode costs
    milliseconds by itself), once per process."""
    import keras
    import tensorflow as tf

    loaded = keras.models.load_model(path)
    return tf.function(lambda x: loaded(x, training=False))


class KerasAgent(pams_cpp.agents.FCNAgent):
    """An FCN agent that first asks a Keras model (~1 ms) about the market."""

    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings=settings, accessible_markets_ids=accessible_markets_ids)
        self.model_path = settings["modelPath"]

    def submit_orders(self, markets):
        import numpy as np

        x = np.full((1, 256), markets[0].get_market_price() / 300.0, dtype="float32")
        x[0, 0] = self.prng.random()
        model(self.model_path)(x)
        return super().submit_orders(markets)


class Loading(TensorFlowAgentParallelRunner):
    def _get_worker_initializer(self):
        return model

    def _get_worker_initargs(self):
        return (self.settings["FCNAgents"]["modelPath"],)


def make_model(path, kind):
    """A Keras file of one of two models of about 1-2 ms a call.

    "wide": python/make_tf_model.py's benchmark model, an [8, 768]
    activation through 768x768 layers (16 MB of weights: each call streams
    them from the L3 cache and memory, which two workers share).
    "cache": a [64, 128] activation through ten 128x128 layers (640 KB of
    weights, which stay in each core's own 1 MB L2 cache, as long as the
    worker stays on its core: unpinned, it scales least)."""
    import keras

    keras.utils.set_random_seed(0)
    if kind == "wide":
        layers = [keras.Input(shape=(256,)), keras.layers.Dense(8 * 768, activation="tanh"),
                  keras.layers.Reshape((8, 768))]
        layers += [keras.layers.Dense(768, activation="tanh") for _ in range(4)]
    else:
        layers = [keras.Input(shape=(256,)), keras.layers.Dense(64 * 128, activation="tanh"),
                  keras.layers.Reshape((64, 128))]
        layers += [keras.layers.Dense(128, activation="tanh") for _ in range(10)]
    layers += [keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)]
    keras.Sequential(layers).save(path)


def config_for(path, steps):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        config = json.load(f)
    config["FCNAgents"].update({"class": "KerasAgent", "numAgents": 20, "modelPath": path})
    config["simulation"]["sessions"] = [config["simulation"]["sessions"][1]]
    config["simulation"]["sessions"][0].update(sessionName=0, iterationSteps=steps,
                                               maxNormalOrders=4)
    config["simulation"].update(numParallel=2, tensorflowIntraOpThreads=1,
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    for kind in ("wide", "cache"):
        measure(kind, args)


def measure(kind, args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.keras")
        config = config_for(path, 20 + args.steps)
        configure_tensorflow(config)  # before TensorFlow runs here
        make_model(path, kind)
        # One call of the model, as an agent makes it (after a warm-up).
        import numpy as np

        x = np.zeros((1, 256), dtype="float32")
        for _ in range(20):
            model(path)(x)
        start = time.perf_counter()
        for _ in range(200):
            model(path)(x)
        call = (time.perf_counter() - start) / 200
        unpinned = copy.deepcopy(config)
        unpinned["simulation"]["workerCpuAffinity"] = False
        runs, startups = [], []
        for _ in range(args.repeats):
            seq, seq_start = timed(SequentialRunner, config)
            par, par_start = timed(Loading, config)
            free, _ = timed(Loading, unpinned)
            runs.append((seq, par, free))
            startups.append(par_start - seq_start)
        seq, par, free = (statistics.median(r[i] for r in runs) for i in range(3))
        ratio = statistics.median(r[0] / r[1] for r in runs)
        free_ratio = statistics.median(r[0] / r[2] for r in runs)
        print(f"Keras model ({kind}) of {call * 1e3:.2f} ms a call, {args.steps} steps x 4 calls: "
              f"SequentialRunner {seq:.2f} s, TensorFlowAgentParallelRunner (2 spawned "
              f"workers, pinned) {par:.2f} s, speedup {ratio:.2f}x [target >= 1.7x]; "
              f"unpinned {free:.2f} s, {free_ratio:.2f}x; the workers' start-up "
              f"{statistics.median(startups):.1f} s")


if __name__ == "__main__":
    main()
