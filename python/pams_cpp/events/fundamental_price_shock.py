"""FundamentalPriceShock (PAMS's ``pams.events.FundamentalPriceShock``): at
``triggerTime`` (from its session's start) the target market's fundamental
price is multiplied by 1 + ``priceChangeRate`` for ``shockTimeLength``
steps. The engine runs it; a Python subclass may override its methods and
call them with super()."""
from .base import BuiltinEvent
from .base import engine_attribute


class FundamentalPriceShock(BuiltinEvent):
    """A shock to one market's fundamental price (PAMS's
    ``pams.events.FundamentalPriceShock``).

    Config keys: ``target`` (the market's name), ``triggerTime`` (steps
    from its session's start), ``priceChangeRate`` (the fundamental price is
    multiplied by 1 + this), ``shockTimeLength`` (default 1) and
    ``enabled`` (default true). Built by the runner from the config, or by
    hand with EventABC's arguments.
    """

    _engine_base = "FundamentalPriceShock"

    def hooked_before_step_for_market(self, simulator, market) -> None:
        """At the trigger time, multiplies the target market's fundamental
        price by 1 + price_change_rate (the engine's code; a subclass may
        call it with super()).

        Args:
            simulator (Simulator): the simulator.
            market (Market): the market whose step begins.
        """
        self._engine._base_hooked_step_for_market(True, market)

    @property
    def target_market(self):
        """Market | None: the market shocked (the config's target; None
        before setup)."""
        return self._market(self._state("target_market_id"))

    @property
    def target_market_name(self):
        """str | None: the name of the market shocked (None before setup)."""
        market = self.target_market
        return None if market is None else market.name

    trigger_time = engine_attribute(
        "trigger_time", "int: the step of the shock (the session's start plus triggerTime).")
    price_change_rate = engine_attribute(
        "price_change_rate", "float: the fundamental price is multiplied by 1 + this rate.")
    is_enabled = engine_attribute(
        "is_enabled", "bool: whether the shock happens (the config's enabled).")
    shock_time_length = engine_attribute(
        "shock_time_length", "int: the steps the shock lasts (shockTimeLength, default 1).")


__all__ = ["FundamentalPriceShock"]
