"""JaxAgentParallelRunner with agents that call a jitted JAX function: the
same logs and agents as SequentialRunner for every start method and
numParallel 1/2; each worker loads its parameters once and runs JAX as the
config says; bad keys are named."""
import os

import framework_suite as suite
import pytest

RUNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jax_runs.py")


def jax_run(tmp_path, mode, *args, loads=None):
    """A case of jax_runs.py, without XLA_PYTHON_CLIENT_PREALLOCATE and
    XLA_FLAGS from here (the runner sets them in the workers)."""
    return suite.run_case(RUNS, tmp_path, mode, *args, loads=loads,
                          env={"XLA_PYTHON_CLIENT_PREALLOCATE": None, "XLA_FLAGS": None})


@pytest.fixture(scope="module")
def sequential(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("jax")
    return tmp, jax_run(tmp, "sequential")


@pytest.mark.parametrize("num_parallel, method", [(1, "spawn"), (2, "spawn"), (2, "forkserver"),
                                                  (2, "fork")])
def test_jax_agents_give_sequential_runners_results(sequential, num_parallel, method):
    tmp, ref = sequential
    loads = tmp / f"loads-{num_parallel}-{method}"
    ours = jax_run(tmp, "parallel", num_parallel, method, loads=loads)
    assert len(ref["logs"]) == 250
    suite.assert_same_run(ours, ref)
    # The workers ran JAX on the CPU without preallocation and with XLA's
    # deterministic GPU ops, as configured, and loaded the parameters once
    # each (in their initializer).
    assert ours["config"] == [["cpu", "false", "--xla_gpu_deterministic_ops=true"]]
    suite.assert_loaded_once_per_worker(loads.read_text().split(), num_parallel)


def test_bad_jax_keys_are_named(sequential):
    tmp, _ = sequential
    assert jax_run(tmp, "bad_keys")["errors"] == [
        "simulation.jaxPlatforms: must be a non-empty string, got ''",
        "simulation.jaxPreallocate: must be true or false, got 1",
        "simulation.jaxMemoryFraction: must be a number in (0, 1], got 1.5",
        "simulation.jaxDeterministicOps: must be true or false, got 'yes'",
    ]


@pytest.mark.parametrize("how", ["segfault", "exit"])
def test_an_agent_that_crashes_its_worker_ends_the_run_not_this_process(tmp_path, how):
    suite.assert_crash_ends_only_the_run("jax", tmp_path, how)
