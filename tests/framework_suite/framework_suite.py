"""The harness the framework suites share: tests/python_tf, tests/python_jax
and tests/python_torch (pams_cpp's TensorFlow, JAX and PyTorch runners with
Python agents), each run in its framework's venv by tests/run_in_venv.py.

A suite's runs happen in a fresh interpreter per case (a framework is
configured once per process, before it first runs): a runs script (the
suite's tf_runs.py, jax_runs.py or torch_runs.py, or batched_runs.py beside
this module for all three) is called as `python SCRIPT MODE OUT [ARGS]` and
writes what its run left as JSON to OUT. This module holds both sides of
that, so that each suite keeps only what differs (its agent, its model, its
modes and its checks):

* for the runs scripts: config(), the suites' CI2002 with a group of the
  framework's agents; run(), a run and what every suite compares between
  runners; record_load(), the record of a model's loading; refused(), the
  ConfigErrors of bad keys; main(), the command line.
* for the pytest files: run_case(), a case of a runs script in a fresh
  interpreter; assert_same_run() and assert_loaded_once_per_worker(), the
  checks every suite makes.

Who imports it: each suite's conftest.py puts this folder on sys.path (and
has pytest rewrite this module's asserts, so that a failure shows both
sides); each runs script puts it there itself (they run as scripts; the
workers a "spawn" or "forkserver" run starts get the script's sys.path).
pams_cpp is imported only by the functions that run something, so that the
pytest process does not load it.
"""
import copy
import json
import os
import random
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The environment variable a case's loads go to (record_load).
LOADS_ENV = "PAMS_TEST_LOADS"


# The runs scripts' side.

def record_load():
    """Appends this process's id to the file that PAMS_TEST_LOADS names, if
    it is set. A suite's model function (a module-level
    functools.lru_cache function, the workers' initializer) calls it when it
    loads the model, so that a test sees which processes loaded the model,
    and how many times."""
    log = os.environ.get(LOADS_ENV)
    if log:
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")


def config(group, agents, num_parallel, start_method=None, *, base="FCNAgents", fcn_agents=30,
           steps=(None, 150), defaults=None, **simulation):
    """samples/CI2002's config with one more agent group, GROUP, appended to
    the simulation's agents: a copy of the BASE group's settings with AGENTS
    over them (only AGENTS when BASE is None). FCNAgents get FCN_AGENTS
    agents, the sessions STEPS iterationSteps each (None: CI2002's), session
    1 four normal orders a step. The simulation's keys: numParallel, the
    framework's DEFAULTS, then SIMULATION's (they may override DEFAULTS),
    then startMethod START_METHOD where given."""
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        c = json.load(f)
    c[group] = dict(copy.deepcopy(c[base]) if base else {}, **agents)
    c["FCNAgents"]["numAgents"] = fcn_agents
    c["simulation"]["agents"].append(group)
    for session, n in zip(c["simulation"]["sessions"], steps):
        if n is not None:
            session["iterationSteps"] = n
    c["simulation"]["sessions"][1]["maxNormalOrders"] = 4
    c["simulation"].update(numParallel=num_parallel, **(defaults or {}))
    c["simulation"].update(simulation)
    if start_method:
        c["simulation"]["startMethod"] = start_method
    return c


def run(runner_class, c, agent_class, seed=3, agent_fields=None):
    """Runs config C under RUNNER_CLASS with AGENT_CLASS registered, the prng
    random.Random(SEED) and a MarketStepSaver as its logger. Returns the
    runner and what every suite compares between runners (JSON-ready): the
    market step logs, each agent's (name, cash, volume of market 0, its
    `outputs` or None, then what AGENT_FIELDS(agent) gives) and the runner's
    prng state at the end."""
    import pams_cpp

    fields = agent_fields or (lambda agent: ())
    saver = pams_cpp.logs.MarketStepSaver()
    runner = runner_class(settings=copy.deepcopy(c), prng=random.Random(seed), logger=saver)
    runner.class_register(agent_class)
    runner.main()
    return runner, {
        "logs": [repr(sorted(log.items())) for log in saver.market_step_logs],
        "agents": [repr((a.name, a.cash_amount, a.asset_volumes.get(0),
                         getattr(a, "outputs", None)) + tuple(fields(a)))
                   for a in runner.simulator.agents],
        "prng": repr(runner._prng.getstate()),
    }


