"""Runners controlling the simulation flow (PAMS's ``pams.runners``)."""
from .agent_parallel import MultiProcessAgentParallelRunner
from .agent_parallel import MultiThreadAgentParallelRunner
from .agent_parallel import shutdown_workers
from .base import Runner
from .sequential import SequentialRunner


def __getattr__(name):
    # The TensorFlow, PyTorch and JAX runners import their framework when
    # they are created; their modules are loaded only when asked for.
    if name in ("TensorFlowAgentParallelRunner", "configure_tensorflow"):
        from . import tensorflow_parallel

        return getattr(tensorflow_parallel, name)
    if name == "TorchAgentParallelRunner":
        from .torch_parallel import TorchAgentParallelRunner

        return TorchAgentParallelRunner
    if name == "JaxAgentParallelRunner":
        from .jax_parallel import JaxAgentParallelRunner

        return JaxAgentParallelRunner
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "MultiProcessAgentParallelRunner",
    "MultiThreadAgentParallelRunner",
    "Runner",
    "SequentialRunner",
    "JaxAgentParallelRunner",
    "TensorFlowAgentParallelRunner",
    "TorchAgentParallelRunner",
    "configure_tensorflow",
    "shutdown_workers",
]
