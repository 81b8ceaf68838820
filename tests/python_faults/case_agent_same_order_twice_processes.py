"""The same Order object twice in one list, from a worker process:
refused as under SequentialRunner.

Expect: ValueError: the order is already submitted (the same Order object is more than once
"""
import faultcase
import pams_cpp
from pams_cpp import LIMIT_ORDER, Order


class Twice(pams_cpp.agents.Agent):
    def submit_orders(self, markets):
        order = Order(agent_id=self.agent_id, market_id=0, is_buy=True, kind=LIMIT_ORDER,
                      volume=1, price=290.0)
        return [order, order]


if __name__ == "__main__":
    faultcase.runner("MultiProcessAgentParallelRunner",
                     faultcase.config(agent_class="Twice", start_method="fork"), [Twice]).main()
