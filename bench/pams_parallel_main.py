"""Times a few steps of the parallel_main model on the reference PAMS (run in
.venv-ref by bench/parallel_main_bench.py, which prints the results).

PAMS's development branch, which the sample comes from, does not install
here, so this runs PAMS 0.3.0 with the sample's WorkloadFCNAgent as a user
class written here after the branch's description: the workload prices a
call by Euler paths on ``random.Random(f"{agent_id}:{market_id}:{time}")``
and throws the price away, then the agent places FCNAgent's orders for the
market with probability ``orderRate``. It is the same model and the same
work per agent as pams-cpp's built-in WorkloadFCNAgent; PAMS 0.3.0's market
matching differs from the branch's (the branch's is the one its docs time).

Usage: pams_parallel_main.py CONFIG STEPS [RUNNER] -> one JSON line:
{"steps": n, "seconds": [time of each step], "setup": seconds}.
"""
import json
import math
import random
import sys
import time
import warnings

from pams.agents import FCNAgent
from pams.runners import MultiProcessAgentParallelRunner
from pams.runners import MultiThreadAgentParallelRunner
from pams.runners import SequentialRunner
from pams.utils import JsonRandom


def monte_carlo(prng, n_samples, n_steps, s=100.0, k=100.0, r=0.1, v=0.3, t=3.0):
    dt = t / n_steps
    sqrt_dt = math.sqrt(dt)
    total = 0.0
    for _ in range(n_samples):
        price = s
        for _ in range(n_steps):
            price += price * r * dt + price * prng.gauss(0.0, 1.0) * v * sqrt_dt
        total += max(price - k, 0.0)
    return math.exp(-r * t) * total / n_samples


class WorkloadFCNAgent(FCNAgent):
    """The parallel_main sample's agent, on PAMS 0.3.0 (see the module)."""

    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings=settings, accessible_markets_ids=accessible_markets_ids)
        self.order_rate = (JsonRandom(prng=self.prng).random(settings["orderRate"])
                           if "orderRate" in settings else 0.1)
        self.bs_workload = settings.get("bsWorkload", False)
        self.bs_n_samples = settings.get("bsNumSamples", 0)
        self.bs_n_steps = settings.get("bsNumSteps", 0)

    def submit_orders_by_market(self, market):
        if not self.is_market_accessible(market_id=market.market_id):
            return []
        if self.bs_workload:
            prng = random.Random(f"{self.agent_id}:{market.market_id}:{market.get_time()}")
            monte_carlo(prng, self.bs_n_samples, self.bs_n_steps)
        if self.order_rate < 1.0 and self.prng.random() > self.order_rate:
            return []
        return super().submit_orders_by_market(market=market)


RUNNERS = {
    "SequentialRunner": SequentialRunner,
    "MultiThreadAgentParallelRunner": MultiThreadAgentParallelRunner,
    "MultiProcessAgentParallelRunner": MultiProcessAgentParallelRunner,
}


def main():
    path, steps = sys.argv[1], int(sys.argv[2])
    runner_name = sys.argv[3] if len(sys.argv) > 3 else "SequentialRunner"
    with open(path) as f:
        config = json.load(f)
    config["simulation"]["sessions"][0]["iterationSteps"] = steps
    seconds = []

    class Timed(RUNNERS[runner_name]):
        def _update_markets(self, session):
            start = time.perf_counter()
            super()._update_markets(session)
            seconds.append(time.perf_counter() - start)

    warnings.simplefilter("ignore")
    runner = Timed(settings=config, prng=random.Random(1))
    runner.class_register(WorkloadFCNAgent)
    start = time.perf_counter()
    runner._setup()
    setup = time.perf_counter() - start
    runner._run()
    print(json.dumps({"steps": steps, "seconds": seconds, "setup": setup}))


if __name__ == "__main__":
    main()
