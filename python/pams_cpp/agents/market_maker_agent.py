"""MarketMakerAgent: a high-frequency agent quoting both sides (PAMS's
``pams.agents.MarketMakerAgent``)."""
from .._attributes import refuse_assignments
from .base import ENGINE_PARAMETER
from .base import _BuiltinAgent
from .high_frequency_agent import HighFrequencyAgent


class MarketMakerAgent(_BuiltinAgent, HighFrequencyAgent):
    """A market maker (PAMS's ``pams.agents.MarketMakerAgent``), run by the
    engine: a high-frequency agent that quotes a buy and a sell order around
    a base price in its target market (get_base_price, else the target's
    market price).

    Config keys: ``targetMarket`` (a market's name), ``netInterestSpread``
    (the spread between its quotes, as a rate of the target's fundamental
    price),
    ``orderTimeLength`` (the quotes' time to live; default 2) and
    ``cashAmount``, ``assetVolume`` as every agent.
    """

    _engine_base = "MarketMakerAgent"
    _engine_calls = ("get_base_price", "is_market_accessible")

    def get_base_price(self, markets):
        """The price the quotes are placed around: the mean of the highest
        best buy price and the lowest best sell price over the markets.

        Args:
            markets (List[Market]): the markets to look at.

        Returns:
            float | None: the base price; None when either side is empty in
            every market.
        """
        return self._engine._get_base_price(markets)

    @property
    def target_market(self):
        """Market: the market it quotes in (the config's targetMarket)."""
        market_id = self._engine.market_maker_parameters[0]
        if market_id < 0:
            raise AttributeError(f"{type(self).__name__}.target_market: not set up yet")
        return self.simulator.id2market[market_id]

    @property
    def net_interest_spread(self) -> float:
        """float: the spread between its quotes, as a rate of the target's
        fundamental price (the config's netInterestSpread)."""
        return self._engine.market_maker_parameters[1]

    @property
    def order_time_length(self) -> int:
        """int: its quotes' time to live in steps (orderTimeLength)."""
        return self._engine.market_maker_parameters[2]


refuse_assignments(MarketMakerAgent, ENGINE_PARAMETER)

__all__ = ["MarketMakerAgent"]
