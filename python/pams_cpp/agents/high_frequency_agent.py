"""HighFrequencyAgent: the base of agents that act after every batch of
normal orders (PAMS's ``pams.agents.HighFrequencyAgent``; abstract)."""
from .base import Agent


class HighFrequencyAgent(Agent):
    """An agent asked for orders after each batch of normal orders."""

    _engine_base = "HighFrequencyAgent"


__all__ = ["HighFrequencyAgent"]
