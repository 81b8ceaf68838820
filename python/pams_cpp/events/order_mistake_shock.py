"""OrderMistakeShock (PAMS's ``pams.events.OrderMistakeShock``): a fat
finger order. As in PAMS 0.3.0 its hook_registration registers no hook, so
it never fires unless a subclass registers one. The engine runs it; a Python
subclass may override its methods and call them with super()."""
from .base import BuiltinEvent
from .base import engine_attribute


class OrderMistakeShock(BuiltinEvent):
    """A mistaken order."""

    _engine_base = "OrderMistakeShock"

    def hooked_before_order(self, simulator, order) -> None:
        """Turns the first order of the target market into the mistaken one
        (the engine's code)."""
        self._engine._base_hooked_before_order(order)

    @property
    def target_market(self):
        return self._market(self._state("target_market_id"))

    trigger_time = engine_attribute("trigger_time")
    price_change_rate = engine_attribute("price_change_rate")
    order_volume = engine_attribute("order_volume")
    order_time_length = engine_attribute("order_time_length")
    is_enabled = engine_attribute("is_enabled")
    triggerd = engine_attribute("triggered", "PAMS's spelling.")


__all__ = ["OrderMistakeShock"]
