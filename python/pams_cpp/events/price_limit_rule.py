"""PriceLimitRule (PAMS's ``pams.events.PriceLimitRule``): orders in the
target markets priced beyond ``triggerChangeRate`` of the reference price
are moved to the limit. The engine runs it; a Python subclass may override
its hooks and call them with super()."""
from .base import BuiltinEvent
from .base import engine_attribute


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

    trigger_change_rate = engine_attribute("trigger_change_rate")
    is_enabled = engine_attribute("is_enabled")
    activation_count = engine_attribute("activation_count", "How many orders the rule moved (pams-cpp's addition).")


__all__ = ["PriceLimitRule"]
