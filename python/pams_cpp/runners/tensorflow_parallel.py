"""TensorFlowAgentParallelRunner: MultiProcessAgentParallelRunner whose
worker processes are prepared for agents that call TensorFlow in
``submit_orders`` (e.g. Keras models), as the seed's runner describes.

* Created only if TensorFlow imports (else an ImportError saying how to
  install it); ``import pams_cpp`` does not import it.
* Workers are started by "spawn" by default (TensorFlow is not fork-safe);
  ``simulation.startMethod`` still wins, and "fork" after TensorFlow ran in
  the main process is refused (the forked workers would hang).
* Each worker configures TensorFlow once, before the worker initializer,
  from these keys of ``"simulation"``:
  ``tensorflowIntraOpThreads`` (int >= 1; default: CPUs / min(numParallel,
  the largest maxNormalOrders), at least 1), ``tensorflowInterOpThreads``
  (int >= 1, default 1) and ``tensorflowGpuMemoryGrowth`` (bool, default
  true: memory growth for every visible GPU, listed before the initializer
  runs). ``configure_tensorflow(config)`` configures the main process the
  same way, so that SequentialRunner gives the same numbers (call it before
  TensorFlow runs there). The runner does so itself, when TensorFlow has not
  run in the main process yet (or runs there with these options already)
  and the start method is not "fork", so that the main process can run
  rounds while the workers start (see agent_parallel's doc); otherwise it
  leaves the main process as it is and waits for its workers.
* Workers are kept for later runs (see agent_parallel's doc) of the same
  TensorFlow options.
* TensorFlow's start-up lines (oneDNN, cpu_feature_guard, absl) come once,
  from the main process: workers run with ``TF_CPP_MIN_LOG_LEVEL=1`` and
  import TensorFlow first thing with the lines it prints before reading
  that level left out, unless the environment sets it (then the user's
  value wins).
* Workers are pinned to CPUs by default (``default_worker_cpu_affinity``,
  ``simulation.workerCpuAffinity`` wins): worker k to its own share of the
  CPUs, the share its intra-op threads are sized to. A Keras call hops
  between the calling thread and TensorFlow's inter-op thread; unpinned, two
  workers on two cores keep trading cores and L2 caches (1.2-1.5x over
  SequentialRunner against 1.7-2.0x pinned, on a 2-core machine).

For results identical to SequentialRunner, agents draw their random numbers
from ``self.prng`` (e.g. the seeds of stateless random ops) and keep models
out of their fields: a module-level ``functools.lru_cache`` function loads
a model once per process (see docs/python.md).
"""
import os
import random
from typing import Any
from typing import Dict
from typing import Optional
from typing import Type

from .. import _core
from ..logs.base import Logger
from ..simulator import Simulator
from .agent_parallel import MultiProcessAgentParallelRunner
from .agent_parallel import simulation_key_error

_INSTALL_HINT = ("pip install tensorflow (or tensorflow-cpu for the CPU-only build)")


def _import_tensorflow():
    try:
        import tensorflow
    except ImportError as e:
        raise ImportError(f"TensorFlowAgentParallelRunner needs TensorFlow, which cannot be "
                          f"imported ({e}): {_INSTALL_HINT}") from None
    return tensorflow


def tensorflow_options(config: Dict[str, Any]) -> Dict[str, Any]:
    """The TensorFlow settings a config gives TensorFlowAgentParallelRunner's
    workers.

    Args:
        config (Dict[str, Any]): the config (its ``"simulation"`` keys
            ``tensorflowIntraOpThreads``, ``tensorflowInterOpThreads``,
            ``tensorflowGpuMemoryGrowth``, ``numParallel`` and the sessions'
            ``maxNormalOrders`` are read).

    Returns:
        Dict[str, Any]: ``intra_op_threads`` (default: CPUs // min(numParallel,
        the largest maxNormalOrders), at least 1), ``inter_op_threads``
        (default 1) and ``gpu_memory_growth`` (default True).

    Raises:
        pams_cpp.ConfigError: a bad value, naming its key (thread counts
            are ints in 1..4096, memory growth a bool).
    """
    simulation = config.get("simulation", {}) if isinstance(config, dict) else {}

    def count(key: str, default: int) -> int:
        value = simulation.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 4096:
            raise simulation_key_error(key, f"must be an integer between 1 and 4096, got {value!r}")
        return value

    # Checked here first, for messages in Python's words; the values,
    # defaults included, are the engine's rule (WorkerOptionsFor).
    count("tensorflowIntraOpThreads", 1)
    count("tensorflowInterOpThreads", 1)
    growth = simulation.get("tensorflowGpuMemoryGrowth", True)
    if not isinstance(growth, bool):
        raise simulation_key_error("tensorflowGpuMemoryGrowth", f"must be true or false, got {growth!r}")
    return dict(_core.tensorflow_worker_options(config if isinstance(config, dict) else {}))


