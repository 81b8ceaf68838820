"""OrderMistakeShock (PAMS's ``pams.events.OrderMistakeShock``): a fat
finger order. As in PAMS 0.3.0 its hook_registration registers no hook, so
it never fires unless a subclass registers one. The engine runs it; a Python
subclass may override its methods and call them with super()."""
from .base import BuiltinEvent
from .base import engine_attribute


class OrderMistakeShock(BuiltinEvent):
    """A mistaken ("fat finger") order (PAMS's
    ``pams.events.OrderMistakeShock``).

    Config keys: ``target`` (the market's name), ``triggerTime`` (steps from
    its session's start), ``priceChangeRate`` (the mistaken price's distance
    from the market price, as a rate), ``orderVolume``, ``orderTimeLength``
    and ``enabled`` (default true).

    Note:
        As in PAMS 0.3.0, its hook_registration registers no hook: it fires
        only in a subclass that registers one.
    """

    _engine_base = "OrderMistakeShock"

    def hooked_before_order(self, simulator, order) -> None:
        """At the trigger time, turns the first order for the target market
        into the mistaken one (the engine's code; a subclass may call it
        with super()).

        Args:
            simulator (Simulator): the simulator.
            order (Order): the order, changed in place.
        """
        self._engine._base_hooked_before_order(order)

    @property
    def target_market(self):
        """Market | None: the market of the mistaken order (None before
        setup)."""
        return self._market(self._state("target_market_id"))

    trigger_time = engine_attribute(
        "trigger_time", "int: the step of the mistake (the session's start plus triggerTime).")
    price_change_rate = engine_attribute(
        "price_change_rate", "float: how far from the market price the mistaken order is.")
    order_volume = engine_attribute(
        "order_volume", "int: the mistaken order's volume (the config's orderVolume).")
    order_time_length = engine_attribute(
        "order_time_length", "int: the mistaken order's time to live (orderTimeLength).")
    is_enabled = engine_attribute(
        "is_enabled", "bool: whether the mistake happens (the config's enabled).")
    triggerd = engine_attribute(
        "triggered", "bool: whether the mistaken order was placed (PAMS's spelling).")


__all__ = ["OrderMistakeShock"]
