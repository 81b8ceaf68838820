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
``default_start_method``), ``workerTimeout`` (seconds, default 0: none)
and ``workerCpuAffinity`` (``true``: each worker on its own share of the
CPUs this process may run on; ``false``: no pinning; or each worker's CPUs,
``[0, 1]`` or ``[[0, 1], [2, 3]]``; default ``default_worker_cpu_affinity``,
False here and True for the TensorFlow runner). Pinning matters for
frameworks whose model calls hop between threads: unpinned, two such
workers on two cores keep trading cores and caches. It does not change
results; it assumes the CPUs are this run's (two pinned runs on one machine
share the same CPUs).

MultiThreadAgentParallelRunner runs the calls on threads of the engine.
Python agents run there too, and give SequentialRunner's results, but a
Python ``submit_orders`` holds the GIL: Python code of different agents
never runs at the same time, so CPU-bound Python agents gain nothing, and
only code that releases the GIL (numpy on large arrays, TensorFlow, PyTorch,
the engine's own agents) runs in parallel.

MultiProcessAgentParallelRunner runs the calls in worker processes, each
with a replica of the simulation kept in step by a journal of changes (no
pickling of the simulation per task). With Python classes, a worker is a
Python interpreter: "spawn" starts a fresh one that imports the main module
as multiprocessing's spawn does (so ``if __name__ == "__main__":`` scripts
work), "forkserver" forks workers from one such fresh process, "fork" forks
the main process. The classes travel by value (cloudpickle), so classes
defined in ``__main__`` or in a notebook reach the workers too. A task sends
the agent's own fields and returns its orders and all its fields (so an
agent may change its fields in ``submit_orders``); a class limits what
travels with ``__getstate__``/``__setstate__``. Orders an agent keeps stay
the main process's objects.

Worker processes are kept after a run for the process's later runners of
the same worker set-up, as joblib's reusable executor keeps its workers: the
same runner class, start method, number of workers at once, CPUs,
environment, worker initializer and main module. A later run reuses them
(each run builds its own replica; the process was prepared, and its
initializer run, once), so a loop over seeds in a notebook starts workers
once. They end after ``simulation.workerIdleTimeout`` seconds unused
(default 300; 0: workers end with their run), at interpreter exit, or when
the program says so: ``pams_cpp.runners.shutdown_workers()`` ends them all,
``runner.close()`` (or leaving ``with runner:``) those of the runner's
set-up. A kept worker keeps the modules it imported: after editing a module
of your agents, call ``shutdown_workers()``.

