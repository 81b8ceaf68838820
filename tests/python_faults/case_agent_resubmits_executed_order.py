"""An order submitted again after it was fully executed: PAMS's refusal,
saying that it was executed.

Expect: ValueError: the order is already submitted (order
"""
import faultcase
import pams_cpp
from pams_cpp import MARKET_ORDER, Order


class Again(pams_cpp.agents.FCNAgent):
    """Buys 1 at the market the first time it is asked in the second
    session; the next time, submits that order (executed by then) again."""

    def submit_orders(self, markets):
        if markets[0].get_time() < 105:
            return super().submit_orders(markets)
        if not hasattr(self, "kept"):
            self.kept = Order(agent_id=self.agent_id, market_id=0, is_buy=True,
                              kind=MARKET_ORDER, volume=1)
        return [self.kept]


try:
    faultcase.runner("SequentialRunner", faultcase.config(agent_class="Again"), [Again]).main()
except ValueError as e:
    assert "fully executed" in str(e), e
    raise
