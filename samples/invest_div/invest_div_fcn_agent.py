"""InvestDivFCNAgent of the invest_div sample (PAMS's development branch,
after Nozaki, Mizuta and Yagi 2016): an FCNAgent under a rule for investment
diversification (``leverageRatio``, ``diversityRatio``). pams-cpp's built-in
class (include/pams/samples/invest_div_fcn_agent.h), run by the engine; this
is its Python face."""
from typing import List
from typing import Union

from pams_cpp import _core
from pams_cpp.agents import FCNAgent
from pams_cpp.order import Cancel
from pams_cpp.order import Order


class InvestDivFCNAgent(FCNAgent):
    """The invest_div sample's agent (keys: FCNAgent's, leverageRatio and
    diversityRatio)."""

    _engine_base = "InvestDivFCNAgent"

    @property
    def leverage_ratio(self) -> float:
        """The limit of the absolute position values, times the net asset value."""
        return _core._sample_agent_parameters(self._engine)["leverage_ratio"]

    @property
    def diversity_ratio(self) -> float:
        """The limit of one market's absolute position value, times the net asset value."""
        return _core._sample_agent_parameters(self._engine)["diversity_ratio"]

    def filter_markets(self, markets: List) -> List:
        """The markets this agent can trade."""
        return [m for m in markets if self.is_market_accessible(market_id=m.market_id)]

    def get_asset_value(self, market) -> float:
        """The position's value in the market (negative when short)."""
        return market.get_market_price() * self.get_asset_volume(market_id=market.market_id)

    def is_market_order_executable(self, market, is_buy: bool) -> bool:
        """Whether a market order of that side executes at once in the market."""
        if not market.is_running:
            return False
        return len(market.sell_order_book if is_buy else market.buy_order_book) > 0

    def submit_orders(self, markets: List) -> List[Union[Order, Cancel]]:
        """FCNAgent's orders under the diversification rule (the engine's)."""
        return self._engine._base_submit_orders(list(markets))


__all__ = ["InvestDivFCNAgent"]
