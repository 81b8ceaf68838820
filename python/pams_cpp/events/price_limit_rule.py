"""PriceLimitRule (PAMS's ``pams.events.PriceLimitRule``): orders in the
target markets priced beyond ``triggerChangeRate`` of the reference price
are moved to the limit. The engine runs it; a Python subclass may override
its hooks and call them with super()."""
from .base import BuiltinEvent


class PriceLimitRule(BuiltinEvent):
    """A price band around the reference price."""

    _engine_base = "PriceLimitRule"
    _engine_calls = ("get_limited_price",)

    def hooked_before_order(self, simulator, order) -> None:
        """Moves the order's price into the band (the engine's code)."""
        self._engine._base_hooked_before_order(order)

    def get_limited_price(self, order, market):
        """The order's price moved into the band (None for a market order)."""
        return self._engine._limited_price(order.price, market)

    @property
    def target_markets(self):
        return self._markets(self._state("target_market_ids"))

    @property
    def trigger_change_rate(self) -> float:
        return self._state("trigger_change_rate")

    @property
    def is_enabled(self) -> bool:
        return self._state("is_enabled")

    @property
    def activation_count(self) -> int:
        """How many orders the rule moved (pams-cpp's addition)."""
        return self._state("activation_count")


__all__ = ["PriceLimitRule"]
