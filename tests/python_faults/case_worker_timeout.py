"""A worker past simulation.workerTimeout: the run ends naming the agent
and the key, and the stuck worker is killed.

Expect: SimulationError: it did not answer within 0.5 s (simulation.workerTimeout)
"""
import time

import faultcase
import pams_cpp


class Slow(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 110:
            time.sleep(600)
        return super().submit_orders(markets)


if __name__ == "__main__":
    faultcase.runner("MultiProcessAgentParallelRunner",
                     faultcase.config(agent_class="Slow", start_method="fork",
                                      workerTimeout=0.5), [Slow]).main()
