"""FCNAgent: the fundamental, chart and noise trader (PAMS's
``pams.agents.FCNAgent``), run by the engine.

Its parameters are PAMS's attributes (``fundamental_weight``,
``time_window_size``, ``margin_type``, ...), read-only: assigning one
raises AttributeError (set the config key instead). A subclass may
override ``submit_orders`` or ``submit_orders_by_market``; ``super()`` calls
reach the engine's FCNAgent.
"""
from typing import List

from .._attributes import engine_methods
from .._attributes import refuse_assignments
from .base import ENGINE_PARAMETER
from .base import _BuiltinAgent

MARGIN_FIXED = 0
MARGIN_NORMAL = 1

_PARAMETERS = (
    "fundamental_weight",
    "chart_weight",
    "noise_weight",
    "noise_scale",
    "time_window_size",
    "order_margin",
    "margin_type",
    "mean_reversion_time",
    "is_chart_following",
)


def _parameter(index: int, name: str) -> property:
    return property(lambda self: self._engine.fcn_parameters[index],
                    doc=f"PAMS's FCNAgent.{name} (set by setup from the config).")


class FCNAgent(_BuiltinAgent):
    """The fundamental, chart and noise trader (PAMS's
    ``pams.agents.FCNAgent``), run by the engine.

    Each step it forms an expected log return mixing three views, weighted
    by its parameters: the fundamentalist's (the market price reverts to the
    fundamental price over ``meanReversionTime`` steps), the chartist's (the
    mean log return of the last ``timeWindowSize`` steps goes on) and noise
    (a normal draw scaled by ``noiseScale``). It then places one limit order
    of volume 1 around the expected price, living ``timeWindowSize`` steps.

    Config keys (each a number or a JsonRandom distribution, drawn once per
    agent): ``fundamentalWeight``, ``chartWeight``, ``noiseWeight``,
    ``noiseScale``, ``timeWindowSize`` and ``orderMargin`` (required);
    ``marginType`` (``"fixed"``, the default, or ``"normal"``),
    ``meanReversionTime`` (default: timeWindowSize); and ``cashAmount``,
    ``assetVolume`` as every agent. The parameters are read-only attributes
    of the same names in snake case (``fundamental_weight``, ...).

    Note:
        The orders are the engine's; a Python subclass may override
        ``submit_orders`` or ``submit_orders_by_market`` and reach the
        engine's through ``super()``.
    """

    _engine_base = "FCNAgent"
    # What its own code calls (in C++ here): a subclass overriding one is
    # refused by class_register, since the engine would not call the override.
    _engine_calls = ("is_finite", "is_market_accessible")

    def is_finite(self, x: float) -> bool:
        """Whether a value is a real number: neither NaN nor infinite.

        Args:
            x (float): the value.

        Returns:
            bool: True for a finite x.
        """
        return x == x and x not in (float("inf"), float("-inf"))

    def submit_orders(self, markets: List["Market"]) -> List:  # noqa: F821
        """The agent's orders for this step: those submit_orders_by_market
        makes for each market, in the markets' order.

        Args:
            markets (List[Market]): the simulation's markets.

        Returns:
            List[Order | Cancel]: the orders.
        """
        return sum([self.submit_orders_by_market(market=market) for market in markets], [])

    def submit_orders_by_market(self, market: "Market") -> List:  # noqa: F821
        """The agent's orders for one market (the engine's FCN rule).

        Args:
            market (Market): the market.

        Returns:
            List[Order | Cancel]: one limit order, or none when the market is
            not accessible to the agent.
        """
        return self._engine._base_submit_orders_by_market(market)

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__module__}.{self.__class__.__name__} | id={self.agent_id}, "
            f"rnd={self.prng}, fundamental_weight={self.fundamental_weight}, "
            f"chart_weight={self.chart_weight}, noise_weight={self.noise_weight}, "
            f"margin_type={'MARGIN_FIXED' if self.margin_type == MARGIN_FIXED else 'MARGIN_NORMAL'}, "
            f"mean_reversion_time:{self.mean_reversion_time}, noise_scale={self.noise_scale}, "
            f"time_window_size={self.time_window_size}, order_margin={self.order_margin}>"
        )


for _index, _name in enumerate(_PARAMETERS):
    setattr(FCNAgent, _name, _parameter(_index, _name))
refuse_assignments(FCNAgent, ENGINE_PARAMETER)
engine_methods(FCNAgent, ("submit_orders", "submit_orders_by_market"))

__all__ = ["FCNAgent", "MARGIN_FIXED", "MARGIN_NORMAL"]
