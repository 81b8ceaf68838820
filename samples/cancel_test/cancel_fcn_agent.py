"""CancelFCNAgent of the cancel_test sample (PAMS's development branch,
plhamJ's CancelTest): an FCNAgent that cancels each order it places with
probability ``cancelRate`` (default 0.3) right after placing it.
pams-cpp's built-in class, run by the engine; this is its Python face."""
from typing import List
from typing import Union

from pams_cpp import _core
from pams_cpp.agents import FCNAgent
from pams_cpp.order import Cancel
from pams_cpp.order import Order

# plhamJ's CANCEL_RATE.
DEFAULT_CANCEL_RATE: float = 0.3


class CancelFCNAgent(FCNAgent):
    """The cancel_test sample's agent (keys: FCNAgent's and cancelRate)."""

    _engine_base = "CancelFCNAgent"

    @property
    def cancel_rate(self) -> float:
        """The probability to cancel each order."""
        return _core._sample_agent_parameters(self._engine)["cancel_rate"]

    def submit_orders_by_market(self, market) -> List[Union[Order, Cancel]]:
        """FCNAgent's orders for one market, then the cancels of some of them."""
        return self._engine._base_submit_orders([market])


__all__ = ["CancelFCNAgent", "DEFAULT_CANCEL_RATE"]
