"""ArbitrageAgent: trades an index market against its components (PAMS's
``pams.agents.ArbitrageAgent``), run by the engine. Its parameters are
PAMS's attributes (``order_volume``, ``order_threshold_price``,
``order_time_length``), read-only."""
from .base import _BuiltinAgent
from .high_frequency_agent import HighFrequencyAgent


class ArbitrageAgent(_BuiltinAgent, HighFrequencyAgent):
    """PAMS's ArbitrageAgent (a high-frequency agent)."""

    _engine_base = "ArbitrageAgent"

    @property
    def order_volume(self) -> int:
        """The volume of each component order (orderVolume)."""
        return self._engine.arbitrage_parameters[0]

    @property
    def order_threshold_price(self) -> float:
        """The gap between index and components that triggers orders."""
        return self._engine.arbitrage_parameters[1]

    @property
    def order_time_length(self) -> int:
        """The orders' ttl (orderTimeLength)."""
        return self._engine.arbitrage_parameters[2]

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__module__}.{self.__class__.__name__} | id={self.agent_id}, "
            f"rnd={self.prng}, order_volume={self.order_volume}, "
            f"order_threshold_price={self.order_threshold_price}, "
            f"order_time_length={self.order_time_length}>"
        )


__all__ = ["ArbitrageAgent"]