Until a worker is ready, the main process runs the rounds itself (and it
runs every round of a single agent), when it is prepared as the workers
are: no worker initializer, no ``workerTimeout`` (only a worker can be
timed out), and what the runner class checks in
``_main_process_can_run_tasks()`` (the TensorFlow runner configures this
process's TensorFlow as its workers'). Results do not depend on where a
task runs. ``simulation.runRoundsWhileWorkersStart`` false turns this off;
``simulation.workerStartTimeout`` (seconds, default 120) bounds a worker's
start (the import of the main module and of the agents' modules).

A subclass may override ``_get_worker_initializer()`` and
``_get_worker_initargs()``: the initializer is called with the initargs once
in each worker before its first task (in each thread of the thread runner),
e.g. to load a model into a cache.
"""
import atexit
import hashlib
import os
import sys
from typing import Any
from typing import Callable
from typing import Dict
from typing import Optional
from typing import Tuple
from typing import Type

from .. import _core
from .sequential import SequentialRunner


def shutdown_workers() -> None:
    """Ends every worker process kept for later runs (see the module's doc),
    now instead of after ``simulation.workerIdleTimeout`` or at exit."""
    _core.shutdown_workers()


# Workers exit with the interpreter anyway (they die with their parent);
# told to, they exit at once and cleanly.
atexit.register(shutdown_workers)

# What a Python worker that did not start in time, or died starting, adds
# to the engine's message.
_START_HINT = (
    "a Python worker imports the main module and the modules of the agents' classes before "
    "its first task, which takes seconds with TensorFlow or PyTorch: raise "
    "simulation.workerStartTimeout (seconds, default 120) if it is slow; an error it printed "
    "shows above")


def simulation_key_error(key: str, message: str) -> Exception:
    """A pams_cpp.ConfigError for simulation.<key>, as the engine's (with
    .path and .message), for the keys the framework runners read."""
    error = _core.ConfigError(f"simulation.{key}: {message}")
    error.path, error.message = f"simulation.{key}", message
    return error


def concurrent_workers(settings: Dict[str, Any]) -> int:
    """How many workers a config's runs keep busy at once: min(numParallel
    (default: CPUs - 1), the largest maxNormalOrders), at least 1, as the
    engine counts them (the framework runners split the CPUs by it)."""
    simulation = settings.get("simulation", {}) if isinstance(settings, dict) else {}
    num_parallel = simulation.get("numParallel", max(1, (os.cpu_count() or 1) - 1))
    orders = [s.get("maxNormalOrders", 1) for s in simulation.get("sessions", [])
              if isinstance(s, dict)]
    return max(1, min(num_parallel if isinstance(num_parallel, int) else 1,
                      max(orders, default=1)))


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
    # Whether workers are pinned to CPUs when the config sets no
    # simulation.workerCpuAffinity (see the module's doc).
    default_worker_cpu_affinity: bool = False

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.default_start_method not in ("spawn", "forkserver", "fork"):
            raise ValueError(f"{type(self).__name__}.default_start_method must be \"spawn\", "
                             f"\"forkserver\" or \"fork\", got {self.default_start_method!r}")
        if not isinstance(self.default_worker_cpu_affinity, bool):
            raise ValueError(f"{type(self).__name__}.default_worker_cpu_affinity must be True or "
                             f"False, got {self.default_worker_cpu_affinity!r}")
        # simulation.startMethod and simulation.workerCpuAffinity in the
        # config win.
        self._core.set_start_method(self.default_start_method)
        self._core.set_worker_cpu_affinity(self.default_worker_cpu_affinity)

    def _prepare_worker_process(self) -> None:
        """Runs first in each worker process, after its replica is set up and
        before the worker initializer (the TensorFlow runner configures
        TensorFlow here). Default: nothing."""

    def _get_worker_environment(self) -> Dict[str, str]:
        """Environment variables set in each worker process before anything
        else runs there (before the main module is imported). Default: none."""
        return {}

    def _worker_state(self) -> Dict[str, Any]:
        """Attributes the worker processes' runners get from this one (values
        the main process decides, e.g. PyTorch's thread count). Default: none."""
        return {}

    def _main_process_can_run_tasks(self) -> bool:
        """Whether this process is prepared as the workers are, so that it may
        run tasks itself while workers start (see the module's doc); a
        subclass may prepare it here. Default: True (the engine also asks
        that no worker initializer and no workerTimeout are set)."""
        return True

    def close(self) -> None:
        """Ends the worker processes kept for this runner's set-up (see the
        module's doc). The runner is not used up: a later run starts
        workers again."""
        self._core.close_workers()

    def __enter__(self) -> "MultiProcessAgentParallelRunner":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def _needs_python_workers(self) -> bool:
        # The engine's own workers run the engine's classes; Python classes,
        # a Python initializer or a runner subclass need Python there.
        return (bool(self.registered_classes) or self._get_worker_initializer() is not None
                or type(self) is not MultiProcessAgentParallelRunner)

    # True for the replica a worker process builds (it starts no workers).
    _in_worker = False

    def _setup(self) -> None:
        from . import _worker

        if self._in_worker:
            super()._setup()
            return
        if _worker.preparing:
            raise RuntimeError(
                "a worker process of MultiProcessAgentParallelRunner is importing the main "
                "module, which starts a run with worker processes itself: put the code that "
                "runs the simulation under if __name__ == \"__main__\":, as multiprocessing "
                "asks")
        package_parent = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        if self._needs_python_workers():
            payload, key = self._worker_payload()
            self._core.set_host_payload(payload)
            self._core.set_worker_pool_key_extra(key)
            entry = "from pams_cpp.runners import _worker; _worker.main()"
            self._core.set_worker_starter(_worker.fork_worker)
        else:
            entry = "from pams_cpp import _core; _core._serve_worker()"
        self._core.set_worker_start_hint(_START_HINT)
        simulation = self.settings.get("simulation", {})
        if simulation.get("runRoundsWhileWorkersStart", True) is not False:
            self._core.set_main_process_runs_tasks(bool(self._main_process_can_run_tasks()))
        # "spawn" and "forkserver" start this Python as a worker.
        self._core.set_worker_program(sys.executable, [
            sys.executable, "-c", f"import sys; sys.path.insert(0, {package_parent!r}); {entry}"])
        super()._setup()

    def _worker_payload(self) -> Tuple[bytes, bytes]:
        """The workers' payload, and the key of what makes a worker process
        (kept workers serve runners of equal keys)."""
        try:
            import cloudpickle
        except ImportError:
            raise ImportError(
                f"{type(self).__name__} sends Python classes to its worker processes with "
                "cloudpickle, which is not installed: pip install cloudpickle") from None
        from multiprocessing import spawn

        # What multiprocessing's spawn gives a child: sys.path, the main
        # module to import as __mp_main__, ... (not its connection key).
        from . import _worker

        preparation = spawn.get_preparation_data("pams-worker")
        preparation.pop("authkey", None)
        # A main module with no file (read from stdin, a notebook's): its
        # classes travel by value, and there is nothing to import.
        main_path = preparation.get("init_main_from_path")
        if main_path is not None and not os.path.isfile(main_path):
            del preparation["init_main_from_path"]
        environment = self._get_worker_environment()
        state = self._worker_state()
        payload = _worker.dumps_payload(preparation, environment, {
            "runner_class": type(self),
            "runner_state": state,
            "classes": list(self.registered_classes),
        })
        key = hashlib.sha256()
        key.update(_worker.dumps_payload(preparation, environment, {
            "runner_class": type(self),
            "runner_state": state,
            "initializer": self._get_worker_initializer(),
            "initargs": tuple(self._get_worker_initargs()),
        }))
        return payload, key.digest()


__all__ = ["MultiProcessAgentParallelRunner", "MultiThreadAgentParallelRunner", "shutdown_workers"]
