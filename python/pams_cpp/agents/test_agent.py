"""TestAgent: random limit orders around the market price (PAMS's
``pams.agents.TestAgent``)."""
from .base import _BuiltinAgent


class TestAgent(_BuiltinAgent):
    """PAMS's TestAgent."""

    _engine_base = "TestAgent"
    __test__ = False  # not a pytest test class


__all__ = ["TestAgent"]
