"""An Order whose price was set to "abc" after it was made: the engine
names the field.

Expect: SimulationError: an order's price must be a number or None, got 'abc' (str)
"""
import faultcase
import pams_cpp
from pams_cpp import LIMIT_ORDER, Order


class Texty(pams_cpp.agents.Agent):
    def submit_orders(self, markets):
        order = Order(agent_id=self.agent_id, market_id=0, is_buy=True, kind=LIMIT_ORDER,
                      volume=1, price=290.0)
        order.price = "abc"
        return [order]


faultcase.runner("SequentialRunner", faultcase.config(agent_class="Texty"), [Texty]).main()
