"""Agents holding megabytes (a bytearray and a numpy array: 1 MB each, and
10 MB each) under the process runner, numParallel 2, maxNormalOrders 4:
no deadlock (it deadlocked from 0.3 MB), and SequentialRunner's results
under fork, spawn and forkserver.

Expect: ok
Timeout: 60
"""
import numpy

import faultcase
import pams_cpp
from pams_cpp.logs.market_step_loggers import MarketStepSaver


class Hoarder(pams_cpp.agents.FCNAgent):
    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings, accessible_markets_ids, *args, **kwargs)
        self.history = bytearray(settings["stateBytes"])
        self.prices = numpy.zeros(settings["stateBytes"] // 8)
        self.calls = 0

    def submit_orders(self, markets):
        self.calls += 1
        self.history[self.calls] = self.calls % 251
        self.prices[self.calls] = markets[0].get_market_price()
        if self.history[self.calls // 2] % 3 == 0:
            return []
        return super().submit_orders(markets)


def run(kind, state_bytes, steps, **extra):
    settings = faultcase.config(steps=steps, first_steps=5, **extra)
    settings["Hoarders"] = dict(settings["FCNAgents"], **{"class": "Hoarder", "numAgents": 3,
                                                          "stateBytes": state_bytes})
    settings["FCNAgents"]["numAgents"] = 20
    settings["simulation"]["agents"] = ["FCNAgents", "Hoarders"]
    saver = MarketStepSaver()
    faultcase.runner(kind, settings, [Hoarder], logger=saver).main()
    return [log["market_price"] for log in saver.market_step_logs]


if __name__ == "__main__":
    for state_bytes, steps, methods in ((1_000_000, 40, ("fork", "spawn", "forkserver")),
                                        (10_000_000, 15, ("fork",))):
        expected = run("SequentialRunner", state_bytes, steps)
        for method in methods:
            got = run("MultiProcessAgentParallelRunner", state_bytes, steps, start_method=method)
            assert got == expected, (state_bytes, method)
    print("OK")
