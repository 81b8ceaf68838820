"""MarketShareFCNAgent: an FCNAgent that picks its market by recent
executed volume (PAMS's ``pams.agents.MarketShareFCNAgent``)."""
from typing import List

from .fcn_agent import FCNAgent


class MarketShareFCNAgent(FCNAgent):
    """PAMS's MarketShareFCNAgent."""

    _engine_base = "MarketShareFCNAgent"

    def submit_orders(self, markets: List["Market"]) -> List:  # noqa: F821
        """The engine's MarketShareFCNAgent orders."""
        return self._engine._base_submit_orders(list(markets))


__all__ = ["MarketShareFCNAgent"]
