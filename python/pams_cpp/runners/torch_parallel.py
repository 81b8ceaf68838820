"""TorchAgentParallelRunner: MultiProcessAgentParallelRunner for agents
that use PyTorch in ``submit_orders``, as PAMS's development branch defines
it (``pams/runners/torch_parallel.py``).

* Created only if PyTorch imports (else an ImportError saying how to
  install it); ``import pams_cpp`` does not import it.
* Workers are started by "spawn" by default (fork is unsafe once PyTorch's
  thread pools or CUDA started); ``simulation.startMethod`` still wins.
* Each worker sets ``torch.set_num_threads`` to ``simulation.torchNumThreads``
  (int >= 1; default: the main process's ``torch.get_num_threads()`` divided
  by the workers that run at once, min(numParallel, the largest
  maxNormalOrders), at least 1) and the sharing strategy of
  ``torch.multiprocessing`` to ``torch_sharing_strategy`` ("file_system";
  None keeps PyTorch's), before the worker initializer; the main process
  gets the same sharing strategy when it is set up.

Here a task sends the agent's fields pickled (not through
multiprocessing's ForkingPickler), so tensors an agent holds travel as
copies of their values; models belong in a module-level cache loaded once
per worker (the worker initializer), and agents draw their randomness from
``self.prng`` (e.g. ``torch.Generator().manual_seed(self.prng.randrange(2**32))``).
For SequentialRunner's numbers, run it after ``torch.set_num_threads(n)``
with ``torchNumThreads`` n.
"""
import random
from typing import Any
from typing import Dict
from typing import Optional
from typing import Type

from ..logs.base import Logger
from ..simulator import Simulator
from .agent_parallel import MultiProcessAgentParallelRunner
from .agent_parallel import concurrent_workers
from .agent_parallel import simulation_key_error


def _import_torch() -> Any:
    try:
        import torch
        import torch.multiprocessing  # noqa: F401
    except ImportError as e:
        raise ImportError(
            f"TorchAgentParallelRunner needs PyTorch, which cannot be imported ({e}): pip "
            "install torch (https://pytorch.org/get-started/locally/ lists the builds for each "
            "platform and accelerator)") from None
    return torch


class TorchAgentParallelRunner(MultiProcessAgentParallelRunner):
    """A MultiProcessAgentParallelRunner whose worker processes are prepared
    for agents that call PyTorch in ``submit_orders`` (PAMS's development
    branch's runner of this name).

    Creating it imports PyTorch (``import pams_cpp`` does not); without it,
    an ImportError says how to install it. Workers start by ``"spawn"`` by
    default (``fork`` is unsafe once PyTorch's thread pools or CUDA
    started). Each worker sets ``torch.set_num_threads`` and the sharing
    strategy of ``torch.multiprocessing`` once, before the worker
    initializer.

    Config keys read (in ``"simulation"``): MultiProcessAgentParallelRunner's
    (``numParallel``, ``startMethod``, ``workerTimeout``,
    ``workerCpuAffinity``, ``workerStartTimeout``, ``workerIdleTimeout``,
    ``runRoundsWhileWorkersStart``, ``workerNice``, ``batchModelCalls``),
    and ``torchNumThreads``: PyTorch's threads in each worker, an int >= 1
    (default: the main process's ``torch.get_num_threads()`` divided by
    min(numParallel, the largest ``maxNormalOrders``), at least 1).

    Args:
        settings: the config: a dict, a path (str or os.PathLike) of a JSON
            file, or an open file.
        prng (random.Random, Optional): the runner's generator (a fresh
            ``random.Random()`` when None).
        logger (Logger, Optional): a logger.
        simulator_class: the class of ``self.simulator`` (Simulator or a
            subclass).

    Attributes:
        torch_num_threads (int): the workers' thread count, fixed here.
        torch_sharing_strategy (Optional[str]): the sharing strategy here
            and in the workers (``"file_system"``; None keeps PyTorch's).
        default_start_method (Optional[str]): ``"spawn"``.

    Raises:
        ImportError: PyTorch cannot be imported.
        pams_cpp.ConfigError: a bad ``torchNumThreads`` or another bad key,
            naming it.

    Note:
        Results are SequentialRunner's when agents draw their randomness
        from ``self.prng`` (e.g.
        ``torch.Generator().manual_seed(self.prng.randrange(2**32))``),
        models live in a module-level cache loaded once per worker (fields
        travel with each task: tensors an agent holds travel as copies of
        their values, not through shared memory as on PAMS's branch), and
        SequentialRunner runs after ``torch.set_num_threads(n)`` with
        ``torchNumThreads`` n. The main process runs calls itself only when
        its ``torch.get_num_threads()`` is the workers' count.
        ``tests/python_torch`` checks it at numParallel 1, 2 and 4 under
        every start method.
    """

    default_start_method: Optional[str] = "spawn"
    _simulation_keys = ("torchNumThreads",)
    # The sharing strategy of torch.multiprocessing here and in the workers
    # (None: PyTorch's own).
    torch_sharing_strategy: Optional[str] = "file_system"

    def __init__(
        self,
        settings: Any,
        prng: Optional[random.Random] = None,
        logger: Optional[Logger] = None,
        simulator_class: Type[Simulator] = Simulator,
    ) -> None:
        torch = _import_torch()
        super().__init__(settings, prng, logger, simulator_class)
        value = self.settings.get("simulation", {}).get("torchNumThreads")
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise simulation_key_error("torchNumThreads",
                                       f"must be a positive integer, got {value!r}")
        # Fixed here, in the main process: the workers use the same number.
        self.torch_num_threads: int = (
            value if value is not None
            else max(1, torch.get_num_threads() // concurrent_workers(self.settings)))

    def _worker_state(self) -> Dict[str, Any]:
        """The thread count fixed in the main process, for the workers.

        Returns:
            Dict[str, Any]: ``{"torch_num_threads": ...}``.
        """
        return {"torch_num_threads": self.torch_num_threads}

    def _setup(self) -> None:
        if self.torch_sharing_strategy is not None:
            _import_torch().multiprocessing.set_sharing_strategy(self.torch_sharing_strategy)
        super()._setup()

    def _main_process_can_run_tasks(self) -> bool:
        """Whether this process runs PyTorch with the workers' thread count
        (then it may run calls itself; it is left as the user set it).

        Returns:
            bool: ``torch.get_num_threads() == torch_num_threads``.
        """
        # Results may depend on the thread count: this process runs tasks
        # only when it runs with the workers' (it is left as the user set it).
        return _import_torch().get_num_threads() == self.torch_num_threads

    def _prepare_worker_process(self) -> None:
        """Sets the worker's PyTorch thread count and sharing strategy, before
        the worker initializer."""
        torch = _import_torch()
        torch.set_num_threads(self.torch_num_threads)
        if self.torch_sharing_strategy is not None:
            torch.multiprocessing.set_sharing_strategy(self.torch_sharing_strategy)


__all__ = ["TorchAgentParallelRunner"]
