#!/usr/bin/env python3
"""Batched model calls (pams_cpp.agents.ModelCall) against the same agents
unbatched (simulation.batchModelCalls false), in SequentialRunner: Keras
agents written the seed's way (a module-level lru_cache loads the model
once; an eager model(x, training=False) call on one row) beside 20
FCNAgents, with every agent asked each round (maxNormalOrders = the number
of Keras agents), for 12 and 100 Keras agents and an MLP of about 300k
parameters (16 -> 512 -> 512 -> 1). Whole-run times (set-up included),
medians of paired runs, and the ratio unbatched / batched. Run in .venv-tf
with pams_cpp on the path (as bench/tensorflow_python_bench.py):

    PYTHONPATH=<a directory linking pams_cpp> .venv-tf/bin/python \\
        bench/batched_model_calls_bench.py [--agents 12 100] [--steps 100] [--pairs 3]

Both sides run TensorFlow with 1 intra-op and 1 inter-op thread.
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
import time
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

import pams_cpp  # noqa: E402
from pams_cpp.agents import ModelCall  # noqa: E402
from pams_cpp.runners import SequentialRunner  # noqa: E402
from pams_cpp.runners import configure_tensorflow  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FEATURES = 16


@functools.lru_cache(maxsize=None)
def model():
    import keras

    keras.utils.set_random_seed(0)
    net = keras.Sequential([keras.Input(shape=(FEATURES,)),
                            keras.layers.Dense(512, activation="tanh"),
                            keras.layers.Dense(512, activation="tanh"), keras.layers.Dense(1)])
    net(np.zeros((1, FEATURES), dtype="float32"), training=False)
    return net


class KerasAgent(pams_cpp.agents.Agent):
    def prepare_model_calls(self, markets):
        market = markets[0]
        x = np.empty((1, FEATURES), dtype="float32")
        x[0, 0] = market.get_market_price() / 300.0 - 1.0
        x[0, 1:] = [self.prng.random() for _ in range(FEATURES - 1)]
        return ModelCall(model(), x)

    def submit_orders_with_model_outputs(self, markets, outputs):
        market = markets[0]
        y = float(outputs[0][0])
        return [pams_cpp.Order(agent_id=self.agent_id, market_id=market.market_id,
                               is_buy=y > 0, kind=pams_cpp.LIMIT_ORDER, volume=1,
                               price=market.get_market_price() * (1.0 + 0.01 * np.tanh(y)),
                               ttl=20)]


def config(agents, steps, batched):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        c = json.load(f)
    c["KerasAgents"] = {"class": "KerasAgent", "numAgents": agents, "markets": ["Market"],
                        "assetVolume": 50, "cashAmount": 10000}
    c["FCNAgents"]["numAgents"] = 20
    c["simulation"]["agents"] = ["KerasAgents", "FCNAgents"]
    c["simulation"]["sessions"] = [{
        "sessionName": 0, "iterationSteps": steps, "withOrderPlacement": True,
        "withOrderExecution": True, "withPrint": False, "maxNormalOrders": agents + 20}]
    c["simulation"].update(tensorflowIntraOpThreads=1, tensorflowInterOpThreads=1,
                           batchModelCalls=batched)
    return c


def timed(c):
    runner = SequentialRunner(settings=copy.deepcopy(c), prng=random.Random(1))
    runner.class_register(KerasAgent)
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        runner.main()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, nargs="+", default=[12, 100])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="order price does not accord")
    configure_tensorflow(config(1, 1, True))
    model()  # loaded before the clocks start
    for agents in args.agents:
        times = {True: [], False: []}
        for _ in range(args.pairs):
            for batched in (False, True):
                times[batched].append(timed(config(agents, args.steps, batched)))
        unbatched, batched = statistics.median(times[False]), statistics.median(times[True])
        print(f"batched model calls, {agents} Keras agents asked a round, {args.steps} steps: "
              f"unbatched {unbatched:.3f} s, batched {batched:.3f} s, "
              f"{unbatched / batched:.1f}x")


if __name__ == "__main__":
    main()
