"""JaxAgentParallelRunner: MultiProcessAgentParallelRunner for agents that
use JAX in ``submit_orders`` (e.g. Flax models), as PAMS's development
branch defines it (``pams/runners/jax_parallel.py``).

* Created only if JAX imports (else an ImportError saying how to install
  it); ``import pams_cpp`` does not import it.
* Workers are started by "spawn" by default (JAX's threads make fork
  unsafe once it ran); ``simulation.startMethod`` still wins.
* Each worker process configures JAX before anything runs there, from
  these keys of ``"simulation"`` (each overrides the environment variable
  the workers otherwise inherit): ``jaxPlatforms`` (a non-empty str, e.g.
  "cpu"; ``jax_platforms``), ``jaxPreallocate`` (bool, default false, so
  that workers can share a GPU; ``XLA_PYTHON_CLIENT_PREALLOCATE``) and
  ``jaxMemoryFraction`` (a number in (0, 1]; ``XLA_PYTHON_CLIENT_MEM_FRACTION``)
  and ``jaxDeterministicOps`` (bool, default true: ``XLA_FLAGS`` gets
  ``--xla_gpu_deterministic_ops=true``, so that a GPU gives every process
  the same bits). The variables are set before the worker imports the main module;
  ``_get_worker_environment()`` gives them, and subclasses may add others
  (e.g. ``XLA_FLAGS``).

A function compiled by ``jax.jit`` is compiled once per worker process (it
cannot be pickled: keep it at the top level of a module, not in an agent's
fields). Agents draw their keys of ``jax.random`` from ``self.prng``.
"""
import os
import random
from typing import Any
from typing import Dict
from typing import Optional
from typing import Type

from ..logs.base import Logger
from ..simulator import Simulator
from .agent_parallel import MultiProcessAgentParallelRunner
from .agent_parallel import simulation_key_error


def _import_jax() -> Any:
    try:
        import jax
    except ImportError as e:
        raise ImportError(
            f"JaxAgentParallelRunner needs JAX, which cannot be imported ({e}): pip install jax "
            "for CPUs, or pip install \"jax[cuda12]\" for NVIDIA GPUs (see "
            "https://docs.jax.dev/en/latest/installation.html)") from None
    return jax


_DETERMINISTIC_OPS = "--xla_gpu_deterministic_ops"


