"""A worker killed by SIGKILL (the OOM killer's signal): the run ends,
naming the worker, the agent, the step and the signal; nothing is left
behind.

Expect: SimulationError: failed: its process was killed by signal 9 (Killed)
"""
import os
import signal

import faultcase
import pams_cpp


class Doomed(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 110:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().submit_orders(markets)


if __name__ == "__main__":
    faultcase.runner("MultiProcessAgentParallelRunner",
                     faultcase.config(agent_class="Doomed", start_method="fork", workerTimeout=30),
                     [Doomed]).main()
