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
agent may change its fields in ``submit_orders``), or only those its class
lists in ``synced_attributes`` (PAMS's development branch: other changes
made in a worker are lost, with a warning); a class limits what travels to
the worker with ``__getstate__``/``__setstate__``. Orders an agent keeps
stay the main process's objects.

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

Every call of a Python agent runs in a worker process, as in PAMS's
runner: a call that crashes (a segfault in an extension, ``os._exit``) or
is killed takes its worker down, and the run raises a SimulationError
naming the agent and the step; the process that started the run lives on.
The main process runs only engine code: the built-in agents' calls (C++,
microseconds) and batched model calls (one call per model and round, see
``batchModelCalls``). ``simulation.runRoundsWhileWorkersStart`` true lets
the main process run calls too: until a worker is ready (a spawned worker
importing TensorFlow takes seconds), and every round of a single agent,
when it is prepared as the workers are (no worker initializer, no
``workerTimeout``, and what the runner class checks in
``_main_process_can_run_tasks()``: the TensorFlow runner configures this
process's TensorFlow as its workers'). That makes a first run faster, but a
call that crashes there ends the program (a notebook's kernel dies).
Results do not depend on where a task runs. ``simulation.workerStartTimeout``
(seconds, default 120) bounds a worker's start (the import of the main
module and of the agents' modules).

A subclass may override ``_get_worker_initializer()`` and
``_get_worker_initargs()``: the initializer is called with the initargs once
in each worker before its first task (in each thread of the thread runner),
e.g. to load a model into a cache; if it fails, the run fails with a
RuntimeError naming it, caused by its error (the branch's rule). The
branch's hooks that hand out the work (``_create_executor``,
``_split_agents_into_chunks``, ``_get_mp_context``, ...) mean nothing to
the engine, which owns its workers: overriding one is refused when the
runner is made, with a message saying what to do instead.
"""
import atexit
import os
import random
import sys
from typing import Any
from typing import Callable
from typing import Dict
from typing import List
from typing import Optional
from typing import Tuple
from typing import Type

from .. import _core
from .._attributes import Assigned
from .._attributes import fixed
from ..logs.base import Logger
from ..simulator import Simulator
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
    (default: CPUs - 1), the largest maxNormalOrders), at least 1 (the
    framework runners split the CPUs by it). The engine's rule, asked of
    the engine.

    Raises:
        pams_cpp.ConfigError: numParallel is not an int in 1..4096.
    """
    return _core.concurrency_for(settings if isinstance(settings, dict) else {})


_WORKERS_ARE_THE_ENGINES = (
    "pams_cpp's engine starts, keeps and stops the workers itself (threads of the engine, or "
    "worker processes that each keep a replica of the simulation), so there is no "
    "concurrent.futures executor to make or replace: set simulation.numParallel in the config, "
    "prepare each worker with _get_worker_initializer() and _get_worker_initargs() (and "
    "_get_worker_environment() for processes), and choose how processes start with "
    "simulation.startMethod or the class attribute default_start_method")

# The hooks of PAMS's development branch that the engine cannot honour, and
# what to do instead: a subclass overriding one is refused when it is made
# (see _refuse_hooks), since the engine would never call it.
_REFUSED_HOOKS: Dict[str, str] = {
    "_create_executor": _WORKERS_ARE_THE_ENGINES,
    "_get_executor": _WORKERS_ARE_THE_ENGINES,
    "_shutdown_executor": _WORKERS_ARE_THE_ENGINES + " (runner.close() or shutdown_workers() "
                          "ends kept worker processes)",
    "_parallel_pool_provider": _WORKERS_ARE_THE_ENGINES,
    "_split_agents_into_chunks": (
        "the engine hands each agent's call to whichever worker is free, as a task of its own "
        "(a task carries only what changed since that worker's last task, not the whole "
        "simulation, so grouping agents saves nothing), and it cannot send chosen agents to "
        "chosen workers: remove the override (the results are SequentialRunner's either way)"),
    "_receive_orders_from_worker": (
        "the engine takes an agent's orders and its generator's state back from the worker "
        "itself (cancels get the main process's orders): change what submit_orders returns, "
        "or use the agent's submitted_order, executed_order and canceled_order, which run in "
        "the main process"),
    "_warn_unsynced_changes": (
        "pams_cpp gives that warning itself, once per agent class and attribute: filter it "
        "with warnings.filterwarnings(\"ignore\", message=\"Changes to attributes not listed "
        "in synced_attributes are lost\")"),
}
_REFUSED_PROCESS_HOOKS: Dict[str, str] = {
    "_get_mp_context": (
        "the engine starts its worker processes itself, without a multiprocessing context: "
        "choose the start method with simulation.startMethod or the class attribute "
        "default_start_method (\"spawn\", \"forkserver\", \"fork\", or None for "
        "multiprocessing's default)"),
}


def _refuse_hooks(cls: type, base: type, hooks: Dict[str, str]) -> None:
    """Refuses a runner class that overrides one of `hooks` (a name: what to
    do instead), which the engine would never call (an override is
    getattr(cls, name) is not getattr(base, name): base's own definition,
    or none)."""
    for name, instead in hooks.items():
        if getattr(cls, name, None) is not getattr(base, name, None):
            # The message names the runner of pams_cpp the class derives from.
            ours = next(k for k in cls.__mro__ if k.__module__.startswith(("pams_cpp.", "pams.")))
            raise NotImplementedError(
                f"{cls.__name__} overrides {name} (a hook of PAMS's development branch), which "
                f"pams_cpp's {ours.__name__} cannot honour: {instead}")


def _callable_name(fn: Any) -> str:
    """A callable's name for messages: module.qualname where it has them."""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}" if module else name


