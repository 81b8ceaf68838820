"""Runs of an agent that calls a jitted JAX function, each in a process of
its own: `python jax_runs.py MODE OUT [ARGS]` writes what the run left as
JSON to OUT. The function's parameters come from a module-level
functools.lru_cache function (once per process); its inputs from the
agent's prng; the agent records every output and how its process's JAX is
configured."""
import copy
import functools
import json
import os
import random
import sys

import pams_cpp
from pams_cpp.runners import JaxAgentParallelRunner
from pams_cpp.runners import SequentialRunner

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@functools.lru_cache(maxsize=None)
def parameters():
    import jax
    import jax.numpy as jnp

    log = os.environ.get("PAMS_TEST_LOADS")
    if log:
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
    key = jax.random.PRNGKey(0)
    return jax.random.normal(key, (8, 3)), jnp.linspace(-1.0, 1.0, 8)


@functools.lru_cache(maxsize=None)
def predict():
    import jax
    import jax.numpy as jnp

    @jax.jit
    def f(w, v, x):
        return jnp.dot(v, jnp.tanh(w @ x))

    return f


class JaxAgent(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        import jax
        import jax.numpy as jnp

        market = markets[0]
        w, v = parameters()
        x = jnp.array([market.get_market_price() / 300.0 - 1.0, self.prng.random(),
                       self.prng.gauss(0.0, 1.0)], dtype=jnp.float32)
        y = float(predict()(w, v, x))
        self.outputs = getattr(self, "outputs", []) + [y]
        self.config = (jax.config.jax_platforms, os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE"))
        is_buy = y > 0
        price = market.get_market_price() * (1.0 + (0.01 if is_buy else -0.01) * min(1.0, abs(y)))
        return [pams_cpp.Order(agent_id=self.agent_id, market_id=market.market_id,
                               is_buy=is_buy, kind=pams_cpp.LIMIT_ORDER, volume=1,
                               price=price, ttl=20)]


class Loading(JaxAgentParallelRunner):
    def _get_worker_initializer(self):
        return parameters


def config(num_parallel, start_method=None, **simulation):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        c = json.load(f)
    c["JaxAgents"] = dict(copy.deepcopy(c["FCNAgents"]), **{"class": "JaxAgent", "numAgents": 10})
    c["FCNAgents"]["numAgents"] = 30
    c["simulation"]["agents"].append("JaxAgents")
    c["simulation"]["sessions"][1]["iterationSteps"] = 150
    c["simulation"]["sessions"][1]["maxNormalOrders"] = 4
    c["simulation"].update(numParallel=num_parallel, jaxPlatforms="cpu")
    c["simulation"].update(simulation)
    if start_method:
        c["simulation"]["startMethod"] = start_method
    return c


def run(runner_class, c, seed=3):
    saver = pams_cpp.logs.MarketStepSaver()
    runner = runner_class(settings=copy.deepcopy(c), prng=random.Random(seed), logger=saver)
    runner.class_register(JaxAgent)
    runner.main()
    return {
        "logs": [repr(sorted(log.items())) for log in saver.market_step_logs],
        "agents": [repr((a.name, a.cash_amount, a.asset_volumes.get(0),
                         getattr(a, "outputs", None))) for a in runner.simulator.agents],
        "config": sorted({tuple(a.config) for a in runner.simulator.agents
                          if hasattr(a, "config")}),
        "prng": repr(runner._prng.getstate()),
    }


def main():
    mode, out = sys.argv[1:3]
    rest = sys.argv[3:]
    if mode == "sequential":
        result = run(SequentialRunner, config(1))
    elif mode == "parallel":
        result = run(Loading, config(int(rest[0]), rest[1]))
    elif mode == "bad_keys":
        errors = []
        for key, value in (("jaxPlatforms", ""), ("jaxPreallocate", 1), ("jaxMemoryFraction", 1.5)):
            try:
                JaxAgentParallelRunner(settings=config(2, **{key: value}))
            except pams_cpp.ConfigError as e:
                errors.append(str(e))
        result = {"errors": errors}
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
