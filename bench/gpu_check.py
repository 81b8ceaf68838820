#!/usr/bin/env python3
"""The agent-parallel runners on a GPU: agents that call an MLP of about
300k parameters (16 -> 512 -> 512 -> 1) on the GPU in their
``submit_orders``, 12 of them asked every round beside 20 FCNAgents, run by
SequentialRunner and by the framework's runner with 2 worker processes
sharing one GPU (each framework's memory growth: PyTorch's caching
allocator, JAX without preallocation, TensorFlow's memory growth), with
eager single-row calls (the seed's pattern) and with batched calls
(pams_cpp.agents.ModelCall).

It checks that every parallel run leaves SequentialRunner's logs, agents
and prng state bit for bit (exit status 1 where one does not), says whether
batched and single-row calls give the same bits on this device, and prints
whole-run times (the workers' start-up included; a later run reuses the
workers) with their ratios to SequentialRunner's. scripts/gpu-check.sh runs
it for each framework that imports; by hand, one framework per process:

    python bench/gpu_check.py --framework torch|jax|tf [--steps 300]

Without a GPU it runs on the CPU and says so (a dry run of the script).
"""
import argparse
import contextlib
import copy
import functools
import io
import json
import os
import random
import subprocess
import sys
import time
import warnings

FRAMEWORK = os.environ.get("PAMS_GPU_CHECK_FRAMEWORK")
if FRAMEWORK is None:  # the main process: the workers inherit the variable
    for i, a in enumerate(sys.argv):
        if a == "--framework" and i + 1 < len(sys.argv):
            FRAMEWORK = os.environ["PAMS_GPU_CHECK_FRAMEWORK"] = sys.argv[i + 1]
# Before any framework is imported, here and (inherited) in the workers:
# cuBLAS's deterministic workspace for PyTorch's deterministic algorithms,
# and TensorFlow's start-up lines kept quiet.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# JAX takes 75% of the GPU's memory at its first op unless told not to; the
# JAX runner tells its workers so, and this process must not take it first.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
# XLA picks a GPU's kernels by timing them in each process unless its ops
# are deterministic: the JAX runner gives its workers this flag, and this
# process runs JAX before creating the runner.
os.environ.setdefault("XLA_FLAGS", "--xla_gpu_deterministic_ops=true")

import numpy as np  # noqa: E402

import pams_cpp  # noqa: E402
from pams_cpp.agents import ModelCall  # noqa: E402
from pams_cpp.runners import SequentialRunner  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FEATURES = 16
AGENTS = 12


def device():
    """Where the model runs: "gpu" or "cpu" (no GPU visible)."""
    if FRAMEWORK == "torch":
        import torch

        return "gpu" if torch.cuda.is_available() else "cpu"
    if FRAMEWORK == "jax":
        import jax

        return "gpu" if any(d.platform == "gpu" for d in jax.devices()) else "cpu"
    import tensorflow as tf

    return "gpu" if tf.config.list_physical_devices("GPU") else "cpu"


@functools.lru_cache(maxsize=None)
def model():
    """The MLP, built once per process (the seed's module-level cache), with
    weights from a fixed seed, on the GPU where there is one."""
    if FRAMEWORK == "torch":
        import torch

        torch.use_deterministic_algorithms(True)
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(FEATURES, 512), torch.nn.Tanh(),
                                  torch.nn.Linear(512, 512), torch.nn.Tanh(),
                                  torch.nn.Linear(512, 1))
        net.requires_grad_(False)
        return net.eval().to("cuda" if torch.cuda.is_available() else "cpu")
    if FRAMEWORK == "jax":
        import jax
        import jax.numpy as jnp

        keys = jax.random.split(jax.random.PRNGKey(0), 3)
        sizes = [(FEATURES, 512), (512, 512), (512, 1)]
        ws = [jax.random.normal(k, s) / np.sqrt(s[0]) for k, s in zip(keys, sizes)]

        @jax.jit
        def predict(x):
            return jnp.tanh(jnp.tanh(x @ ws[0]) @ ws[1]) @ ws[2]

        return predict
    import keras

    keras.utils.set_random_seed(0)
    net = keras.Sequential([keras.Input(shape=(FEATURES,)),
                            keras.layers.Dense(512, activation="tanh"),
                            keras.layers.Dense(512, activation="tanh"), keras.layers.Dense(1)])
    net(np.zeros((1, FEATURES), dtype="float32"), training=False)
    return net


def row(price, prng):
    """An agent's input row, in the framework's own type, on the GPU where
    the framework puts it: the market price and draws of the agent's prng."""
    values = [price / 300.0 - 1.0] + [prng.random() for _ in range(FEATURES - 1)]
    if FRAMEWORK == "torch":
        import torch

        return torch.tensor(values, dtype=torch.float32,
                            device="cuda" if torch.cuda.is_available() else "cpu")
    if FRAMEWORK == "jax":
        import jax.numpy as jnp

        return jnp.asarray(values, dtype=jnp.float32)
    return np.asarray([values], dtype=np.float32)


def order(agent, market, y):
    return [pams_cpp.Order(agent_id=agent.agent_id, market_id=market.market_id,
                           is_buy=y > 0, kind=pams_cpp.LIMIT_ORDER, volume=1,
                           price=market.get_market_price() * (1.0 + 0.01 * float(np.tanh(y))),
                           ttl=20)]


class EagerGpuAgent(pams_cpp.agents.Agent):
    """The seed's pattern: one eager model call on one row per order."""

    def submit_orders(self, markets):
        market = markets[0]
        x = row(market.get_market_price(), self.prng)
        if FRAMEWORK == "torch":
            import torch

            with torch.no_grad():
                y = float(model()(x)[0])
        elif FRAMEWORK == "jax":
            y = float(model()(x)[0])
        else:
            y = float(model()(x, training=False)[0][0])
        self.outputs = getattr(self, "outputs", []) + [y]
        return order(self, market, y)