def refused(runner_class, cases, describe=str):
    """What RUNNER_CLASS says of each (label, config) of CASES, each config
    with a bad key: DESCRIBE(its ConfigError), or "accepted LABEL" where it
    raises none."""
    import pams_cpp

    said = []
    for label, c in cases:
        try:
            runner_class(settings=c)
            said.append(f"accepted {label}")
        except pams_cpp.ConfigError as e:
            said.append(describe(e))
    return said


def main(modes, argv=None):
    """A runs script's command line, MODE OUT [ARGS] (sys.argv's by
    default): writes what MODES[MODE](*ARGS) returns to OUT as JSON."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2 or argv[0] not in modes:
        sys.exit(f"usage: {os.path.basename(sys.argv[0])} MODE OUT [ARGS], "
                 f"MODE one of: {', '.join(modes)}; got {argv!r}")
    mode, out, *args = argv
    result = modes[mode](*args)
    with open(out, "w") as f:
        json.dump(result, f)


# The pytest files' side.

def run_case(script, tmp_path, mode, *args, env=None, loads=None, stderr=None):
    """Runs `python SCRIPT MODE OUT ARGS...` in a fresh interpreter (this
    one's python) and returns the JSON it wrote to OUT, a file of TMP_PATH
    named after MODE and ARGS. Its environment: this one's with ENV's
    entries (an entry None removes the variable) and PAMS_TEST_LOADS=LOADS
    where LOADS is given. Fails the test with the end of its output where it
    exits non-zero; appends its stderr to the list STDERR where given."""
    out = tmp_path / ("-".join([mode, *(os.path.basename(str(a)) for a in args)]) + ".json")
    environment = dict(os.environ)
    for key, value in dict(env or {}, **({LOADS_ENV: str(loads)} if loads is not None
                                          else {})).items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    done = subprocess.run([sys.executable, script, mode, str(out), *map(str, args)],
                          capture_output=True, text=True, timeout=600, env=environment)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    if stderr is not None:
        stderr.append(done.stderr)
    return json.loads(out.read_text())


BATCHED_RUNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "batched_runs.py")


def batched_case(framework, tmp_path, mode, *args, env=None):
    """A case of batched_runs.py (agents whose model calls are batched) with
    FRAMEWORK's model ("tf", "torch" or "jax"): run_case's result."""
    return run_case(BATCHED_RUNS, tmp_path, mode, *args,
                    env=dict(env or {}, PAMS_TEST_FRAMEWORK=framework))


def assert_same_run(ours, ref):
    """OURS (a run of a parallel runner) left what REF (SequentialRunner's)
    did: the same market step logs, agents and prng state at the end."""
    assert ours["logs"] == ref["logs"]
    assert ours["agents"] == ref["agents"]
    assert ours["prng"] == ref["prng"]


def assert_loaded_once_per_worker(pids, num_parallel):
    """PIDS (what record_load wrote in a run) name NUM_PARALLEL processes,
    each once: every worker loaded the model once."""
    assert len(pids) == num_parallel and len(set(pids)) == num_parallel, pids


CRASH_RUNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crash_runs.py")


def assert_crash_ends_only_the_run(framework, tmp_path, how):
    """A case of crash_runs.py: an agent whose call crashes its worker
    (HOW: "segfault" or "exit") under FRAMEWORK's runner with its defaults
    ends the run with a SimulationError naming the agent, the step and how
    the worker ended, and the process that ran it lives on (run_case fails
    the test where it does not exit with status 0) and runs again."""
    result = run_case(CRASH_RUNS, tmp_path, how, env={"PAMS_TEST_FRAMEWORK": framework})
    error = result["error"]
    assert error is not None, "the run raised nothing"
    step = re.search(r"running agent Crashers-\d+ \(Crashing\) at step (\d+) failed", error)
    assert step and int(step.group(1)) >= 40, error
    assert ("killed by signal 11" if how == "segfault" else "exited with status 3") in error, error
    assert result["after"] > 0


GPU_CHECK = os.path.join(ROOT, "bench", "gpu_check.py")


def gpu_check_dry_run(framework):
    """bench/gpu_check.py (scripts/gpu-check.sh's check for machines with a
    GPU) for FRAMEWORK ("torch", "jax" or "tf"), a short run on this
    machine's CPU: it must say that every parallel run gave
    SequentialRunner's results (its exit status is 1 otherwise), so that the
    script keeps working between the sessions that have a GPU."""
    done = subprocess.run([sys.executable, GPU_CHECK, "--framework", framework, "--steps", "20"],
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "runs on the CPU (no GPU visible: a dry run)" in done.stdout, done.stdout
    assert (f"{framework}: every parallel run gave SequentialRunner's results bit for bit"
            in done.stdout), done.stdout

