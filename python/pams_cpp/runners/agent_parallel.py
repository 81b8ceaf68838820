"""The agent-parallel runners (PAMS's ``pams.runners.agent_parallel``): the
normal agents' ``submit_orders`` calls of a step run in parallel, and the
results are exactly SequentialRunner's for the same config and seed.

Each step the agents are asked in SequentialRunner's shuffled order, in
rounds of the next ``maxNormalOrders - orders so far`` agents: exactly the
agents SequentialRunner would ask, so nothing is speculative and nothing is
rolled back, and their orders are committed in that order. Everything else
(order handling, executions, high-frequency agents, events, loggers) stays
on the simulation's thread. Config keys (in ``"simulation"``):
``numParallel`` (workers, default: CPUs - 1), and for processes
``startMethod`` (``"spawn"``, ``"forkserver"`` or ``"fork"``, default
``default_start_method``) and ``workerTimeout`` (seconds, default 0: none).

MultiThreadAgentParallelRunner runs the calls on threads of the engine.
Python agents run there too, and give SequentialRunner's results, but a
Python ``submit_orders`` holds the GIL: Python code of different agents
never runs at the same time, so CPU-bound Python agents gain nothing, and
only code that releases the GIL (numpy on large arrays, TensorFlow, PyTorch,
the engine's own agents) runs in parallel.

MultiProcessAgentParallelRunner runs the calls in worker processes, each
with a replica of the simulation kept in step by a journal of changes (no
pickling of the simulation per task). From Python it runs the engine's
classes (the built-in agents, markets and events, and plugins'), with every
start method; Python classes in worker processes are not supported yet, and
registering one says so: use MultiThreadAgentParallelRunner for them.

A subclass may override ``_get_worker_initializer()`` and
``_get_worker_initargs()``: the initializer is called with the initargs once
in each worker before its first task (in each thread of the thread runner),
e.g. to load a model into a cache.
"""
import os
import sys
from typing import Any
from typing import Callable
from typing import Optional
from typing import Tuple
from typing import Type

from .sequential import SequentialRunner


class MultiThreadAgentParallelRunner(SequentialRunner):
    """SequentialRunner with the normal agents' calls of a round on
    ``numParallel`` threads (see the module's doc)."""

    _engine_class = "MultiThreadAgentParallelRunner"

    def _get_worker_initializer(self) -> Optional[Callable[..., None]]:
        """A function called once in each worker before its first task, with
        ``_get_worker_initargs()``; None (the default): nothing."""
        return None

    def _get_worker_initargs(self) -> Tuple[Any, ...]:
        """The arguments of the worker initializer (default: none)."""
        return ()

    def _setup(self) -> None:
        initializer = self._get_worker_initializer()
        if initializer is not None:
            if not callable(initializer):
                raise TypeError("_get_worker_initializer() must return a callable or None, "
                                f"got {initializer!r}")
            args = tuple(self._get_worker_initargs())
            self._core.set_worker_initializer(lambda: initializer(*args))
        super()._setup()


class MultiProcessAgentParallelRunner(MultiThreadAgentParallelRunner):
    """SequentialRunner with the normal agents' calls of a round in
    ``numParallel`` worker processes (see the module's doc)."""

    _engine_class = "MultiProcessAgentParallelRunner"
    # The start method when the config sets no simulation.startMethod.
    default_start_method: Optional[str] = "fork"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.default_start_method not in ("spawn", "forkserver", "fork"):
            raise ValueError(f"{type(self).__name__}.default_start_method must be \"spawn\", "
                             f"\"forkserver\" or \"fork\", got {self.default_start_method!r}")
        # simulation.startMethod in the config wins.
        self._core.set_start_method(self.default_start_method)
        # "spawn" and "forkserver" start this Python with the engine's worker.
        package_parent = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        self._core.set_worker_program(sys.executable, [
            sys.executable, "-c",
            f"import sys; sys.path.insert(0, {package_parent!r}); "
            "from pams_cpp import _core; _core._serve_worker()"])

    def class_register(self, cls: Type) -> None:
        """Refuses Python classes: worker processes run the engine's classes
        only (for now)."""
        if isinstance(cls, type) and "_engine_base" not in vars(cls):
            raise NotImplementedError(
                f"{type(self).__name__} cannot run the Python class {cls.__name__} in worker "
                "processes yet: use MultiThreadAgentParallelRunner, which runs Python classes "
                "with SequentialRunner's results")
        super().class_register(cls)

    def _setup(self) -> None:
        if self._get_worker_initializer() is not None:
            raise NotImplementedError(
                f"{type(self).__name__}: a worker initializer in Python needs Python in the "
                "worker processes, which this version does not have: use "
                "MultiThreadAgentParallelRunner")
        super()._setup()


__all__ = ["MultiProcessAgentParallelRunner", "MultiThreadAgentParallelRunner"]
