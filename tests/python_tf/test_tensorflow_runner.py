"""TensorFlowAgentParallelRunner with Keras agents written in Python: the
same logs and agents as SequentialRunner with the thread counts set as the
seed says, for every start method and numParallel 1/2; each worker loads
its model once and runs TensorFlow with the configured thread counts;
fork after TensorFlow ran is refused; bad keys are named; Ctrl-C while
the workers start stops the run within 0.1 s, a worker's error keeps its
type, and the interpreter then exits without nanobind's leak report."""
import os

import framework_suite as suite
import pytest

RUNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_runs.py")


def tf_run(tmp_path, mode, *args, **kwargs):
    """A case of tf_runs.py with tmp_path's model.keras."""
    return suite.run_case(RUNS, tmp_path, mode, tmp_path / "model.keras", *args, **kwargs)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tf")
    tf_run(tmp, "make_model")
    return tmp, tf_run(tmp, "sequential")


@pytest.mark.parametrize("num_parallel, method", [(1, "spawn"), (2, "spawn"), (2, "forkserver"),
                                                  (2, "fork")])
def test_keras_agents_give_sequential_runners_results(models, num_parallel, method):
    tmp, sequential = models
    loads = tmp / f"loads-{num_parallel}-{method}"
    ours = tf_run(tmp, "parallel", num_parallel, method, loads=loads)
    assert len(sequential["logs"]) == 250
    suite.assert_same_run(ours, sequential)
    # Every worker ran TensorFlow with the configured threads, and loaded
    # its model once (in its initializer).
    assert ours["threads"] == [[1, 1]]
    suite.assert_loaded_once_per_worker(loads.read_text().split(), num_parallel)


@pytest.mark.parametrize("level", [None, "3"])
def test_tensorflows_start_up_lines_come_from_the_main_process_only(models, level):
    # TensorFlow 2.21 prints them as it loads, before it reads
    # TF_CPP_MIN_LOG_LEVEL; spawned workers import it with them left out,
    # whatever level the user set.
    tmp, _ = models
    loads = tmp / f"loads-quiet-{level}"
    stderr = []
    tf_run(tmp, "parallel", 2, "spawn", loads=loads, stderr=stderr,
           env={"TF_CPP_MIN_LOG_LEVEL": level})
    workers = loads.read_text().split()
    assert len(workers) == 2  # the run had its workers
    start_up = [line for line in stderr[0].splitlines()
                if "port.cc" in line or "cpu_feature_guard.cc" in line]
    assert not [line for line in start_up if any(f" {pid} " in line for pid in workers)]
    # Each block of them begins with absl's warning, which names no process:
    # one per block printed here, and at most the main process's one when
    # the level hides the blocks' lines.
    absl = stderr[0].count("All log messages before absl::InitializeLog()")
    assert absl <= (len(start_up) if level is None else 1), stderr[0][-3000:]


def test_fork_after_tensorflow_ran_is_refused(models):
    tmp, _ = models
    result = tf_run(tmp, "fork_after_tensorflow")
    assert "TensorFlow has already run in this process" in result["error"]
    assert '"spawn"' in result["error"]


def test_bad_tensorflow_keys_are_named(models):
    tmp, _ = models
    assert tf_run(tmp, "bad_keys")["errors"] == [
        "simulation.tensorflowIntraOpThreads: must be an integer between 1 and 4096, got 0",
        "simulation.tensorflowInterOpThreads: must be an integer between 1 and 4096, got 1.5",
        "simulation.tensorflowGpuMemoryGrowth: must be true or false, got 'yes'",
    ]


def test_ctrl_c_while_workers_start_then_a_failed_run_then_a_quiet_exit(models):
    tmp, _ = models
    stderr = []
    result = tf_run(tmp, "interrupted_then_failed", stderr=stderr)
    assert result["stopped"] is not None and result["stopped"] < 0.1, result
    # The worker initializer's own error (Keras's, for a missing file).
    assert result["failed"] and not result["failed"].startswith("SimulationError"), result
    assert "missing.keras" in result["failed"], result
    assert "nanobind: leaked" not in stderr[0], stderr[0][-2000:]


@pytest.mark.parametrize("how", ["segfault", "exit"])
def test_an_agent_that_crashes_its_worker_ends_the_run_not_this_process(tmp_path, how):
    suite.assert_crash_ends_only_the_run("tf", tmp_path, how)
