"""TradingHaltRule (PAMS's ``pams.events.TradingHaltRule``): when a target
market's price moves beyond ``triggerChangeRate`` (times the activations so
far) of the reference price, every target market halts for
``haltingTimeLength`` steps. The engine runs it; a Python subclass may
override its hooks and call them with super()."""
from .base import BuiltinEvent
from .base import engine_attribute


class TradingHaltRule(BuiltinEvent):
    """A circuit breaker."""

    _engine_base = "TradingHaltRule"

    def hooked_after_execution(self, simulator, execution_log) -> None:
        """Starts a halt when the price moved too far (the engine's code)."""
        self._engine._base_hooked_after_execution(execution_log)

    def hooked_before_step_for_market(self, simulator, market) -> None:
        """Ends a halt whose time is up (the engine's code)."""
        self._engine._base_hooked_step_for_market(True, market)

    @property
    def target_markets(self):
        return self._markets(self._state("target_market_ids"))

    @property
    def halted_markets(self):
        return list(self._markets(self._state("halted_market_ids")).values())

    trigger_change_rate = engine_attribute("trigger_change_rate")
    halting_time_length = engine_attribute("halting_time_length")
    halting_time_started = engine_attribute("halting_time_started")
    is_enabled = engine_attribute("is_enabled")
    is_halting = engine_attribute("is_halting")
    activation_count = engine_attribute("activation_count")


__all__ = ["TradingHaltRule"]
