"""MarketMakerAgent: a high-frequency agent quoting both sides (PAMS's
``pams.agents.MarketMakerAgent``)."""
from .base import _BuiltinAgent
from .high_frequency_agent import HighFrequencyAgent


class MarketMakerAgent(_BuiltinAgent, HighFrequencyAgent):
    """PAMS's MarketMakerAgent."""

    _engine_base = "MarketMakerAgent"


__all__ = ["MarketMakerAgent"]
