"""Runners controlling the simulation flow (PAMS's ``pams.runners``)."""
from .agent_parallel import MultiProcessAgentParallelRunner
from .agent_parallel import MultiThreadAgentParallelRunner
from .base import Runner
from .sequential import SequentialRunner

__all__ = [
    "MultiProcessAgentParallelRunner",
    "MultiThreadAgentParallelRunner",
    "Runner",
    "SequentialRunner",
]
