"""JaxAgentParallelRunner with agents that call a jitted JAX function: the
same logs and agents as SequentialRunner for every start method and
numParallel 1/2; each worker loads its parameters once and runs JAX as the
config says; bad keys are named."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def jax_run(tmp_path, mode, *args, loads=None):
    out = tmp_path / f"{mode}-{'-'.join(map(str, args))}.json"
    env = dict(os.environ)
    env.pop("XLA_PYTHON_CLIENT_PREALLOCATE", None)
    if loads is not None:
        env["PAMS_TEST_LOADS"] = str(loads)
    done = subprocess.run([sys.executable, os.path.join(HERE, "jax_runs.py"), mode, str(out),
                           *map(str, args)], capture_output=True, text=True, timeout=600,
                          env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(out.read_text())


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
    assert ours["logs"] == ref["logs"]
    assert ours["agents"] == ref["agents"]
    assert ours["prng"] == ref["prng"]
    # The workers ran JAX on the CPU without preallocation, as configured,
    # and loaded the parameters once each (in their initializer).
    assert ours["config"] == [["cpu", "false"]]
    pids = loads.read_text().split()
    assert len(pids) == num_parallel and len(set(pids)) == num_parallel


def test_bad_jax_keys_are_named(sequential):
    tmp, _ = sequential
    assert jax_run(tmp, "bad_keys")["errors"] == [
        "simulation.jaxPlatforms: must be a non-empty string, got ''",
        "simulation.jaxPreallocate: must be true or false, got 1",
        "simulation.jaxMemoryFraction: must be a number in (0, 1], got 1.5",
    ]
