"""A worker stopped by SIGSTOP (a debugger, a job control mistake): the
workerTimeout ends the run and the stopped worker is killed.

Expect: SimulationError: it did not answer within 1 s (simulation.workerTimeout)
"""
import os
import signal

import faultcase
import pams_cpp


class Frozen(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 110:
            os.kill(os.getpid(), signal.SIGSTOP)
        return super().submit_orders(markets)


if __name__ == "__main__":
    faultcase.runner("MultiProcessAgentParallelRunner",
                     faultcase.config(agent_class="Frozen", start_method="fork",
                                      workerTimeout=1), [Frozen]).main()
