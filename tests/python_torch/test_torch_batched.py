"""PyTorch agents whose model calls are batched (pams_cpp.agents.ModelCall,
torch tensor rows stacked with torch.cat): the same logs and outputs under
SequentialRunner and TorchAgentParallelRunner (numParallel 1 and 2)."""
import json
import os
import subprocess
import sys

import pytest

RUNS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    "batched_runs.py")


def batched_run(tmp_path, mode, *args):
    out = tmp_path / f"{mode}-{'-'.join(map(str, args))}.json"
    done = subprocess.run([sys.executable, RUNS, "torch", mode, str(out), *map(str, args)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def sequential(tmp_path_factory):
    return batched_run(tmp_path_factory.mktemp("torch"), "sequential")


@pytest.mark.parametrize("num_parallel, method", [(1, "spawn"), (2, "spawn"), (2, "fork")])
def test_batched_torch_agents_give_sequential_runners_results(sequential, tmp_path,
                                                              num_parallel, method):
    ours = batched_run(tmp_path, "parallel", num_parallel, method)
    assert len(sequential["logs"]) == 150 and sequential["calls"] > 150
    assert ours == sequential


def test_bits_are_reported(tmp_path):
    result = batched_run(tmp_path, "bits")
    assert result["max_diff"] < 1e-5, result
