"""TradingHaltRule (PAMS's ``pams.events.TradingHaltRule``): when a target
market's price moves beyond ``triggerChangeRate`` (times the activations so
far) of the reference price, every target market halts for
``haltingTimeLength`` steps. The engine runs it; a Python subclass may
override its hooks and call them with super()."""
from .base import BuiltinEvent
from .base import engine_attribute


class TradingHaltRule(BuiltinEvent):
    """A circuit breaker (PAMS's ``pams.events.TradingHaltRule``): when a
    target market's price moves too far from the reference price, every
    target market stops executing for a while.

    Config keys: ``targetMarkets`` (market names), ``triggerChangeRate``
    (the move that halts, as a rate; the n-th halt needs n times it),
    ``haltingTimeLength`` (steps) and ``enabled`` (default true).
    """

    _engine_base = "TradingHaltRule"

    def hooked_after_execution(self, simulator, execution_log) -> None:
        """Starts a halt of every target market when the executed price moved
        beyond the trigger rate from the reference price (the engine's code;
        a subclass may call it with super()).

        Args:
            simulator (Simulator): the simulator.
            execution_log (ExecutionLog): the execution.
        """
        self._engine._base_hooked_after_execution(execution_log)

    def hooked_before_step_for_market(self, simulator, market) -> None:
        """Ends a halt whose time is up, making the halted markets run again
        (the engine's code; a subclass may call it with super()).

        Args:
            simulator (Simulator): the simulator.
            market (Market): the market whose step begins.
        """
        self._engine._base_hooked_step_for_market(True, market)

    @property
    def target_markets(self):
        """Dict[str, Market]: the markets under the rule, by name."""
        return self._markets(self._state("target_market_ids"))

    @property
    def halted_markets(self):
        """List[Market]: the markets the current halt stopped (empty when none
        is halted)."""
        return list(self._markets(self._state("halted_market_ids")).values())

    trigger_change_rate = engine_attribute(
        "trigger_change_rate", "float: the price move that halts, as a rate of the reference.")
    halting_time_length = engine_attribute(
        "halting_time_length", "int: the steps a halt lasts (the config's haltingTimeLength).")
    halting_time_started = engine_attribute(
        "halting_time_started", "int | None: the step the current halt began (None: none).")
    is_enabled = engine_attribute(
        "is_enabled", "bool: whether the rule applies (the config's enabled).")
    is_halting = engine_attribute(
        "is_halting", "bool: whether the target markets are halted now.")
    activation_count = engine_attribute(
        "activation_count", "int: how many halts the rule has started so far.")


__all__ = ["TradingHaltRule"]
