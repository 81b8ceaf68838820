"""DarkPoolFCNAgent of the dark_pool sample (PAMS's development branch): asked
about a dark pool it can access, it decides an FCNAgent's orders for the
pool's lit market and sends each to the pool instead, as a market order,
with probability ``darkPoolChance``. pams-cpp's built-in class, run by the
engine; this is its Python face (a subclass's ``super()`` reaches it)."""
from typing import List
from typing import Union

from pams_cpp import _core
from pams_cpp.agents import FCNAgent
from pams_cpp.order import Cancel
from pams_cpp.order import Order


class DarkPoolFCNAgent(FCNAgent):
    """The dark_pool sample's agent (keys: FCNAgent's and darkPoolChance)."""

    _engine_base = "DarkPoolFCNAgent"

    @property
    def dark_pool_chance(self) -> float:
        """The probability to send an order to the dark pool."""
        return _core._sample_agent_parameters(self._engine)["dark_pool_chance"]

    def submit_orders_by_market(self, market) -> List[Union[Order, Cancel]]:
        """The orders for one market: nothing unless it is an accessible dark pool."""
        return self._engine._base_submit_orders([market])


__all__ = ["DarkPoolFCNAgent"]
