"""SequentialRunner: every agent is called in turn (PAMS's SequentialRunner)."""
from .base import Runner


class SequentialRunner(Runner):
    """PAMS's sequential runner, on the C++ engine."""

    _engine_class = "SequentialRunner"


__all__ = ["SequentialRunner"]
