"""MarketMakerAgent: a high-frequency agent quoting both sides (PAMS's
``pams.agents.MarketMakerAgent``)."""
from .base import _BuiltinAgent
from .high_frequency_agent import HighFrequencyAgent


class MarketMakerAgent(_BuiltinAgent, HighFrequencyAgent):
    """PAMS's MarketMakerAgent."""

    _engine_base = "MarketMakerAgent"
    _engine_calls = ("get_base_price",)

    def get_base_price(self, markets):
        """The mean of the highest best buy and the lowest best sell price of
        the markets (None when either side is empty everywhere)."""
        return self._engine._get_base_price(markets)


__all__ = ["MarketMakerAgent"]
