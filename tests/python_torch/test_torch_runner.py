"""TorchAgentParallelRunner with agents that call a small PyTorch model: the
same logs and agents as SequentialRunner for every start method and
numParallel 1/2 (and 4); each worker loads the model once, runs PyTorch
with the configured (or the default) number of threads and shares tensors
through the file system; bad keys are named."""
import os

import framework_suite as suite
import pytest

TORCH_RUNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_runs.py")

# The main process's torch.get_num_threads() in the parallel runs (set
# there before the runner is made): the default torchNumThreads divides it
# by the workers running at once, min(numParallel, maxNormalOrders 4).
MAIN_THREADS = 6
# (numParallel, startMethod, torchNumThreads; None: the default).
RUNS = [(1, "spawn", None), (2, "spawn", 5), (1, "forkserver", 5), (2, "forkserver", None),
        (1, "fork", 5), (2, "fork", None), (4, "fork", None)]
IDS = [f"{n}-{method}-{threads or 'default'}" for n, method, threads in RUNS]


def torch_run(tmp_path, mode, *args, loads=None):
    return suite.run_case(TORCH_RUNS, tmp_path, mode, *args, loads=loads)


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("torch")


@pytest.fixture(scope="module")
def sequential(tmp):
    loads = tmp / "loads-sequential"
    return torch_run(tmp, "sequential", loads=loads), loads.read_text().split()


@pytest.fixture(scope="module")
def parallel(tmp):
    """Each run of RUNS once (several tests look at it): its result and the
    processes that loaded the model."""
    done = {}

    def get(num_parallel, method, threads):
        key = (num_parallel, method, threads)
        if key not in done:
            loads = tmp / f"loads-{num_parallel}-{method}-{threads}"
            try:
                result = torch_run(tmp, "parallel", num_parallel, method,
                                   "default" if threads is None else threads, MAIN_THREADS,
                                   loads=loads)
                done[key] = result, loads.read_text().split()
            except AssertionError as e:
                done[key] = e  # a failed run fails each of its tests, and runs once
        if isinstance(done[key], AssertionError):
            raise done[key]
        return done[key]

    return get


@pytest.mark.parametrize("num_parallel, method, threads", RUNS, ids=IDS)
def test_torch_agents_give_sequential_runners_results(sequential, parallel, num_parallel,
                                                      method, threads):
    ref, _ = sequential
    ours, _ = parallel(num_parallel, method, threads)
    assert len(ref["logs"]) == 130
    assert ref["calls"] > 50
    # The logs, the prng and every agent's cash, assets, outputs and tensor
    # of outputs.
    suite.assert_same_run(ours, ref)
    assert ours["calls"] == ref["calls"]
    assert ours["totals_are_tensors"] and ref["totals_are_tensors"]


@pytest.mark.parametrize("num_parallel, method, threads", RUNS, ids=IDS)
def test_each_worker_loads_the_model_once(sequential, parallel, num_parallel, method, threads):
    ref, ref_loads = sequential
    assert ref_loads == [str(ref["main_pid"])]
    ours, loads = parallel(num_parallel, method, threads)
    # Once in each worker (its initializer), never in the main process.
    suite.assert_loaded_once_per_worker(loads, num_parallel)
    assert str(ours["main_pid"]) not in loads
    # Every call ran in one of those workers, which kept the model.
    pids = {str(pid) for pid, _, _ in ours["seen"]}
    assert pids and pids <= set(loads)


@pytest.mark.parametrize("num_parallel, method, threads", RUNS, ids=IDS)
def test_workers_run_the_configured_number_of_threads(parallel, num_parallel, method, threads):
    ours, _ = parallel(num_parallel, method, threads)
    expected = threads if threads is not None else max(1, MAIN_THREADS // min(num_parallel, 4))
    assert ours["runner_threads"] == expected
    assert {n for _, n, _ in ours["seen"]} == {expected}
    # The main process keeps its own.
    assert ours["main_threads"] == MAIN_THREADS


@pytest.mark.parametrize("num_parallel, method, threads", RUNS, ids=IDS)
def test_workers_share_tensors_through_the_file_system(sequential, parallel, num_parallel,
                                                       method, threads):
    ref, _ = sequential
    # PyTorch's own on Linux, without the runner.
    assert ref["main_sharing_strategy"] == "file_descriptor"
    assert {s for _, _, s in ref["seen"]} == {"file_descriptor"}
    ours, _ = parallel(num_parallel, method, threads)
    assert {s for _, _, s in ours["seen"]} == {"file_system"}
    assert ours["main_sharing_strategy"] == "file_system"


def test_bad_torch_keys_are_named(tmp):
    key = "simulation.torchNumThreads"
    assert torch_run(tmp, "bad_keys")["errors"] == [
        [f"{key}: must be a positive integer, got {v}", key, f"must be a positive integer, got {v}"]
        for v in ("0", "-2", "2.5", "True", "'2'")
    ]


@pytest.mark.parametrize("how", ["segfault", "exit"])
def test_an_agent_that_crashes_its_worker_ends_the_run_not_this_process(tmp_path, how):
    suite.assert_crash_ends_only_the_run("torch", tmp_path, how)
