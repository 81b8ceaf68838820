"""Session: a phase of a simulation with its own rules (steps, orders,
execution)."""
from ._core import Session

__all__ = ["Session"]
