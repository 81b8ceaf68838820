"""Runs of a Keras agent, each in a process of its own (TensorFlow is
configured once per process, before it runs): `python tf_runs.py MODE OUT
[ARGS]` writes what the run left as JSON to OUT.

The agent asks a small Keras model, loaded once per process through a
functools.lru_cache function, for the price of each order, with inputs
drawn from its prng; it records every output and the thread counts its
process runs TensorFlow with."""
import copy
import functools
import json
import os
import random
import sys

import pams_cpp
from pams_cpp.runners import MultiProcessAgentParallelRunner
from pams_cpp.runners import SequentialRunner
from pams_cpp.runners import TensorFlowAgentParallelRunner
from pams_cpp.runners import configure_tensorflow

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_model(path):
    import keras
    import numpy as np

    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(32, activation="tanh"),
                              keras.layers.Dense(1)])
    model(np.zeros((1, 4), dtype="float32"))
    model.save(path)


@functools.lru_cache(maxsize=None)
def model(path):
    import keras

    log = os.environ.get("PAMS_TEST_LOADS")
    if log:
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
    return keras.models.load_model(path)


class KerasAgent(pams_cpp.agents.FCNAgent):
    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings=settings, accessible_markets_ids=accessible_markets_ids)
        self.model_path = settings["modelPath"]
        self.outputs = []

    def submit_orders(self, markets):
        import numpy as np
        import tensorflow as tf

        market = markets[0]
        x = np.array([[market.get_market_price() / 300.0 - 1.0, self.prng.random(),
                       self.prng.gauss(0.0, 1.0), market.get_time() / 600.0]], dtype="float32")
        y = float(model(self.model_path)(x, training=False).numpy()[0, 0])
        self.outputs.append(y)
        self.threads = (tf.config.threading.get_intra_op_parallelism_threads(),
                        tf.config.threading.get_inter_op_parallelism_threads())
        is_buy = y > 0
        price = market.get_market_price() * (1.0 + (0.01 if is_buy else -0.01) * abs(y))
        return [pams_cpp.Order(agent_id=self.agent_id, market_id=market.market_id,
                               is_buy=is_buy, kind=pams_cpp.LIMIT_ORDER, volume=1,
                               price=price, ttl=20)]


class Loading(TensorFlowAgentParallelRunner):
    def _get_worker_initializer(self):
        return model

    def _get_worker_initargs(self):
        return (self.settings["KerasAgents"]["modelPath"],)


def config(model_path, num_parallel, start_method=None, **simulation):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        c = json.load(f)
    c["KerasAgents"] = dict(copy.deepcopy(c["FCNAgents"]), **{
        "class": "KerasAgent", "numAgents": 10, "modelPath": model_path})
    c["FCNAgents"]["numAgents"] = 30
    c["simulation"]["agents"].append("KerasAgents")
    c["simulation"]["sessions"][1]["iterationSteps"] = 150
    c["simulation"]["sessions"][1]["maxNormalOrders"] = 4
    c["simulation"].update(numParallel=num_parallel, tensorflowIntraOpThreads=1,
                           tensorflowInterOpThreads=1)
    c["simulation"].update(simulation)
    if start_method:
        c["simulation"]["startMethod"] = start_method
    return c


def run(runner_class, c, seed=3):
    saver = pams_cpp.logs.MarketStepSaver()
    runner = runner_class(settings=copy.deepcopy(c), prng=random.Random(seed), logger=saver)
    runner.class_register(KerasAgent)
    runner.main()
    return {
        "logs": [repr(sorted(log.items())) for log in saver.market_step_logs],
        "agents": [repr((a.name, a.cash_amount, a.asset_volumes.get(0),
                         getattr(a, "outputs", None))) for a in runner.simulator.agents],
        "threads": sorted({tuple(a.threads) for a in runner.simulator.agents
                           if hasattr(a, "threads")}),
        "prng": repr(runner._prng.getstate()),
    }


def main():
    mode, out, model_path = sys.argv[1:4]
    rest = sys.argv[4:]
    if mode == "make_model":
        make_model(model_path)
        result = {}
    elif mode == "sequential":
        c = config(model_path, 1)
        configure_tensorflow(c)
        result = run(SequentialRunner, c)
    elif mode == "parallel":
        num_parallel, method = int(rest[0]), rest[1]
        result = run(Loading, config(model_path, num_parallel, method))
    elif mode == "fork_after_tensorflow":
        model(model_path)  # TensorFlow runs here first
        try:
            run(TensorFlowAgentParallelRunner, config(model_path, 2, "fork"))
            result = {"error": None}
        except pams_cpp.SimulationError as e:
            result = {"error": str(e)}
    elif mode == "interrupted_then_failed":
        # Ctrl-C while the spawned workers start (importing TensorFlow,
        # loading the model): stopped within 0.1 s; then a run whose Keras
        # agent fails in a worker: its own error. The harness checks that
        # the interpreter then exits without nanobind's leak report.
        import signal
        import threading
        import time

        import tensorflow  # noqa: F401 (imported before the clock starts)

        sent = []
        # Spawned workers take seconds to import TensorFlow: 1 s in, they
        # are starting.
        threading.Timer(1.0, lambda: (sent.append(time.monotonic()),
                                      os.kill(os.getpid(), signal.SIGINT))).start()
        started = time.monotonic()
        try:
            run(Loading, config(model_path, 2, "spawn"))
            stopped = None
        except KeyboardInterrupt:
            stopped = time.monotonic() - sent[0]
        failed = None
        missing = config(model_path, 2, "spawn")
        missing["KerasAgents"]["modelPath"] = os.path.join(os.path.dirname(model_path),
                                                           "missing.keras")
        try:
            run(Loading, missing)
        except Exception as e:  # noqa: BLE001 (the type is what is checked)
            failed = type(e).__name__ + ": " + str(e)
        result = {"stopped": stopped, "failed": failed, "signal_after": sent[0] - started}
    elif mode == "bad_keys":
        errors = []
        for key, value in (("tensorflowIntraOpThreads", 0), ("tensorflowInterOpThreads", 1.5),
                           ("tensorflowGpuMemoryGrowth", "yes")):
            try:
                TensorFlowAgentParallelRunner(settings=config(model_path, 2, **{key: value}))
            except pams_cpp.ConfigError as e:
                errors.append(str(e))
        result = {"errors": errors}
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
