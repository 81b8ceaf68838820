"""An Order with price "abc": the field is named, with what it must be.

Expect: TypeError: Order: price must be a number or None, got str 'abc'
"""
import faultcase
import pams_cpp
from pams_cpp import LIMIT_ORDER, Order


class Texty(pams_cpp.agents.Agent):
    def submit_orders(self, markets):
        return [Order(agent_id=self.agent_id, market_id=0, is_buy=True, kind=LIMIT_ORDER,
                      volume=1, price="abc")]


faultcase.runner("SequentialRunner", faultcase.config(agent_class="Texty"), [Texty]).main()
