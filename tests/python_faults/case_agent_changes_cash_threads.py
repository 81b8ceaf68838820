"""An agent that changes its cash in submit_orders under a parallel
runner: refused, naming the agent and the contract.

Expect: SimulationError: it changed its cash, asset volumes or accessible markets
"""
import faultcase
import pams_cpp


class Payer(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        self.update_cash_amount(-1.0)
        return super().submit_orders(markets)


faultcase.runner("MultiThreadAgentParallelRunner", faultcase.config(agent_class="Payer"),
                 [Payer]).main()
