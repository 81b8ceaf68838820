"""Runs of an agent that calls a small PyTorch model, each in a process of
its own: `python torch_runs.py MODE OUT [ARGS]` writes what the run left as
JSON to OUT. The model (an MLP whose weights come from torch.manual_seed)
comes from a module-level functools.lru_cache function (once per process);
its inputs from the agent's prng, through a torch.Generator; the agent
keeps its outputs (a list and a tensor) in its fields and records, for
every call, its process and how that process's PyTorch was configured."""
import copy
import functools
import json
import os
import random
import sys

import pams_cpp
from pams_cpp.runners import SequentialRunner
from pams_cpp.runners import TorchAgentParallelRunner

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@functools.lru_cache(maxsize=None)
def model():
    import torch

    log = os.environ.get("PAMS_TEST_LOADS")
    if log:
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
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
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        c = json.load(f)
    c["TorchAgents"] = dict(copy.deepcopy(c["FCNAgents"]), **{"class": "TorchAgent",
                                                             "numAgents": 10})
    c["FCNAgents"]["numAgents"] = 30
    c["simulation"]["agents"].append("TorchAgents")
    c["simulation"]["sessions"][0]["iterationSteps"] = 30
    c["simulation"]["sessions"][1]["iterationSteps"] = 100
    c["simulation"]["sessions"][1]["maxNormalOrders"] = 4
    c["simulation"]["numParallel"] = num_parallel
    c["simulation"].update(simulation)
    if start_method:
        c["simulation"]["startMethod"] = start_method
    return c


def run(runner_class, c, seed=3):
    import torch

    saver = pams_cpp.logs.MarketStepSaver()
    runner = runner_class(settings=copy.deepcopy(c), prng=random.Random(seed), logger=saver)
    runner.class_register(TorchAgent)
    runner.main()
    torch_agents = [a for a in runner.simulator.agents if isinstance(a, TorchAgent)]
    return {
        "logs": [repr(sorted(log.items())) for log in saver.market_step_logs],
        "agents": [repr((a.name, a.cash_amount, a.asset_volumes.get(0),
                         getattr(a, "outputs", None),
                         a.total.tolist() if hasattr(a, "total") else None))
                   for a in runner.simulator.agents],
        "prng": repr(runner._prng.getstate()),
        "calls": sum(len(getattr(a, "outputs", [])) for a in torch_agents),
        "totals_are_tensors": all(isinstance(a.total, torch.Tensor) for a in torch_agents
                                  if hasattr(a, "total")),
        "seen": sorted({s for a in torch_agents for s in getattr(a, "seen", ())}),
        "main_pid": os.getpid(),
        "main_threads": torch.get_num_threads(),
        "main_sharing_strategy": torch.multiprocessing.get_sharing_strategy(),
        "runner_threads": getattr(runner, "torch_num_threads", None),
    }


def main():
    mode, out = sys.argv[1:3]
    rest = sys.argv[3:]
    if mode == "sequential":
        result = run(SequentialRunner, config(1))
    elif mode == "parallel":
        # NUM_PARALLEL START_METHOD TORCH_NUM_THREADS|default [MAIN_THREADS]
        import torch

        if len(rest) > 3:
            torch.set_num_threads(int(rest[3]))
        simulation = {} if rest[2] == "default" else {"torchNumThreads": int(rest[2])}
        result = run(Loading, config(int(rest[0]), rest[1], **simulation))
    elif mode == "bad_keys":
        errors = []
        for value in (0, -2, 2.5, True, "2"):
            try:
                TorchAgentParallelRunner(settings=config(2, torchNumThreads=value))
                errors.append(f"accepted {value!r}")
            except pams_cpp.ConfigError as e:
                errors.append([str(e), e.path, e.message])
        result = {"errors": errors}
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