def run_initializer(initializer: Callable[..., Any], args: Tuple[Any, ...], where: str) -> None:
    """Calls initializer(*args) in a worker (`where` names it for messages).

    Raises:
        RuntimeError: the initializer raised (any exception but a
            KeyboardInterrupt, which stays an interruption); its cause is the
            initializer's exception, as on PAMS's development branch.
    """
    try:
        initializer(*args)
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        shown = repr(args)
        if len(shown) > 80:  # arguments may be large (a model's weights)
            shown = shown[:77] + "..."
        raise RuntimeError(
            f"the worker initializer failed on this worker ({where}): "
            f"{_callable_name(initializer)}{shown} raised {type(e).__name__}: {e}") from e


class MultiThreadAgentParallelRunner(SequentialRunner):
    """SequentialRunner with the normal agents' ``submit_orders`` calls of a
    round on ``numParallel`` threads of the engine (PAMS's runner of this
    name).

    Each step the normal agents are asked in SequentialRunner's shuffled
    order, in rounds of the next ``maxNormalOrders - orders so far`` agents
    (exactly the agents SequentialRunner would ask), whose calls run at once
    on the engine's threads, the calling thread being one of them; their
    orders are committed in that order. Everything else (order handling,
    executions, high-frequency agents, events, loggers) runs on the
    simulation's thread. The results are SequentialRunner's for the same
    config and seed, bit for bit, Python classes included, as long as an
    agent's ``submit_orders`` changes only the agent itself (and draws only
    from ``self.prng``).

    Config keys read (in ``"simulation"``): ``numParallel`` (threads, an
    int in 1..4096; default: CPUs - 1, at least 1). At most
    min(numParallel, the largest ``maxNormalOrders``) calls run at once (a
    warning says so when numParallel is larger, or when nothing can run in
    parallel). ``batchModelCalls`` (bool, default true) as every runner.

    Hooks a subclass may override: ``_get_worker_initializer()`` and
    ``_get_worker_initargs()`` (a function called once in each thread, the
    calling thread included, before its first call). The other hooks of
    PAMS's development branch (``_create_executor``, ``_get_executor``,
    ``_shutdown_executor``, ``_parallel_pool_provider``,
    ``_split_agents_into_chunks``, ``_receive_orders_from_worker``,
    ``_warn_unsynced_changes``) are refused when the runner is made, with a
    message saying what to do instead: the engine owns its threads and
    hands the calls out itself.

    Args:
        settings: the config: a dict, a path (str or os.PathLike) of a JSON
            file, or an open file.
        prng (random.Random, Optional): the runner's generator (a fresh
            ``random.Random()`` when None).
        logger (Logger, Optional): a logger.
        simulator_class: the class of ``self.simulator`` (Simulator or a
            subclass).

    Raises:
        NotImplementedError: the class overrides a hook the engine cannot
            honour (see above) or a step the engine runs in C++.
        TypeError: a bad settings, prng, logger or simulator_class.

    Note:
        A Python ``submit_orders`` holds the GIL: Python code of two agents
        never runs at once, so CPU-bound Python agents gain nothing; code
        that releases the GIL (numpy on large arrays, TensorFlow, PyTorch,
        the engine's own agents) runs in parallel. A call costs what it
        costs in SequentialRunner (nothing is copied). Unlike PAMS's runner
        (a ``concurrent.futures.ThreadPoolExecutor`` of Python threads), it
        gives no "experimental" warning, and agents' ``synced_attributes``
        play no part (the agents themselves are called, as on the branch).
    """

    _engine_class = "MultiThreadAgentParallelRunner"

    @property
    def num_parallel(self) -> int:
        """int: the most calls that run at once (PAMS's attribute): the
        config's ``simulation.numParallel``, else the CPUs less one (at
        least 1). Assigning it raises AttributeError: the engine reads
        ``numParallel`` from the config when the runner sets up (set it
        there)."""
        simulation = self.settings.get("simulation") if isinstance(self.settings, dict) else None
        if isinstance(simulation, dict) and "numParallel" in simulation:
            return simulation["numParallel"]
        return max((os.cpu_count() or 1) - 1, 1)

    @num_parallel.setter
    def num_parallel(self, value: Any) -> None:
        raise AttributeError(
            f"{type(self).__name__}.num_parallel: pams_cpp's engine reads the number of "
            "workers from the config when the runner sets up, not from this attribute: set "
            "simulation.numParallel in the config (runner.settings) instead")

    @property
    def executor(self) -> None:
        """None: PAMS's ``concurrent.futures`` executor, which pams_cpp does
        not have (its engine owns its workers). Assigning anything but None
        raises AttributeError."""
        return None

    @executor.setter
    def executor(self, value: Any) -> None:
        if value is not None:
            raise AttributeError(f"{type(self).__name__}.executor: {_WORKERS_ARE_THE_ENGINES}")

    def __init__(
        self,
        settings: Any,
        prng: Optional[random.Random] = None,
        logger: Optional[Logger] = None,
        simulator_class: Type[Simulator] = Simulator,
    ) -> None:
        _refuse_hooks(type(self), MultiThreadAgentParallelRunner, _REFUSED_HOOKS)
        super().__init__(settings, prng, logger, simulator_class)

    def _get_worker_initializer(self) -> Optional[Callable[..., Any]]:
        """The function called once in each worker before its first task.

        Override it to prepare each worker, e.g. to load a model into a
        module-level cache once per worker. It is called with
        ``*self._get_worker_initargs()``: in each thread of the thread
        runner (the calling thread included), in each worker process of the
        process runners (once per process, which serves later runs of the
        same set-up too). For processes it must be picklable by cloudpickle
        (a module-level function, or one of ``__main__``).

        Returns:
            Optional[Callable[..., Any]]: the initializer; None (the
            default): nothing is called.

        Note:
            If it raises (anything but a KeyboardInterrupt), the run fails
            with a RuntimeError ("the worker initializer failed on this
            worker ...", naming the function and its arguments) whose
            ``__cause__`` is the initializer's exception (threads) or the
            worker's traceback of it (processes), as on PAMS's development
            branch; a worker process whose initializer failed serves no
            task.
        """
        return None

    def _get_worker_initargs(self) -> Tuple[Any, ...]:
        """The arguments the worker initializer is called with.

        Returns:
            Tuple[Any, ...]: the arguments (default: none).
        """
        return ()

    def _split_agents_into_chunks(self, agents: List[Any]) -> List[List[Any]]:
        """How the engine splits a round's agents into tasks: one task per
        agent, handed to whichever worker is free.

        Args:
            agents (List[Agent]): the agents asked at once.

        Returns:
            List[List[Agent]]: ``[[agent] for agent in agents]``.

        Note:
            On PAMS's development branch a subclass may override this to
            group agents into tasks; the engine cannot send chosen agents to
            chosen workers, so an override is refused when the runner is
            made.
        """
        return [[agent] for agent in agents]

    def _create_executor(self) -> Any:
        """PAMS's development branch makes its ``concurrent.futures``
        executor here; pams_cpp's engine owns its workers and has none.

        Raises:
            NotImplementedError: always (an override is refused when the
                runner is made, see the class's doc).
        """
        raise NotImplementedError(f"{type(self).__name__}: {_WORKERS_ARE_THE_ENGINES}")

    def _setup(self) -> None:
        initializer = self._get_worker_initializer()
        if initializer is not None:
            if not callable(initializer):
                raise TypeError("_get_worker_initializer() must return a callable or None, "
                                f"got {initializer!r}")
            args = tuple(self._get_worker_initargs())

            def initialize() -> None:
                import threading

                run_initializer(initializer, args,
                                f"thread {threading.current_thread().name!r}")

            self._core.set_worker_initializer(initialize)
        super()._setup()


