"""Keras agents (eager, the seed's pattern) whose model calls are batched
(pams_cpp.agents.ModelCall): 12 agents with one model beside 20 FCNAgents
give the same logs and outputs under SequentialRunner and
TensorFlowAgentParallelRunner at numParallel 1 and 2 (the batched calls run
in the main process under every runner); and whether a batch of 12 rows
gives each row's single-row output bit for bit, with TensorFlow's oneDNN
on and off (docs/python.md, "Batched model calls", says what)."""
import framework_suite as suite
import pytest


def batched_run(tmp_path, mode, *args, env=None):
    return suite.batched_case("tf", tmp_path, mode, *args, env=env)


@pytest.fixture(scope="module")
def sequential(tmp_path_factory):
    return batched_run(tmp_path_factory.mktemp("keras"), "sequential")


@pytest.mark.parametrize("num_parallel, method", [(1, "spawn"), (2, "spawn"), (2, "forkserver")])
def test_batched_keras_agents_give_sequential_runners_results(sequential, tmp_path,
                                                              num_parallel, method):
    ours = batched_run(tmp_path, "parallel", num_parallel, method)
    assert len(sequential["logs"]) == 150 and sequential["calls"] > 150
    assert ours == sequential
    # No worker started: no round had a call for one.
    assert ours["kept_worker_sets"] == 0


@pytest.mark.parametrize("onednn", ["0", "1"])
def test_a_batch_and_single_rows_differ_in_the_last_bits(tmp_path, onednn):
    """The documented answer: a Keras Dense model's batch of 12 rows does not
    give each row's single-row output bit for bit (the matrix product
    of a batch is blocked differently), with oneDNN on or off; the
    difference is in the last bits (float32)."""
    result = batched_run(tmp_path, "bits", env={"TF_ENABLE_ONEDNN_OPTS": onednn})
    assert result["max_diff"] < 1e-5, result
    assert result["same"] is False, result
