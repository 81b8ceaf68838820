"""Runners controlling the simulation flow (PAMS's ``pams.runners``)."""
from .agent_parallel import MultiProcessAgentParallelRunner
from .agent_parallel import MultiThreadAgentParallelRunner
from .base import Runner
from .sequential import SequentialRunner


def __getattr__(name):
    # The TensorFlow runner imports nothing of TensorFlow until it is
    # created, but its module is loaded only when asked for.
    if name in ("TensorFlowAgentParallelRunner", "configure_tensorflow"):
        from . import tensorflow_parallel

        return getattr(tensorflow_parallel, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "MultiProcessAgentParallelRunner",
    "MultiThreadAgentParallelRunner",
    "Runner",
    "SequentialRunner",
    "TensorFlowAgentParallelRunner",
    "configure_tensorflow",
]