_START_METHODS = ("spawn", "forkserver", "fork")


def platform_start_method() -> str:
    """The start method multiprocessing uses here when none is given: the
    one set by multiprocessing.set_start_method, else the platform's
    default (PAMS's development branch's default_start_method None)."""
    import multiprocessing

    method = multiprocessing.get_start_method(allow_none=True)
    if method is None:
        method = multiprocessing.get_all_start_methods()[0]
    return method


class MultiProcessAgentParallelRunner(MultiThreadAgentParallelRunner):
    """SequentialRunner with the normal agents' ``submit_orders`` calls of a
    round in ``numParallel`` worker processes (PAMS's runner of this name).

    The rounds are the thread runner's (see MultiThreadAgentParallelRunner):
    the results are SequentialRunner's for the same config and seed, bit for
    bit, under the conditions below. Each worker keeps a replica of the
    simulation, brought up to date before each task by a journal of what
    changed (no pickling of the simulation per task); a task sends the
    agent's own fields and returns its orders and its fields (all of them,
    or those its ``synced_attributes`` lists). With Python classes a worker
    is a Python interpreter, and the classes travel by value (cloudpickle),
    so classes of ``__main__`` or of a notebook reach the workers too.

    Config keys read (in ``"simulation"``; bad values raise
    pams_cpp.ConfigError naming the key):

    * ``numParallel``: worker processes, an int in 1..4096 (default: the
      CPUs less one, at least 1); at most min(numParallel, the largest
      ``maxNormalOrders``) calls run at once.
    * ``startMethod``: ``"spawn"``, ``"forkserver"`` or ``"fork"``
      (default: ``default_start_method``).
    * ``workerTimeout``: seconds one call may take, 0..1e9 (default 0: no
      limit).
    * ``workerCpuAffinity``: true (each worker on its own share of this
      process's CPUs), false, or each worker's CPUs (``[0, 1]``,
      ``[[0, 1], [2, 3]]``); default ``default_worker_cpu_affinity``.
    * ``workerStartTimeout``: seconds a worker may take to start, > 0
      (default 120).
    * ``workerIdleTimeout``: seconds workers are kept for a later runner of
      the same set-up, 0..1e9 (default 300; 0: they end with the run).
    * ``runRoundsWhileWorkersStart``: bool (default false): true lets the
      main process run Python agents' calls itself until a worker is ready
      (see Note); false keeps every such call in a worker.
    * ``workerNice``: the workers' nice increment, 0..19 (default 4).
    * ``workerKeepsAgentStates``: bool (default true): a C++ agent's task
      (built in or from a plugin) goes to the worker that ran its last call
      without its state when nothing but the engine changed it since; false
      sends every state whole. Python agents always travel whole.
    * ``batchModelCalls``: bool (default true), as every runner.

    Start methods: ``"spawn"`` starts a fresh interpreter that imports the
    main module as ``__mp_main__`` (keep the code that runs the simulation
    under ``if __name__ == "__main__":``), ``"forkserver"`` forks workers
    from one such interpreter, ``"fork"`` forks the main process (fast, but
    unsafe once TensorFlow, PyTorch's or JAX's threads ran there).

    Hooks a subclass may override: ``_get_worker_initializer()`` and
    ``_get_worker_initargs()`` (once per worker process),
    ``_get_worker_environment()`` (variables set before the worker imports
    anything), ``_prepare_worker_process()``, ``_worker_state()``,
    ``_main_process_can_run_tasks()`` and
    ``_receive_synced_attributes_from_worker()``; the class attributes
    ``default_start_method`` and ``default_worker_cpu_affinity``. The
    thread runner's refused hooks, and ``_get_mp_context``, are refused
    here too.

    Args:
        settings: the config: a dict, a path (str or os.PathLike) of a JSON
            file, or an open file.
        prng (random.Random, Optional): the runner's generator (a fresh
            ``random.Random()`` when None).
        logger (Logger, Optional): a logger.
        simulator_class: the class of ``self.simulator`` (Simulator or a
            subclass).

    Attributes:
        default_start_method (Optional[str]): the start method when the
            config sets no ``startMethod``: ``"fork"`` here, ``"spawn"`` in
            the TensorFlow, PyTorch and JAX runners; None: multiprocessing's
            default (``multiprocessing.set_start_method``'s, else the
            platform's), as on PAMS's development branch.
        default_worker_cpu_affinity (bool): pin workers to CPUs when the
            config sets no ``workerCpuAffinity`` (False here).

    Raises:
        ValueError: a bad ``default_start_method`` or
            ``default_worker_cpu_affinity`` (naming the class).
        NotImplementedError: the class overrides a refused hook.

    Note:
        Identity with SequentialRunner holds when each agent's
        ``submit_orders`` changes only the agent (its own fields, its
        orders; never markets, other agents or module globals), draws its
        randomness from ``self.prng``, and either lists no
        ``synced_attributes`` or changes only what it lists (an unlisted
        change made in a worker is lost, as on PAMS's development branch; a
        UserWarning names it once per class and attribute per run). When an
        agent lists ``synced_attributes``, every call runs in a worker (none
        in the main process, where nothing would be lost), so results do
        not depend on where calls run. With ``runRoundsWhileWorkersStart``
        true, until a worker is ready, and for a round of one call, the
        main process runs calls itself when it is prepared as the workers
        are (no worker initializer, no ``workerTimeout``,
        ``_main_process_can_run_tasks()``); results do not depend on it.
        Workers are kept after a run for later runners of the same set-up
        (``close()``, ``shutdown_workers()``).

        What differs from PAMS: PAMS's runner pickles the whole simulation
        for every task (~2 ms a task at 100 steps, growing with the run);
        here a task costs 23-26 us. A failed task raises the agent's own
        exception with the worker's traceback as ``__cause__`` (PAMS's
        ``concurrent.futures`` does the same). Agents that set no
        ``synced_attributes`` keep every change (PAMS's branch keeps none).
        No "experimental" warning.
    """

    _engine_class = "MultiProcessAgentParallelRunner"
    # The start method when the config sets no simulation.startMethod (None:
    # multiprocessing's default).
    default_start_method: Optional[str] = "fork"
    # Whether workers are pinned to CPUs when the config sets no
    # simulation.workerCpuAffinity (see the module's doc).
    default_worker_cpu_affinity: bool = False
    # The start method in effect (PAMS's development branch's attribute),
    # given to the engine when the runner is made.
    start_method = Assigned(
        fixed("{cls}.{name}: the engine took the start method when the runner was made: set "
              "simulation.startMethod in the config, or the class attribute "
              "default_start_method, instead", engine="_core"),
        "str: the start method of the worker processes (\"spawn\", \"forkserver\" or "
        "\"fork\"; fixed once the runner is made).")

    def __init__(
        self,
        settings: Any,
        prng: Optional[random.Random] = None,
        logger: Optional[Logger] = None,
        simulator_class: Type[Simulator] = Simulator,
    ) -> None:
        _refuse_hooks(type(self), MultiProcessAgentParallelRunner, _REFUSED_PROCESS_HOOKS)
        super().__init__(settings, prng, logger, simulator_class)
        method = self.default_start_method
        if method is None:
            method = platform_start_method()
        elif method not in _START_METHODS:
            raise ValueError(f"{type(self).__name__}.default_start_method must be \"spawn\", "
                             f"\"forkserver\" or \"fork\", got {self.default_start_method!r} "
                             "(or None: multiprocessing's default start method)")
        if not isinstance(self.default_worker_cpu_affinity, bool):
            raise ValueError(f"{type(self).__name__}.default_worker_cpu_affinity must be True or "
                             f"False, got {self.default_worker_cpu_affinity!r}")
        # simulation.startMethod and simulation.workerCpuAffinity in the
        # config win (the engine checks them when the runner is set up).
        self._core.set_start_method(method)
        self._core.set_worker_cpu_affinity(self.default_worker_cpu_affinity)
        simulation = self.settings.get("simulation")
        configured = simulation.get("startMethod") if isinstance(simulation, dict) else None
        self.start_method = configured if configured in _START_METHODS else method

    def _get_mp_context(self) -> Any:
        """The multiprocessing context of ``start_method`` (PAMS's
        development branch starts its workers with it; the engine starts
        them itself, so an override is refused when the runner is made).

        Returns:
            multiprocessing.context.BaseContext: the context.
        """
        import multiprocessing

        return multiprocessing.get_context(self.start_method)

    def _prepare_worker_process(self) -> None:
        """Runs first in each worker process, after its replica is set up and
        before the worker initializer, once per process (the TensorFlow
        runner configures TensorFlow here). Default: nothing."""

    def _get_worker_environment(self) -> Dict[str, str]:
        """Environment variables set in each worker process before anything
        else runs there (before the main module is imported).

        Returns:
            Dict[str, str]: the variables (default: none). They are part of
            the set-up that kept workers must match.
        """
        return {}

    def _worker_state(self) -> Dict[str, Any]:
        """Attributes the worker processes' runners get from this one
        (values the main process decides, e.g. PyTorch's thread count).

        Returns:
            Dict[str, Any]: attribute name to value, pickled (default: none).
        """
        return {}

    def _main_process_can_run_tasks(self) -> bool:
        """Whether this process is prepared as the workers are, so that it may
        run calls itself while workers start (see the class's Note); a
        subclass may prepare it here.

        Returns:
            bool: True by default (the engine also asks that no worker
            initializer and no ``workerTimeout`` are set, and no agent lists
            ``synced_attributes``).
        """
        return True

    def _receive_synced_attributes_from_worker(self, agent: Any,
                                               attributes: Dict[str, Any]) -> None:
        """Gives an agent that lists ``synced_attributes`` the listed
        attributes its call in a worker left (PAMS's development branch's
        hook, called in the main process after each such call, before the
        orders are handled).

        The default sets each listed name to its value in ``attributes`` and
        deletes the listed names it lacks (the call deleted them; a name
        only the class has stays). A subclass may override it, e.g. to move
        tensors to another device.

        Args:
            agent (Agent): the agent, in the main process.
            attributes (Dict[str, Any]): the listed attributes the agent had
                after the call; orders still in a book are the main
                process's own objects.
        """
        from . import _task_state

        _task_state.set_synced_attributes(agent, attributes)

    def class_register(self, cls: Type) -> None:
        """Registers a class the config may name (see Runner.class_register);
        an agent class's ``synced_attributes`` is checked here.

        Args:
            cls (type): the class.

        Raises:
            TypeError: `cls` is not a class, or its ``synced_attributes`` is
                not None, a tuple or a list of str (also a ValueError, as on
                PAMS's development branch), naming the class.
            ValueError: its ``synced_attributes`` lists a name that cannot
                be listed (``"simulator"``, ``"logger"``, ``"prng"``,
                ``"_engine"``, ``"__dict__"``).
            NotImplementedError: as Runner.class_register.
        """
        from ..agents.base import Agent
        from . import _task_state

        if isinstance(cls, type) and issubclass(cls, Agent):
            _task_state.check_synced_attributes(cls, getattr(cls, "synced_attributes", None))
        super().class_register(cls)

    def close(self) -> None:
        """Ends the worker processes kept for this runner's set-up (see the
        class's doc). The runner is not used up: a later run starts
        workers again."""
        self._core.close_workers()

    def __enter__(self) -> "MultiProcessAgentParallelRunner":
        """Returns the runner; leaving the ``with`` block calls close()."""
        return self

    def __exit__(self, *exc_info: Any) -> None:
        """Calls close()."""
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
        if simulation.get("runRoundsWhileWorkersStart", False) is True:
            self._core.set_main_process_runs_tasks(bool(self._main_process_can_run_tasks()))
        # "spawn" and "forkserver" start this Python as a worker.
        self._core.set_worker_program(sys.executable, [
            sys.executable, "-c", f"import sys; sys.path.insert(0, {package_parent!r}); {entry}"])
        super()._setup()
        if self._agents_list_synced_attributes():
            # A call run here would keep every change, one in a worker only
            # the listed ones: every call runs in a worker.
            self._core.set_main_process_runs_tasks(False)

    def _agents_list_synced_attributes(self) -> bool:
        """Whether an agent of a registered Python class lists
        synced_attributes (checked: a bad value raises, naming the class)."""
        from ..agents.base import Agent
        from . import _task_state

        classes = tuple(c for c in self.registered_classes if issubclass(c, Agent))
        if not classes:
            return False
        lists = False
        # The engine's agents, whose Python objects only Python classes have
        # (no Python face is made for the built-in agents).
        for engine_agent in self.simulator._core.agents:
            agent = engine_agent.python_object
            if isinstance(agent, classes) and _task_state.synced_names(agent) is not None:
                lists = True
        return lists

    def _run(self) -> None:
        from . import _task_state

        _task_state.reset_warnings()
        with _task_state.receiving(self._receive_synced_attributes_from_worker):
            super()._run()

    def _step(self, step, *args):
        from . import _task_state

        with _task_state.receiving(self._receive_synced_attributes_from_worker):
            return super()._step(step, *args)

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
        import hashlib  # here: only runs with workers need it (2 ms of import)

        key = hashlib.sha256()
        key.update(_worker.dumps_payload(preparation, environment, {
            "runner_class": type(self),
            "runner_state": state,
            "initializer": self._get_worker_initializer(),
            "initargs": tuple(self._get_worker_initargs()),
        }))
        return payload, key.digest()


__all__ = ["MultiProcessAgentParallelRunner", "MultiThreadAgentParallelRunner", "shutdown_workers"]
