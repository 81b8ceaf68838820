"""Runners: build a simulation from a config and run it (PAMS's
``pams.runners``), on the C++ engine.

* SequentialRunner: PAMS's runner; PAMS 0.3.0's results bit for bit.
* MultiThreadAgentParallelRunner, MultiProcessAgentParallelRunner: the
  normal agents' ``submit_orders`` calls of a round on threads or in worker
  processes, with SequentialRunner's results.
* TensorFlowAgentParallelRunner, TorchAgentParallelRunner,
  JaxAgentParallelRunner (PAMS's development branch): the process runner
  with workers prepared for agents that call these frameworks; their
  modules, and the frameworks, are imported only when asked for.
* shutdown_workers(): ends the worker processes kept for later runs;
  configure_tensorflow(config): TensorFlow in this process as in the
  TensorFlow runner's workers.

Every runner takes ``(settings, prng=None, logger=None,
simulator_class=Simulator)`` and runs with ``main()``.
"""
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
