"""ArbitrageAgent: trades an index market against its components (PAMS's
``pams.agents.ArbitrageAgent``), run by the engine. Its parameters are
PAMS's attributes (``order_volume``, ``order_threshold_price``,
``order_time_length``), read-only (assigning one raises
AttributeError naming the config key to set instead)."""
from .._attributes import refuse_assignments
from .base import ENGINE_PARAMETER
from .base import _BuiltinAgent
from .high_frequency_agent import HighFrequencyAgent


class ArbitrageAgent(_BuiltinAgent, HighFrequencyAgent):
    """An arbitrageur between an index market and its components (PAMS's
    ``pams.agents.ArbitrageAgent``), run by the engine.

    A high-frequency agent: when an index market's price and the index of
    its components' prices differ by more than ``orderThresholdPrice``, it
    sells the dearer side and buys the cheaper one. Config keys:
    ``orderVolume`` (int), ``orderThresholdPrice``, ``orderTimeLength``
    (int; default 1) and ``cashAmount``, ``assetVolume`` as every agent.
    """

    _engine_base = "ArbitrageAgent"
    # PAMS's ArbitrageAgent's own helpers, which its code (C++ here) calls.
    _engine_calls = ("_submit_orders", "is_market_accessible")

    @property
    def order_volume(self) -> int:
        """int: the volume of each of its orders (the config's orderVolume)."""
        return self._engine.arbitrage_parameters[0]

    @property
    def order_threshold_price(self) -> float:
        """float: the gap between the index market's price and its
        components' index that triggers orders (orderThresholdPrice)."""
        return self._engine.arbitrage_parameters[1]

    @property
    def order_time_length(self) -> int:
        """int: the orders' time to live in steps (the config's
        orderTimeLength)."""
        return self._engine.arbitrage_parameters[2]

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__module__}.{self.__class__.__name__} | id={self.agent_id}, "
            f"rnd={self.prng}, order_volume={self.order_volume}, "
            f"order_threshold_price={self.order_threshold_price}, "
            f"order_time_length={self.order_time_length}>"
        )


refuse_assignments(ArbitrageAgent, ENGINE_PARAMETER)

__all__ = ["ArbitrageAgent"]
