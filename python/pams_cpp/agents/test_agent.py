"""TestAgent: random limit orders around the market price (PAMS's
``pams.agents.TestAgent``)."""
from .base import _BuiltinAgent


class TestAgent(_BuiltinAgent):
    """A test agent that places random limit orders around the market price
    (PAMS's ``pams.agents.TestAgent``), run by the engine.

    Each step, in each accessible market, it buys or sells (40% each) a
    random volume at a random distance from the market price, living a
    random number of steps. Its only config keys are every agent's,
    ``cashAmount`` and ``assetVolume``.
    """

    _engine_base = "TestAgent"
    _engine_calls = ("is_market_accessible",)  # called by its code, in C++ here
    __test__ = False  # not a pytest test class


__all__ = ["TestAgent"]