class BatchedGpuAgent(pams_cpp.agents.Agent):
    """The same agent, its calls batched with the round's other calls."""

    def prepare_model_calls(self, markets):
        return ModelCall(model(), row(markets[0].get_market_price(), self.prng))

    def submit_orders_with_model_outputs(self, markets, outputs):
        y = float(outputs[0][0])
        self.outputs = getattr(self, "outputs", []) + [y]
        return order(self, markets[0], y)


def config(agent_class, steps, num_parallel=1):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        c = json.load(f)
    c["GpuAgents"] = {"class": agent_class, "numAgents": AGENTS, "markets": ["Market"],
                      "assetVolume": 50, "cashAmount": 10000}
    c["FCNAgents"]["numAgents"] = 20
    c["simulation"]["agents"] = ["GpuAgents", "FCNAgents"]
    c["simulation"]["sessions"] = [
        {"sessionName": 0, "iterationSteps": 30, "withOrderPlacement": True,
         "withOrderExecution": False, "withPrint": False},
        {"sessionName": 1, "iterationSteps": steps, "withOrderPlacement": True,
         "withOrderExecution": True, "withPrint": False, "maxNormalOrders": AGENTS + 20}]
    c["simulation"].update(numParallel=num_parallel, startMethod="spawn")
    if FRAMEWORK == "tf":
        c["simulation"].update(tensorflowIntraOpThreads=1, tensorflowInterOpThreads=1)
    return c


def parallel_runner():
    from pams_cpp import runners

    return {"tf": runners.TensorFlowAgentParallelRunner, "torch": runners.TorchAgentParallelRunner,
            "jax": runners.JaxAgentParallelRunner}[FRAMEWORK]


def run(runner_class, c):
    """A whole run (the runner's construction included): its seconds and
    what must be the same between runners."""
    saver = pams_cpp.logs.MarketStepSaver()
    start = time.perf_counter()
    runner = runner_class(settings=copy.deepcopy(c), prng=random.Random(7), logger=saver)
    runner.class_register(EagerGpuAgent)
    runner.class_register(BatchedGpuAgent)
    with contextlib.redirect_stdout(io.StringIO()):
        runner.main()
    seconds = time.perf_counter() - start
    agents = [(a.name, a.cash_amount, a.asset_volumes.get(0), getattr(a, "outputs", None))
              for a in runner.simulator.agents]
    return seconds, {"logs": [sorted(log.items()) for log in saver.market_step_logs],
                     "agents": agents, "prng": runner._prng.getstate()}


def gpu_processes():
    """nvidia-smi's compute processes (pid, memory), or why there are none."""
    try:
        done = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory",
                               "--format=csv,noheader"], capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"(nvidia-smi: {e})"
    return "; ".join(done.stdout.split("\n")).strip("; ") or "(none listed)"


def bits():
    """Whether a batch of AGENTS rows gives each row's single-row output bit
    for bit on this device; and the largest difference."""
    from pams_cpp.agents.model_call import run_batch

    prng = random.Random(0)
    rows = [row(prng.uniform(250, 350), prng) for _ in range(AGENTS)]
    batched = np.stack([np.asarray(o) for o in run_batch([ModelCall(model(), r) for r in rows])])
    single = np.stack([np.asarray(run_batch([ModelCall(model(), r)])[0]) for r in rows])
    return bool(np.array_equal(batched, single)), float(np.max(np.abs(batched - single)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--framework", choices=["torch", "jax", "tf"], required=True)
    parser.add_argument("--steps", type=int, default=300,
                        help="the steps of the session with orders executed (default 300)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="order price does not accord")
    where = device()
    print(f"{args.framework}: the model runs on the {where.upper()}"
          + ("" if where == "gpu" else " (no GPU visible: a dry run)"), flush=True)
    start = time.perf_counter()
    model()
    print(f"  this process's framework start and model: {time.perf_counter() - start:.2f} s",
          flush=True)
    same, diff = bits()
    print(f"  a batch of {AGENTS} rows against single-row calls: "
          + ("the same bits" if same else f"other bits (largest difference {diff:.3g})"),
          flush=True)

    failures = []
    started = False
    for agent_class in ("EagerGpuAgent", "BatchedGpuAgent"):
        ref_seconds, ref = run(SequentialRunner, config(agent_class, args.steps))
        calls = sum(len(a[3] or []) for a in ref["agents"])
        print(f"  {agent_class}: SequentialRunner {ref_seconds:.2f} s "
              f"({calls} model calls answered)", flush=True)
        runner_class = parallel_runner()
        for _ in range(2):
            label = "workers kept from the last run" if started else "workers start"
            started = True
            seconds, ours = run(runner_class, config(agent_class, args.steps, num_parallel=2))
            identical = ours == ref
            if not identical:
                failures.append(f"{agent_class}, {runner_class.__name__} ({label})")
            print(f"    {runner_class.__name__}, 2 workers ({label}): {seconds:.2f} s, "
                  f"{ref_seconds / seconds:.2f}x SequentialRunner; "
                  + ("identical to SequentialRunner" if identical
                     else "NOT identical to SequentialRunner"), flush=True)
        if where == "gpu":
            print(f"    GPU processes (pid, memory) with the workers kept: {gpu_processes()}",
                  flush=True)
    from pams_cpp.runners import shutdown_workers

    shutdown_workers()
    if failures:
        print("  results differ from SequentialRunner's: " + "; ".join(failures))
        sys.exit(1)
    print(f"  {args.framework}: every parallel run gave SequentialRunner's results bit for bit")


if __name__ == "__main__":
    main()
