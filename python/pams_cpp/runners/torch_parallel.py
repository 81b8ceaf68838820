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
    """MultiProcessAgentParallelRunner for agents that use PyTorch (see the
    module's doc)."""

    default_start_method: Optional[str] = "spawn"
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

    def _worker_state(self):
        return {"torch_num_threads": self.torch_num_threads}

    def _setup(self) -> None:
        if self.torch_sharing_strategy is not None:
            _import_torch().multiprocessing.set_sharing_strategy(self.torch_sharing_strategy)
        super()._setup()

    def _main_process_can_run_tasks(self) -> bool:
        # Results may depend on the thread count: this process runs tasks
        # only when it runs with the workers' (it is left as the user set it).
        return _import_torch().get_num_threads() == self.torch_num_threads

    def _prepare_worker_process(self) -> None:
        torch = _import_torch()
        torch.set_num_threads(self.torch_num_threads)
        if self.torch_sharing_strategy is not None:
            torch.multiprocessing.set_sharing_strategy(self.torch_sharing_strategy)


__all__ = ["TorchAgentParallelRunner"]