def configure_tensorflow(config: Any) -> Dict[str, Any]:
    """Configures TensorFlow in this process as TensorFlowAgentParallelRunner
    configures its workers for `config`, so that SequentialRunner run here
    gives the runner's numbers.

    What is set already to the wanted value is left alone (TensorFlow
    refuses any change once it ran, even to the same value), so calling it
    again, or after the runner configured this process, is harmless.

    Args:
        config: a config dict, or a runner (its ``settings``).

    Returns:
        Dict[str, Any]: the options applied (see tensorflow_options).

    Raises:
        ImportError: TensorFlow cannot be imported.
        pams_cpp.ConfigError: a bad TensorFlow key, naming it.
        RuntimeError: TensorFlow already ran in this process with other
            thread counts (TensorFlow's own error): call this first.
    """
    tf = _import_tensorflow()
    settings = getattr(config, "settings", config)
    options = tensorflow_options(settings)
    # What is set already is left alone: TensorFlow refuses any change once
    # it runs, even to the same value (the runner may have configured this
    # process for its rounds here).
    threading = tf.config.threading
    if threading.get_intra_op_parallelism_threads() != options["intra_op_threads"]:
        threading.set_intra_op_parallelism_threads(options["intra_op_threads"])
    if threading.get_inter_op_parallelism_threads() != options["inter_op_threads"]:
        threading.set_inter_op_parallelism_threads(options["inter_op_threads"])
    if options["gpu_memory_growth"]:
        for gpu in tf.config.list_physical_devices("GPU"):
            if not tf.config.experimental.get_memory_growth(gpu):
                tf.config.experimental.set_memory_growth(gpu, True)
    return options


def _tensorflow_ran(tf) -> bool:
    """Whether TensorFlow's runtime started in this process (then a forked
    child would have none of its thread pools)."""
    try:
        from tensorflow.python.eager import context
    except ImportError:
        return False
    return bool(getattr(context.context(), "_initialized", False))


