"""Runners controlling the simulation flow (PAMS's ``pams.runners``)."""
from .base import Runner
from .sequential import SequentialRunner

__all__ = ["Runner", "SequentialRunner"]
