"""MarketShareFCNAgent: an FCNAgent that picks its market by recent
executed volume (PAMS's ``pams.agents.MarketShareFCNAgent``)."""
from typing import List

from .fcn_agent import FCNAgent


class MarketShareFCNAgent(FCNAgent):
    """PAMS's MarketShareFCNAgent."""

    _engine_base = "MarketShareFCNAgent"
    _engine_calls = ("get_sum_trade_volume",)

    def get_sum_trade_volume(self, market) -> int:
        """The market's executed volume over the last timeWindowSize steps."""
        return self._engine._get_sum_trade_volume(market)

    def submit_orders(self, markets: List["Market"]) -> List:  # noqa: F821
        """The engine's MarketShareFCNAgent orders."""
        return self._engine._base_submit_orders(list(markets))


__all__ = ["MarketShareFCNAgent"]
