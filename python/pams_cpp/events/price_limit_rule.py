"""PriceLimitRule (PAMS's ``pams.events.PriceLimitRule``): orders in the
target markets priced beyond ``triggerChangeRate`` of the reference price
are moved to the limit. The engine runs it; a Python subclass may override
its hooks and call them with super()."""
from .base import BuiltinEvent
from .base import engine_attribute


class PriceLimitRule(BuiltinEvent):
    """A price band around the reference price (PAMS's
    ``pams.events.PriceLimitRule``): orders priced beyond it are moved to its
    edge.

    Config keys: ``targetMarkets`` (market names), ``triggerChangeRate``
    (the band's half width, as a rate of the reference price) and
    ``enabled`` (default true).
    """

    _engine_base = "PriceLimitRule"
    _engine_calls = ("get_limited_price",)

    def hooked_before_order(self, simulator, order) -> None:
        """Moves a limit order's price into the band before it reaches its
        market (the engine's code; a subclass may call it with super()).

        Args:
            simulator (Simulator): the simulator.
            order (Order): the order, whose price is changed in place.
        """
        self._engine._base_hooked_before_order(order)

    def get_limited_price(self, order, market):
        """The price an order gets under the rule: its own, or the band's edge
        when it lies beyond it.

        Args:
            order (Order): the order.
            market (Market): its market (the reference price is this
                market's price at the session's start).

        Returns:
            float | None: the limited price (None for a market order).
        """
        return self._engine._limited_price(order.price, market)

    @property
    def target_markets(self):
        """Dict[str, Market]: the markets under the rule, by name."""
        return self._markets(self._state("target_market_ids"))

    trigger_change_rate = engine_attribute(
        "trigger_change_rate", "float: the band's half width, as a rate of the reference price.")
    is_enabled = engine_attribute(
        "is_enabled", "bool: whether the rule applies (the config's enabled).")
    activation_count = engine_attribute("activation_count", "How many orders the rule moved (pams-cpp's addition).")


__all__ = ["PriceLimitRule"]