class TensorFlowAgentParallelRunner(MultiProcessAgentParallelRunner):
    """A MultiProcessAgentParallelRunner whose worker processes are prepared
    for agents that call TensorFlow (e.g. a Keras model) in
    ``submit_orders`` (PAMS's development branch's runner of this name).

    Use it when the normal agents' model calls are long (milliseconds) and
    several of them are asked in the same round (``maxNormalOrders`` > 1):
    their ``submit_orders`` calls of a round run at once, each in a worker
    process with its own TensorFlow, and the results are SequentialRunner's
    (see Note). Everything else of a step (order handling, executions,
    high-frequency agents, events, loggers) runs in the main process, as in
    SequentialRunner.

    Creating the runner imports TensorFlow (``import pams_cpp`` does not);
    without it, an ImportError says how to install it. Each worker process
    configures TensorFlow once, before the worker initializer runs, from the
    config's TensorFlow keys; workers are kept after a run for later runners
    of the same set-up (same TensorFlow options), so a loop over seeds
    starts them once.

    Config keys read (in ``"simulation"``; a bad value raises
    pams_cpp.ConfigError naming the key):

    * ``numParallel``: worker processes, an int in 1..4096 (default: the
      CPUs less one, at least 1). At most min(numParallel, the largest
      ``maxNormalOrders`` of the sessions) calls run at once: with
      ``maxNormalOrders`` 1 nothing runs in parallel (a warning says so).
    * ``tensorflowIntraOpThreads``: threads of one TensorFlow operation in
      each worker, an int in 1..4096 (default: CPUs // min(numParallel,
      the largest ``maxNormalOrders``), at least 1).
    * ``tensorflowInterOpThreads``: operations run at once in each worker,
      an int in 1..4096 (default 1).
    * ``tensorflowGpuMemoryGrowth``: bool (default true): memory growth for
      every visible GPU, so that the workers can share one (the GPUs are
      listed before the initializer runs).
    * ``startMethod``: ``"spawn"`` (the default here,
      ``default_start_method``), ``"forkserver"`` or ``"fork"``.
    * ``workerCpuAffinity``: true (the default here,
      ``default_worker_cpu_affinity``: worker k on its own share of this
      process's CPUs, the share its intra-op threads are sized to), false,
      or each worker's CPUs (``[0, 1]``, ``[[0, 1], [2, 3]]``).
    * ``workerTimeout``: seconds one call may take, 0..1e9 (default 0: no
      limit); the run then stops naming the agent.
    * ``workerStartTimeout``: seconds a worker may take to start (it imports
      TensorFlow and the main module first), > 0 (default 120).
    * ``workerIdleTimeout``: seconds workers are kept after a run for a
      later runner of the same set-up, 0..1e9 (default 300; 0: they end
      with the run).
    * ``runRoundsWhileWorkersStart``: bool (default false): true lets the
      main process run agents' calls itself until a worker is ready, when
      it is configured as the workers are (see below); false keeps every
      call of a Python agent in a worker, so that a crash there cannot end
      this process.
    * ``workerNice``: the workers' nice increment, 0..19 (default 4), so
      that their start does not slow the main process's rounds.
    * ``batchModelCalls``: bool (default true), as every runner: agents that
      batch their model calls (``TensorFlowAgent``, Python agents defining
      ``prepare_model_calls`` and ``submit_orders_with_model_outputs``) make
      one call per model and round, in the main process.

    Start methods: ``"spawn"`` starts a fresh interpreter that imports the
    main module as ``__mp_main__`` (keep the code that runs the simulation
    under ``if __name__ == "__main__":``); ``"forkserver"`` forks workers
    from one such interpreter; ``"fork"`` forks the main process, and is
    refused (SimulationError) once TensorFlow ran there, since a forked
    child has none of TensorFlow's thread pools and would hang. Classes of
    ``__main__`` or of a notebook reach the workers by value (cloudpickle).

    The main process runs the batched model calls (``batchModelCalls``:
    one call per model and round, by design in this process) and, with
    ``runRoundsWhileWorkersStart`` true, agents' calls: the runner then
    configures its TensorFlow as the workers' (``configure_tensorflow``)
    when TensorFlow has not run there yet (or runs with these thread counts
    already) and the start method is not ``"fork"``, and it runs rounds
    while the workers start and rounds of a single call; otherwise every
    call waits for a worker. A run whose agents all batch their model calls
    (or are built in) starts no worker. TensorFlow's start-up lines come
    once, from the main process: workers leave out the lines TensorFlow
    prints before it reads ``TF_CPP_MIN_LOG_LEVEL`` and run with
    ``TF_CPP_MIN_LOG_LEVEL=1`` unless the environment sets it.

    Hooks a subclass may override are MultiProcessAgentParallelRunner's
    (``_get_worker_initializer``/``_get_worker_initargs`` to load a model
    once per worker, ``_get_worker_environment``,
    ``_receive_synced_attributes_from_worker``, ...); the branch's
    ``_create_executor``, ``_split_agents_into_chunks`` and
    ``_get_mp_context`` are refused when the runner is made (NotImplementedError
    saying what to do instead).

    Args:
        settings: the config: a dict, a path (str or os.PathLike) of a JSON
            file, or an open file.
        prng (random.Random, Optional): the runner's generator (a fresh
            ``random.Random()`` when None); a seed means what it means for
            SequentialRunner.
        logger (Logger, Optional): a logger (MarketStepSaver, the CSV
            loggers, a Python Logger).
        simulator_class: the class of ``self.simulator`` (Simulator or a
            subclass).

    Attributes:
        tensorflow_options (Dict[str, Any]): the workers' TensorFlow
            settings: ``intra_op_threads``, ``inter_op_threads``,
            ``gpu_memory_growth``.
        default_start_method (Optional[str]): ``"spawn"``.
        default_worker_cpu_affinity (bool): True.
        start_method (str): the start method its workers use.

    Raises:
        ImportError: TensorFlow cannot be imported (the message says how to
            install it).
        pams_cpp.ConfigError: a bad key of ``"simulation"`` (named).
        NotImplementedError: the class overrides a hook the engine cannot
            honour.

    Note:
        The identity guarantee: for the same config and seed the runner
        gives SequentialRunner's market logs, agents and generator state,
        bit for bit, when (1) agents draw their randomness from
        ``self.prng`` (e.g. the seeds of ``tf.random.stateless_*`` ops), not
        from TensorFlow's global generator; (2) models are kept out of the
        agents' fields (a module-level ``functools.lru_cache`` function
        loads a model once per process; fields travel with each task); (3)
        TensorFlow runs with the same thread counts in SequentialRunner's
        process: call ``configure_tensorflow(config)`` there before
        TensorFlow runs (operations split among another number of threads
        round differently); (4) on GPUs, op determinism is enabled
        (``tf.config.experimental.enable_op_determinism()`` in the main
        process and in the worker initializer); (5) ``submit_orders``
        changes only the agent, and an agent that lists
        ``synced_attributes`` changes only what it lists (unlisted changes
        made in a worker are lost, with a warning, as on PAMS's branch).
        ``tests/python_tf`` checks it for spawn, forkserver and fork at
        numParallel 1 and 2.

        When it is faster (``bench/keras_seed_bench.py``, a Keras MLP of
        1-1.5 ms a call, 2-CPU machine, SequentialRunner's time over the
        runner's, docs/python.md "The seed's case, measured"): with 12
        Keras agents asked every round (``maxNormalOrders`` 12) and
        numParallel 2, 1.36-1.88x once the workers are up and 1.58x over a
        1030-step run including the start (1.19-1.26x for a process's
        first 230-step run); with ~1.5 Keras calls a round (12 Keras + 20
        FCN agents, ``maxNormalOrders`` 4) 0.95-0.99x while the worker
        starts and 1.24-1.38x once it is warm: a third of the rounds have
        one call, which the main process runs, and on that machine two
        busy processes each run 27-52% slower than one. On 2 CPUs one
        worker starts whatever numParallel says, unless the calls wait
        off the CPUs (see docs/python.md). Batching the model calls
        (``batchModelCalls``, one call per model and round) gave 9.5x with
        12 agents a round and 45x with 100. Pinning (``workerCpuAffinity``)
        took two workers from 1.2-1.5x to 1.7-2.0x: a Keras call hops
        between the calling thread and TensorFlow's inter-op thread, and
        unpinned workers keep trading cores.

        What differs from PAMS's development branch: there, every task
        pickles the whole simulation (here a worker keeps a replica kept in
        step by a journal: a task costs 23-26 us); the main process is never
        configured there (here it is, when it can be, to run rounds while
        workers start); workers are pinned to CPUs and kept between runs
        here; agents that list no ``synced_attributes`` keep every change
        here (none there); a task's error is raised as the agent's own
        exception with the worker's traceback as ``__cause__``; there is no
        "experimental" warning.

    Warning:
        With the default ``"spawn"``, the script's top level runs again in
        each worker (as ``__mp_main__``): do not run TensorFlow (build
        models, make tensors) at the top level of modules the workers
        import, or TensorFlow is initialized before it is configured. To
        give each worker its own GPU, call ``tf.config.set_visible_devices``
        in the worker initializer (``CUDA_VISIBLE_DEVICES`` set there comes
        too late: the GPUs were listed for memory growth).
    """

    default_start_method: Optional[str] = "spawn"
    default_worker_cpu_affinity: bool = True

    def __init__(
        self,
        settings: Any,
        prng: Optional[random.Random] = None,
        logger: Optional[Logger] = None,
        simulator_class: Type[Simulator] = Simulator,
    ) -> None:
        self._tf = _import_tensorflow()
        super().__init__(settings, prng, logger, simulator_class)
        self.tensorflow_options = tensorflow_options(self.settings)

    def _setup(self) -> None:
        if self.start_method == "fork" and _tensorflow_ran(self._tf):
            raise _core.SimulationError(
                "TensorFlow has already run in this process, so workers started by \"fork\" "
                "would hang (a forked child has none of TensorFlow's thread pools): use "
                "\"spawn\" (the default) or \"forkserver\"")
        super()._setup()

    def _prepare_worker_process(self) -> None:
        """Configures the worker's TensorFlow from the config (see
        configure_tensorflow), before the worker initializer."""
        configure_tensorflow(self.settings)

    def _get_worker_environment(self) -> Dict[str, str]:
        """The base class's variables, and ``TF_CPP_MIN_LOG_LEVEL=1`` unless
        this process's environment sets it (TensorFlow's start-up lines
        then come once, from the main process).

        Returns:
            Dict[str, str]: the variables set in each worker.
        """
        environment = dict(super()._get_worker_environment())
        if "TF_CPP_MIN_LOG_LEVEL" not in os.environ:
            environment.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
        # Lines TensorFlow prints before it reads that level, whatever the
        # level: the worker imports it first thing with them left out
        # (_worker).
        environment.setdefault("PAMS_WORKER_QUIET_TENSORFLOW", "1")
        return environment

    def _main_process_can_run_tasks(self) -> bool:
        """Configures this process's TensorFlow as the workers' when it still
        can (TensorFlow has not run here and the start method is not
        "fork"), so that it runs rounds while the workers start.

        Returns:
            bool: whether this process runs with the workers' TensorFlow
            thread counts (then it may run calls itself).
        """
        if self.start_method == "fork":
            return False  # TensorFlow must not run here before workers fork
        threading = self._tf.config.threading
        options = self.tensorflow_options
        current = (threading.get_intra_op_parallelism_threads(),
                   threading.get_inter_op_parallelism_threads())
        wanted = (options["intra_op_threads"], options["inter_op_threads"])
        if current == wanted:
            return True
        # Configured otherwise by the user, or too late to configure: the
        # main process stays as it is, and tasks wait for the workers.
        if current != (0, 0) or _tensorflow_ran(self._tf):
            return False
        configure_tensorflow(self.settings)
        return True


__all__ = ["TensorFlowAgentParallelRunner", "configure_tensorflow", "tensorflow_options"]
