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
  from the main process: workers run with ``TF_CPP_MIN_LOG_LEVEL=1`` unless
  the environment sets it (then the user's value wins).
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
from typing import Any
from typing import Dict
from typing import Optional

from .. import _core
from .agent_parallel import MultiProcessAgentParallelRunner
from .agent_parallel import concurrent_workers
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
    """The TensorFlow settings of a config's workers: intra_op_threads,
    inter_op_threads, gpu_memory_growth (with the defaults above). Raises
    pams_cpp.ConfigError naming a bad key."""
    simulation = config.get("simulation", {}) if isinstance(config, dict) else {}

    def count(key: str, default: int) -> int:
        value = simulation.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 4096:
            raise simulation_key_error(key, f"must be an integer between 1 and 4096, got {value!r}")
        return value

    intra_default = max(1, (os.cpu_count() or 1) // concurrent_workers(config))
    growth = simulation.get("tensorflowGpuMemoryGrowth", True)
    if not isinstance(growth, bool):
        raise simulation_key_error("tensorflowGpuMemoryGrowth", f"must be true or false, got {growth!r}")
    return {
        "intra_op_threads": count("tensorflowIntraOpThreads", intra_default),
        "inter_op_threads": count("tensorflowInterOpThreads", 1),
        "gpu_memory_growth": growth,
    }


def configure_tensorflow(config: Any) -> Dict[str, Any]:
    """Configures TensorFlow in this process as the config's workers are
    configured (for SequentialRunner to give their numbers); returns the
    options. `config`: a config dict or a runner. REQUIRES: before TensorFlow
    runs in this process (TensorFlow refuses a change after)."""
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
    """MultiProcessAgentParallelRunner for agents that use TensorFlow (see
    the module's doc)."""

    default_start_method: Optional[str] = "spawn"
    default_worker_cpu_affinity: bool = True

    def __init__(self, *args, **kwargs) -> None:
        self._tf = _import_tensorflow()
        super().__init__(*args, **kwargs)
        self.tensorflow_options = tensorflow_options(self.settings)

    def _setup(self) -> None:
        simulation = self.settings.get("simulation", {})
        method = simulation.get("startMethod", self.default_start_method)
        if method == "fork" and _tensorflow_ran(self._tf):
            raise _core.SimulationError(
                "TensorFlow has already run in this process, so workers started by \"fork\" "
                "would hang (a forked child has none of TensorFlow's thread pools): use "
                "\"spawn\" (the default) or \"forkserver\"")
        super()._setup()

    def _prepare_worker_process(self) -> None:
        configure_tensorflow(self.settings)

    def _get_worker_environment(self) -> Dict[str, str]:
        environment = dict(super()._get_worker_environment())
        if "TF_CPP_MIN_LOG_LEVEL" not in os.environ:
            environment.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
        return environment

    def _main_process_can_run_tasks(self) -> bool:
        simulation = self.settings.get("simulation", {})
        if simulation.get("startMethod", self.default_start_method) == "fork":
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