class JaxAgentParallelRunner(MultiProcessAgentParallelRunner):
    """A MultiProcessAgentParallelRunner whose worker processes are prepared
    for agents that call JAX (e.g. Flax models) in ``submit_orders`` (PAMS's
    development branch's runner of this name).

    Creating it imports JAX (``import pams_cpp`` does not); without it, an
    ImportError says how to install it. Workers start by ``"spawn"`` by
    default (JAX's threads make ``fork`` unsafe once it ran). Each worker
    gets JAX's settings as environment variables before it imports
    anything.

    Config keys read (in ``"simulation"``): MultiProcessAgentParallelRunner's
    (``numParallel``, ``startMethod``, ``workerTimeout``,
    ``workerCpuAffinity``, ``workerStartTimeout``, ``workerIdleTimeout``,
    ``runRoundsWhileWorkersStart``, ``workerNice``, ``batchModelCalls``),
    and:

    * ``jaxPlatforms``: a non-empty str, e.g. ``"cpu"`` (``JAX_PLATFORMS``;
      default: the environment's).
    * ``jaxPreallocate``: bool (``XLA_PYTHON_CLIENT_PREALLOCATE``; default
      false, so that workers can share a GPU).
    * ``jaxMemoryFraction``: a number in (0, 1]
      (``XLA_PYTHON_CLIENT_MEM_FRACTION``; default: JAX's).
    * ``jaxDeterministicOps``: bool (default true): ``XLA_FLAGS`` gets
      ``--xla_gpu_deterministic_ops=true`` (unless it names that flag), in
      the workers and, from this runner's creation on, in this process.
      Without it XLA picks a GPU's kernels by timing them, in each process
      anew: on an H200, agents making single-row calls of a jitted MLP gave
      other bits in the workers than in the main process. It costs nothing
      on CPUs. This process's JAX reads the variable when it first runs on
      a GPU: where it ran before the runner was created, set
      ``XLA_FLAGS=--xla_gpu_deterministic_ops=true`` before importing JAX
      for SequentialRunner's bits.

    Args:
        settings: the config: a dict, a path (str or os.PathLike) of a JSON
            file, or an open file.
        prng (random.Random, Optional): the runner's generator (a fresh
            ``random.Random()`` when None).
        logger (Logger, Optional): a logger.
        simulator_class: the class of ``self.simulator`` (Simulator or a
            subclass).

    Raises:
        ImportError: JAX cannot be imported.
        pams_cpp.ConfigError: a bad JAX key or another bad key, naming it.

    Note:
        Results are SequentialRunner's when agents draw their
        ``jax.random`` keys from ``self.prng`` and keep jitted functions at
        the top level of a module (they cannot be pickled; each worker
        compiles them once). The main process runs calls itself only when
        ``jaxPlatforms`` is unset or is its own ``JAX_PLATFORMS``.
        ``_get_worker_environment()`` may add variables (e.g.
        ``XLA_FLAGS``). ``tests/python_jax`` checks it.
    """

    default_start_method: Optional[str] = "spawn"
    _simulation_keys = ("jaxPlatforms", "jaxPreallocate", "jaxMemoryFraction",
                        "jaxDeterministicOps")

    def __init__(
        self,
        settings: Any,
        prng: Optional[random.Random] = None,
        logger: Optional[Logger] = None,
        simulator_class: Type[Simulator] = Simulator,
    ) -> None:
        _import_jax()
        super().__init__(settings, prng, logger, simulator_class)
        simulation = self.settings.get("simulation", {})
        self.jax_platforms: Optional[str] = simulation.get("jaxPlatforms")
        if "jaxPlatforms" in simulation and (not isinstance(self.jax_platforms, str)
                                             or not self.jax_platforms):
            raise simulation_key_error("jaxPlatforms",
                                f"must be a non-empty string, got {self.jax_platforms!r}")
        self.jax_preallocate: Optional[bool] = simulation.get("jaxPreallocate")
        if "jaxPreallocate" in simulation and not isinstance(self.jax_preallocate, bool):
            raise simulation_key_error("jaxPreallocate",
                                f"must be true or false, got {self.jax_preallocate!r}")
        fraction = simulation.get("jaxMemoryFraction")
        if "jaxMemoryFraction" in simulation and (
                isinstance(fraction, bool) or not isinstance(fraction, (int, float))
                or not 0 < fraction <= 1):
            raise simulation_key_error("jaxMemoryFraction", f"must be a number in (0, 1], got {fraction!r}")
        self.jax_memory_fraction: Optional[float] = (
            None if fraction is None else float(fraction))
        self.jax_deterministic_ops: bool = simulation.get("jaxDeterministicOps", True)
        if not isinstance(self.jax_deterministic_ops, bool):
            raise simulation_key_error("jaxDeterministicOps",
                                f"must be true or false, got {self.jax_deterministic_ops!r}")
        # In this process's environment, which the workers inherit; a flag
        # the user set wins.
        flags = os.environ.get("XLA_FLAGS", "")
        if self.jax_deterministic_ops and _DETERMINISTIC_OPS not in flags:
            os.environ["XLA_FLAGS"] = f"{flags} {_DETERMINISTIC_OPS}=true".strip()

    def _main_process_can_run_tasks(self) -> bool:
        """Whether this process runs JAX on the workers' platform (then it
        may run calls itself).

        Returns:
            bool: True when ``jaxPlatforms`` is unset or is this process's
            ``JAX_PLATFORMS``.
        """
        # Workers on another platform (jaxPlatforms) may give other numbers.
        return self.jax_platforms is None or os.environ.get("JAX_PLATFORMS") == self.jax_platforms

    def _get_worker_environment(self) -> Dict[str, str]:
        """JAX's settings from the config, as the environment variables JAX
        reads when it is imported (see the class's doc); a subclass may add
        others (e.g. ``XLA_FLAGS``).

        Returns:
            Dict[str, str]: the variables set in each worker before it
            imports anything.
        """
        environment: Dict[str, str] = {}
        if self.jax_platforms is not None:
            environment["JAX_PLATFORMS"] = self.jax_platforms
        if self.jax_preallocate is not None:
            environment["XLA_PYTHON_CLIENT_PREALLOCATE"] = str(self.jax_preallocate).lower()
        elif "XLA_PYTHON_CLIENT_PREALLOCATE" not in os.environ:
            environment["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
        if self.jax_memory_fraction is not None:
            environment["XLA_PYTHON_CLIENT_MEM_FRACTION"] = str(self.jax_memory_fraction)
        # XLA_FLAGS (jaxDeterministicOps) is not here: __init__ put it in
        # this process's environment, which the workers inherit.
        return environment

    def _prepare_worker_process(self) -> None:
        """Makes JAX use ``jaxPlatforms`` even if the main module imported
        JAX before the environment was set, before the worker
        initializer."""
        if "XLA_PYTHON_CLIENT_MEM_FRACTION" in os.environ:
            # JAX refuses both names; the old one is what every version reads.
            os.environ.pop("XLA_CLIENT_MEM_FRACTION", None)
        jax = _import_jax()
        if self.jax_platforms is not None:
            # JAX_PLATFORMS is read when jax is imported, which the main
            # module may have done before the environment was set.
            jax.config.update("jax_platforms", self.jax_platforms)


__all__ = ["JaxAgentParallelRunner"]
