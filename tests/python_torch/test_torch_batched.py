"""PyTorch agents whose model calls are batched (pams_cpp.agents.ModelCall,
torch tensor rows stacked with torch.cat): the same logs and outputs under
SequentialRunner and TorchAgentParallelRunner (numParallel 1 and 2)."""
import framework_suite as suite
import pytest


def batched_run(tmp_path, mode, *args):
    return suite.batched_case("torch", tmp_path, mode, *args)


@pytest.fixture(scope="module")
def sequential(tmp_path_factory):
    return batched_run(tmp_path_factory.mktemp("torch"), "sequential")


@pytest.mark.parametrize("num_parallel, method", [(1, "spawn"), (2, "spawn"), (2, "fork")])
def test_batched_torch_agents_give_sequential_runners_results(sequential, tmp_path,
                                                              num_parallel, method):
    ours = batched_run(tmp_path, "parallel", num_parallel, method)
    assert len(sequential["logs"]) == 150 and sequential["calls"] > 150
    assert ours == sequential
    # No worker started: no round had a call for one.
    assert ours["kept_worker_sets"] == 0


def test_bits_are_reported(tmp_path):
    result = batched_run(tmp_path, "bits")
    assert result["max_diff"] < 1e-5, result
