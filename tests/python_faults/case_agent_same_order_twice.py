"""The same Order object twice in one list: refused as PAMS refuses it
(ValueError, "the order is already submitted"), never placed twice.

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


faultcase.runner("SequentialRunner", faultcase.config(agent_class="Twice"), [Twice]).main()
