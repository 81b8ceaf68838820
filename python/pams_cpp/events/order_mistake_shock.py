"""OrderMistakeShock (PAMS's ``pams.events.OrderMistakeShock``): a fat
finger order. As in PAMS 0.3.0 its hook_registration registers no hook, so
it never fires unless a subclass registers one. The engine runs it; a Python
subclass may override its methods and call them with super()."""
from .base import BuiltinEvent


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

    @property
    def trigger_time(self) -> int:
        return self._state("trigger_time")

    @property
    def price_change_rate(self) -> float:
        return self._state("price_change_rate")

    @property
    def order_volume(self) -> int:
        return self._state("order_volume")

    @property
    def order_time_length(self) -> int:
        return self._state("order_time_length")

    @property
    def is_enabled(self) -> bool:
        return self._state("is_enabled")

    @property
    def triggerd(self) -> bool:
        """PAMS's spelling."""
        return self._state("triggered")


__all__ = ["OrderMistakeShock"]
