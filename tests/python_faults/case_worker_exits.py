"""A worker that exits (os._exit(3) in an agent): named, with its status.

Expect: SimulationError: failed: its process exited with status 3
"""
import os

import faultcase
import pams_cpp


class Quitter(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 110:
            os._exit(3)
        return super().submit_orders(markets)


if __name__ == "__main__":
    faultcase.runner("MultiProcessAgentParallelRunner",
                     faultcase.config(agent_class="Quitter", start_method="spawn",
                                      workerTimeout=30), [Quitter]).main()
