"""Runs of a Keras agent for test_tensorflow_runner.py, each in a process
of its own (TensorFlow is configured once per process, before it runs):
`python tf_runs.py MODE OUT MODEL [ARGS]` writes what the run left as JSON
to OUT (the command line, config and run are the framework suites' shared
ones: tests/framework_suite/framework_suite.py).

The agent asks a small Keras model (MODEL, which the mode make_model
writes), loaded once per process through a functools.lru_cache function,
for the price of each order, with inputs drawn from its prng; it records
every output and the thread counts its process runs TensorFlow with."""
import functools
import os
import sys

import pams_cpp
from pams_cpp.runners import SequentialRunner
from pams_cpp.runners import TensorFlowAgentParallelRunner
from pams_cpp.runners import configure_tensorflow

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "framework_suite"))
import framework_suite as suite  # noqa: E402


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

    suite.record_load()
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
    return suite.config("KerasAgents", {"class": "KerasAgent", "numAgents": 10,
                                        "modelPath": model_path},
                        num_parallel, start_method,
                        defaults={"tensorflowIntraOpThreads": 1, "tensorflowInterOpThreads": 1},
                        **simulation)


def run(runner_class, c):
    runner, result = suite.run(runner_class, c, KerasAgent)
    result["threads"] = sorted({tuple(a.threads) for a in runner.simulator.agents
                                if hasattr(a, "threads")})
    return result


def sequential(model_path):
    c = config(model_path, 1)
    configure_tensorflow(c)
    return run(SequentialRunner, c)


def parallel(model_path, num_parallel, method):
    return run(Loading, config(model_path, int(num_parallel), method))


def fork_after_tensorflow(model_path):
    model(model_path)  # TensorFlow runs here first
    try:
        run(TensorFlowAgentParallelRunner, config(model_path, 2, "fork"))
        return {"error": None}
    except pams_cpp.SimulationError as e:
        return {"error": str(e)}


def interrupted_then_failed(model_path):
    """Ctrl-C while the spawned workers start (importing TensorFlow, loading
    the model): stopped within 0.1 s; then a run whose Keras agent fails in
    a worker: its own error. The test checks that the interpreter then
    exits without nanobind's leak report."""
    import signal
    import threading
    import time

    import tensorflow  # noqa: F401 (imported before the clock starts)

    sent = []
    # Spawned workers take seconds to import TensorFlow: 1 s in, they are
    # starting.
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
    return {"stopped": stopped, "failed": failed, "signal_after": sent[0] - started}


def bad_keys(model_path):
    return {"errors": suite.refused(TensorFlowAgentParallelRunner, [
        (f"{key}={value!r}", config(model_path, 2, **{key: value}))
        for key, value in (("tensorflowIntraOpThreads", 0), ("tensorflowInterOpThreads", 1.5),
                           ("tensorflowGpuMemoryGrowth", "yes"))])}


if __name__ == "__main__":
    suite.main({"make_model": lambda model_path: make_model(model_path) or {},
                "sequential": sequential, "parallel": parallel,
                "fork_after_tensorflow": fork_after_tensorflow,
                "interrupted_then_failed": interrupted_then_failed, "bad_keys": bad_keys})
