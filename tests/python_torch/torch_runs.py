"""Runs of an agent that calls a small PyTorch model, for
test_torch_runner.py, each in a process of its own: `python torch_runs.py
MODE OUT [ARGS]` writes what the run left as JSON to OUT (the command line,
config and run are the framework suites' shared ones:
tests/framework_suite/framework_suite.py). The model (an MLP whose weights
come from torch.manual_seed) comes from a module-level functools.lru_cache
function (once per process); its inputs from the agent's prng, through a
torch.Generator; the agent keeps its outputs (a list and a tensor) in its
fields and records, for every call, its process and how that process's
PyTorch was configured."""
import functools
import os
import sys

import pams_cpp
from pams_cpp.runners import SequentialRunner
from pams_cpp.runners import TorchAgentParallelRunner

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "framework_suite"))
import framework_suite as suite  # noqa: E402


@functools.lru_cache(maxsize=None)
def model():
    import torch

    suite.record_load()
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    net.requires_grad_(False)
    return net.eval()


class TorchAgent(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        import torch

        market = markets[0]
        generator = torch.Generator().manual_seed(self.prng.randrange(2**32))
        noise = torch.randn(2, generator=generator)
        x = torch.cat([torch.tensor([market.get_market_price() / 300.0 - 1.0]), noise])
        with torch.no_grad():
            y = model()(x)
        self.outputs = getattr(self, "outputs", []) + [float(y[0])]
        # A tensor in the agent's fields: it travels to and from the workers.
        self.total = getattr(self, "total", torch.zeros(1)) + y
        self.seen = getattr(self, "seen", set()) | {
            (os.getpid(), torch.get_num_threads(), torch.multiprocessing.get_sharing_strategy())}
        value = float(y[0])
        is_buy = value > 0
        price = market.get_market_price() * (
            1.0 + (0.01 if is_buy else -0.01) * min(1.0, abs(value)))
        return [pams_cpp.Order(agent_id=self.agent_id, market_id=market.market_id,
                               is_buy=is_buy, kind=pams_cpp.LIMIT_ORDER, volume=1,
                               price=price, ttl=20)]


class Loading(TorchAgentParallelRunner):
    def _get_worker_initializer(self):
        return model


def config(num_parallel, start_method=None, **simulation):
    return suite.config("TorchAgents", {"class": "TorchAgent", "numAgents": 10}, num_parallel,
                        start_method, steps=(30, 100), **simulation)


def run(runner_class, c):
    import torch

    runner, result = suite.run(
        runner_class, c, TorchAgent,
        agent_fields=lambda a: (a.total.tolist() if hasattr(a, "total") else None,))
    torch_agents = [a for a in runner.simulator.agents if isinstance(a, TorchAgent)]
    result.update({
        "calls": sum(len(getattr(a, "outputs", [])) for a in torch_agents),
        "totals_are_tensors": all(isinstance(a.total, torch.Tensor) for a in torch_agents
                                  if hasattr(a, "total")),
        "seen": sorted({s for a in torch_agents for s in getattr(a, "seen", ())}),
        "main_pid": os.getpid(),
        "main_threads": torch.get_num_threads(),
        "main_sharing_strategy": torch.multiprocessing.get_sharing_strategy(),
        "runner_threads": getattr(runner, "torch_num_threads", None),
    })
    return result


def parallel(num_parallel, method, threads, main_threads=None):
    """numParallel NUM_PARALLEL, startMethod METHOD, torchNumThreads THREADS
    (or the runner's default: "default"), with MAIN_THREADS threads for this
    process's PyTorch where given."""
    import torch

    if main_threads is not None:
        torch.set_num_threads(int(main_threads))
    simulation = {} if threads == "default" else {"torchNumThreads": int(threads)}
    return run(Loading, config(int(num_parallel), method, **simulation))


def bad_keys():
    return {"errors": suite.refused(
        TorchAgentParallelRunner,
        [(repr(value), config(2, torchNumThreads=value)) for value in (0, -2, 2.5, True, "2")],
        describe=lambda e: [str(e), e.path, e.message])}


if __name__ == "__main__":
    suite.main({"sequential": lambda: run(SequentialRunner, config(1)), "parallel": parallel,
                "bad_keys": bad_keys})
