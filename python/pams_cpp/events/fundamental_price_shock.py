"""FundamentalPriceShock (PAMS's ``pams.events.FundamentalPriceShock``): at
``triggerTime`` (from its session's start) the target market's fundamental
price is multiplied by 1 + ``priceChangeRate`` for ``shockTimeLength``
steps. The engine runs it; a Python subclass may override its methods and
call them with super()."""
from .base import BuiltinEvent
from .base import engine_attribute


class FundamentalPriceShock(BuiltinEvent):
    """A shock to one market's fundamental price."""

    _engine_base = "FundamentalPriceShock"

    def hooked_before_step_for_market(self, simulator, market) -> None:
        """Applies the shock at the trigger time (the engine's code)."""
        self._engine._base_hooked_step_for_market(True, market)

    @property
    def target_market(self):
        return self._market(self._state("target_market_id"))

    @property
    def target_market_name(self):
        market = self.target_market
        return None if market is None else market.name

    trigger_time = engine_attribute("trigger_time")
    price_change_rate = engine_attribute("price_change_rate")
    is_enabled = engine_attribute("is_enabled")
    shock_time_length = engine_attribute("shock_time_length")


__all__ = ["FundamentalPriceShock"]
