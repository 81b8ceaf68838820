"""Runs of agents whose model calls are batched (pams_cpp.agents.ModelCall),
with a TensorFlow (Keras, eager), PyTorch or JAX model, each in a process
of its own: `PAMS_TEST_FRAMEWORK=tf|torch|jax python batched_runs.py MODE
OUT [ARGS]` writes what the run left as JSON to OUT. For the batched tests
of tests/python_tf, python_torch and python_jax, run in their venvs
(framework_suite.batched_case; framework_suite.py, beside this script, has
the command line, the config and the run).

The model is the seed's pattern: a module-level functools.lru_cache
function loads it once per process, so every agent's call names the same
model object and a round's calls are one batch. Its input row, built from
the market and the agent's prng, is of the framework's own tensor type
(numpy for Keras), so that run_batch stacks each framework's rows.

MODE: sequential (SequentialRunner), parallel N METHOD (the framework's
agent-parallel runner, numParallel N, start method METHOD), unbatched
(SequentialRunner with batchModelCalls false), bits (whether a batch of 12
rows gives each row's single-row output bit for bit)."""
import functools
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import framework_suite as suite  # noqa: E402
import pams_cpp  # noqa: E402
from pams_cpp.agents import ModelCall  # noqa: E402
from pams_cpp.runners import SequentialRunner  # noqa: E402

# The framework: PAMS_TEST_FRAMEWORK, which the workers inherit too.
FRAMEWORK = os.environ.get("PAMS_TEST_FRAMEWORK")
FRAMEWORKS = ("tf", "torch", "jax")
FEATURES = 4


@functools.lru_cache(maxsize=None)
def model():
    if FRAMEWORK == "tf":
        import keras

        keras.utils.set_random_seed(0)
        net = keras.Sequential([keras.Input(shape=(FEATURES,)),
                                keras.layers.Dense(32, activation="tanh"),
                                keras.layers.Dense(1)])
        return net
    if FRAMEWORK == "torch":
        import torch

        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.Tanh(),
                                  torch.nn.Linear(32, 1))
        net.requires_grad_(False)
        return net.eval()
    import jax
    import jax.numpy as jnp

    k1, k2 = jax.random.split(jax.random.PRNGKey(0))
    w1 = jax.random.normal(k1, (FEATURES, 32)) * 0.5
    w2 = jax.random.normal(k2, (32, 1)) * 0.5

    @jax.jit
    def predict(x):
        return jnp.tanh(x @ w1) @ w2

    return predict


def row(values):
    """The framework's tensor of one row."""
    if FRAMEWORK == "torch":
        import torch

        return torch.tensor(values, dtype=torch.float32)
    if FRAMEWORK == "jax":
        import jax.numpy as jnp

        return jnp.asarray(values, dtype=jnp.float32)
    return np.asarray([values], dtype=np.float32)  # (1, features), as Keras users write


class BatchedAgent(pams_cpp.agents.Agent):
    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings, accessible_markets_ids)
        self.outputs = []

    def prepare_model_calls(self, markets):
        market = markets[0]
        return ModelCall(model(), row([market.get_market_price() / 300.0 - 1.0,
                                       self.prng.random(), self.prng.gauss(0.0, 1.0),
                                       market.get_time() / 600.0]))

    def submit_orders_with_model_outputs(self, markets, outputs):
        market = markets[0]
        y = float(outputs[0][0])
        self.outputs.append(y)
        is_buy = y > 0
        price = market.get_market_price() * (1.0 + (0.01 if is_buy else -0.01) * min(1.0, abs(y)))
        return [pams_cpp.Order(agent_id=self.agent_id, market_id=market.market_id,
                               is_buy=is_buy, kind=pams_cpp.LIMIT_ORDER, volume=1,
                               price=price, ttl=20)]


def config(num_parallel=1, **simulation):
    defaults = {}
    if FRAMEWORK == "tf":
        defaults = {"tensorflowIntraOpThreads": 1, "tensorflowInterOpThreads": 1}
    return suite.config("BatchedAgents", {"class": "BatchedAgent", "numAgents": 12,
                                          "markets": ["Market"], "assetVolume": 50,
                                          "cashAmount": 10000},
                        num_parallel, base=None, fcn_agents=20, steps=(30, 120),
                        defaults=defaults, **simulation)


def parallel_runner():
    from pams_cpp import runners

    return {"tf": runners.TensorFlowAgentParallelRunner, "torch": runners.TorchAgentParallelRunner,
            "jax": runners.JaxAgentParallelRunner}[FRAMEWORK]


def run(runner_class, c):
    if FRAMEWORK == "tf":
        # This process's TensorFlow as the workers' (the batched calls run
        # here).
        from pams_cpp.runners import configure_tensorflow

        configure_tensorflow(c)
    runner, result = suite.run(runner_class, c, BatchedAgent)
    result["calls"] = sum(len(getattr(a, "outputs", [])) for a in runner.simulator.agents)
    # A parallel runner keeps the workers it started: none, since every
    # call of these agents (batched, or built-in FCNAgents) runs here.
    result["kept_worker_sets"] = pams_cpp._core.kept_worker_sets()
    return result


def bits():
    """Whether model(batch of 12 rows) equals, bit for bit, each row's
    model(row); and the largest difference."""
    from pams_cpp.agents.model_call import run_batch

    rng = np.random.default_rng(0)
    rows = [row(list(map(float, rng.normal(size=FEATURES)))) for _ in range(12)]
    batched = np.stack([np.asarray(o) for o in run_batch([ModelCall(model(), r) for r in rows])])
    single = np.stack([np.asarray(run_batch([ModelCall(model(), r)])[0]) for r in rows])
    return {"same": bool(np.array_equal(batched.view(np.uint32), single.view(np.uint32))),
            "max_diff": float(np.max(np.abs(batched.astype(np.float64) - single)))}


if __name__ == "__main__":
    if FRAMEWORK not in FRAMEWORKS:
        sys.exit(f"PAMS_TEST_FRAMEWORK must be one of {', '.join(FRAMEWORKS)}, got {FRAMEWORK!r}")
    suite.main({
        "sequential": lambda: run(SequentialRunner, config()),
        "unbatched": lambda: run(SequentialRunner, config(batchModelCalls=False)),
        "parallel": lambda n, method: run(parallel_runner(), config(int(n), startMethod=method)),
        "bits": bits,
    })
