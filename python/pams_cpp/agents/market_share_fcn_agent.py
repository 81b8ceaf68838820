"""MarketShareFCNAgent: an FCNAgent that picks its market by recent
executed volume (PAMS's ``pams.agents.MarketShareFCNAgent``)."""
from typing import List

from .._attributes import engine_methods
from .fcn_agent import FCNAgent


class MarketShareFCNAgent(FCNAgent):
    """An FCNAgent that chooses its market by recent trading (PAMS's
    ``pams.agents.MarketShareFCNAgent``), run by the engine.

    It places its FCN order in one of its accessible markets, chosen at
    random with weights given by each market's executed volume over the
    last ``timeWindowSize`` steps. Config keys: FCNAgent's.
    """

    _engine_base = "MarketShareFCNAgent"
    # PAMS's submit_orders draws its market from self.get_prng(): an override
    # would change the draws, which the engine's code makes from self.prng.
    _engine_calls = ("get_sum_trade_volume", "get_prng", "is_finite", "is_market_accessible")

    def get_sum_trade_volume(self, market) -> int:
        """A market's executed volume over the agent's recent steps.

        Args:
            market (Market): the market.

        Returns:
            int: the volume executed over the last timeWindowSize steps.
        """
        return self._engine._get_sum_trade_volume(market)

    def submit_orders(self, markets: List["Market"]) -> List:  # noqa: F821
        """The agent's orders for this step: an FCN order in a market chosen
        by recent executed volume (the engine's code).

        Args:
            markets (List[Market]): the simulation's markets.

        Returns:
            List[Order | Cancel]: the orders.
        """
        return self._engine._base_submit_orders(list(markets))


engine_methods(MarketShareFCNAgent, ("submit_orders",))

__all__ = ["MarketShareFCNAgent"]
