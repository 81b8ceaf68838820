"""Runs of an agent that calls a jitted JAX function, for
test_jax_runner.py, each in a process of its own: `python jax_runs.py MODE
OUT [ARGS]` writes what the run left as JSON to OUT (the command line,
config and run are the framework suites' shared ones:
tests/framework_suite/framework_suite.py). The function's parameters come
from a module-level functools.lru_cache function (once per process); its
inputs from the agent's prng; the agent records every output and how its
process's JAX is configured."""
import functools
import os
import sys

import pams_cpp
from pams_cpp.runners import JaxAgentParallelRunner
from pams_cpp.runners import SequentialRunner

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "framework_suite"))
import framework_suite as suite  # noqa: E402


@functools.lru_cache(maxsize=None)
def parameters():
    import jax
    import jax.numpy as jnp

    suite.record_load()
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
        self.config = (jax.config.jax_platforms, os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE"),
                       os.environ.get("XLA_FLAGS"))
        is_buy = y > 0
        price = market.get_market_price() * (1.0 + (0.01 if is_buy else -0.01) * min(1.0, abs(y)))
        return [pams_cpp.Order(agent_id=self.agent_id, market_id=market.market_id,
                               is_buy=is_buy, kind=pams_cpp.LIMIT_ORDER, volume=1,
                               price=price, ttl=20)]


class Loading(JaxAgentParallelRunner):
    def _get_worker_initializer(self):
        return parameters


def config(num_parallel, start_method=None, **simulation):
    return suite.config("JaxAgents", {"class": "JaxAgent", "numAgents": 10}, num_parallel,
                        start_method, defaults={"jaxPlatforms": "cpu"}, **simulation)


def run(runner_class, c):
    runner, result = suite.run(runner_class, c, JaxAgent)
    result["config"] = sorted({tuple(a.config) for a in runner.simulator.agents
                               if hasattr(a, "config")})
    return result


def bad_keys():
    return {"errors": suite.refused(JaxAgentParallelRunner, [
        (f"{key}={value!r}", config(2, **{key: value}))
        for key, value in (("jaxPlatforms", ""), ("jaxPreallocate", 1),
                           ("jaxMemoryFraction", 1.5), ("jaxDeterministicOps", "yes"))])}


if __name__ == "__main__":
    suite.main({"sequential": lambda: run(SequentialRunner, config(1)),
                "parallel": lambda n, method: run(Loading, config(int(n), method)),
                "bad_keys": bad_keys})
