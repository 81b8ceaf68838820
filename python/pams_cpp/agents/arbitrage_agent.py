"""ArbitrageAgent: trades an index market against its components (PAMS's
``pams.agents.ArbitrageAgent``)."""
from .base import _BuiltinAgent


class ArbitrageAgent(_BuiltinAgent):
    """PAMS's ArbitrageAgent."""

    _engine_base = "ArbitrageAgent"


__all__ = ["ArbitrageAgent"]
