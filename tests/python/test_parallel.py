"""The agent-parallel runners from Python: MultiThreadAgentParallelRunner
with Python agents, events and loggers, and MultiProcessAgentParallelRunner
with the engine's classes and every start method, give SequentialRunner's
results; the worker initializer runs once in each worker; what the process
runner cannot run yet is refused with a clear message."""
import copy
import json
import os
import random
import re
import threading
import time

import pytest

import pams_cpp
from pams_cpp.runners import MultiProcessAgentParallelRunner
from pams_cpp.runners import MultiThreadAgentParallelRunner
from pams_cpp.runners import SequentialRunner
from conftest import ROOT
from conftest import processes_tagged
from test_python_agents import CONFIGS
from test_python_agents import OUR_CLASSES
from test_python_agents import OUR_LOGGERS
from test_python_agents import typed_value


def with_parallel(config, num_parallel, max_normal_orders=4, **simulation):
    config = copy.deepcopy(config)
    config["simulation"]["numParallel"] = num_parallel
    config["simulation"].update(simulation)
    for session in config["simulation"]["sessions"]:
        session["maxNormalOrders"] = max(session.get("maxNormalOrders", 1), max_normal_orders)
    return config


def outcome(runner_class, config, seed, classes=OUR_CLASSES, logger=None):
    """Everything a run leaves: the market logs, every agent's and event's
    state, what the Python logger received, the runner's generator."""
    saver = pams_cpp.logs.MarketStepSaver() if logger is None else logger
    prng = random.Random(seed)
    runner = runner_class(settings=copy.deepcopy(config), prng=prng, logger=saver)
    for cls in classes.values():
        runner.class_register(cls)
    runner.main()
    state = []
    for a in runner.simulator.agents + runner.simulator.events:
        own = a.state() if hasattr(a, "state") else None
        cash = repr(float(a.cash_amount)) if hasattr(a, "cash_amount") else None
        state.append((a.name, type(a).__name__, cash, typed_value(own)))
    logs = (typed_value(saver.records) if logger is not None else
            [{k: typed_value(v) for k, v in log.items()} for log in saver.market_step_logs])
    return logs, state, prng.getstate()


@pytest.mark.parametrize("name", ["keeper", "events", "shock_transfer", "market_share"])
@pytest.mark.parametrize("num_parallel", [1, 2, 4])
def test_threads_run_python_classes_as_sequential_runner(name, num_parallel, capsys):
    config = with_parallel(CONFIGS[name], num_parallel)
    ours = outcome(MultiThreadAgentParallelRunner, config, 5)
    assert len(ours[0]) >= 600
    assert ours == outcome(SequentialRunner, config, 5)


def test_threads_give_a_python_logger_sequential_runners_logs(capsys):
    config = with_parallel(CONFIGS["keeper"], 2)
    ours = outcome(MultiThreadAgentParallelRunner, config, 1,
                   logger=OUR_LOGGERS["RecordingLogger"]())
    assert ours == outcome(SequentialRunner, config, 1, logger=OUR_LOGGERS["RecordingLogger"]())


def test_the_worker_initializer_runs_once_in_each_thread(capsys):
    calls = []

    class Loading(MultiThreadAgentParallelRunner):
        def _get_worker_initializer(self):
            return lambda model: calls.append((threading.get_ident(), model))

        def _get_worker_initargs(self):
            return ("model.keras",)

    config = with_parallel(CONFIGS["keeper"], 3, max_normal_orders=3)
    outcome(Loading, config, 2)
    assert len(calls) == 3 and len({t for t, _ in calls}) == 3
    assert {m for _, m in calls} == {"model.keras"}
    assert threading.get_ident() in {t for t, _ in calls}


def test_a_failing_worker_initializer_stops_the_run_with_its_error(capsys):
    def load(path):
        raise FileNotFoundError(path)

    class Failing(MultiThreadAgentParallelRunner):
        def _get_worker_initializer(self):
            return load

        def _get_worker_initargs(self):
            return ("missing.keras",)

    # PAMS's development branch's rule: a RuntimeError naming the
    # initializer, caused by its exception (test_runner_hooks.py has more).
    with pytest.raises(RuntimeError, match="the worker initializer failed on this worker "
                                           r"\(thread .*missing.keras") as info:
        outcome(Failing, with_parallel(CONFIGS["keeper"], 2), 2)
    assert isinstance(info.value.__cause__, FileNotFoundError)
    assert "in the worker initializer" in info.value.__notes__[0]


BUILTIN_SAMPLES = ["CI2002", "shock_transfer", "trading_halt"]


@pytest.mark.parametrize("start_method", ["fork", "spawn", "forkserver"])
@pytest.mark.parametrize("sample", BUILTIN_SAMPLES)
def test_processes_run_the_engines_classes_as_sequential_runner(sample, start_method, capsys):
    with open(os.path.join(ROOT, "samples", sample, "config.json")) as f:
        config = with_parallel(json.load(f), 2, startMethod=start_method)
    ours = outcome(MultiProcessAgentParallelRunner, config, 3, classes={})
    assert len(ours[0]) >= 100
    assert ours == outcome(SequentialRunner, config, 3, classes={})


def test_a_subclass_chooses_the_default_start_method(capsys):
    class Spawning(MultiProcessAgentParallelRunner):
        default_start_method = "spawn"

    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        config = with_parallel(json.load(f), 2)
    assert (outcome(Spawning, config, 4, classes={}) ==
            outcome(SequentialRunner, config, 4, classes={}))

    class Bad(MultiProcessAgentParallelRunner):
        default_start_method = "thread"

    with pytest.raises(ValueError, match='Bad.default_start_method must be "spawn", '
                                         '"forkserver" or "fork", got \'thread\''):
        Bad(settings=config)


@pytest.mark.parametrize("start_method", ["fork", "spawn", "forkserver"])
@pytest.mark.parametrize("name", ["keeper", "events", "market_share"])
def test_processes_run_python_classes_as_sequential_runner(name, start_method, capsys):
    """Python agents (KeeperAgent keeps, cancels and records in its own
    fields in submit_orders), events and markets in worker processes."""
    config = with_parallel(CONFIGS[name], 2, startMethod=start_method)
    ours = outcome(MultiProcessAgentParallelRunner, config, 6)
    assert len(ours[0]) >= 600
    assert ours == outcome(SequentialRunner, config, 6)


def test_four_forked_workers_give_sequential_runners_results(capsys):
    config = with_parallel(CONFIGS["shock_transfer"], 4, max_normal_orders=6,
                           startMethod="fork")
    assert (outcome(MultiProcessAgentParallelRunner, config, 2) ==
            outcome(SequentialRunner, config, 2))


def record_pid(path):
    """A worker initializer: says which process it ran in."""
    with open(path, "a") as f:
        f.write(f"{os.getpid()}\n")


class PidRecorder(pams_cpp.agents.FCNAgent):
    """Records the process of each of its calls in its own fields."""

    def submit_orders(self, markets):
        self.pids = getattr(self, "pids", []) + [os.getpid()]
        return super().submit_orders(markets)


@pytest.mark.parametrize("start_method", ["fork", "spawn", "forkserver"])
def test_each_worker_process_runs_the_initializer_once(start_method, tmp_path, capsys):
    path = tmp_path / "pids"

    class Loading(MultiProcessAgentParallelRunner):
        def _get_worker_initializer(self):
            return record_pid

        def _get_worker_initargs(self):
            return (str(path),)

    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        config = with_parallel(json.load(f), 2, startMethod=start_method)
    config["FCNAgents"]["class"] = "PidRecorder"
    runner = Loading(settings=config, prng=random.Random(1))
    runner.class_register(PidRecorder)
    runner.main()
    pids = [int(line) for line in path.read_text().split()]
    assert len(pids) == 2 and len(set(pids)) == 2 and os.getpid() not in pids
    # The agents' fields came back from the workers: their calls ran there.
    seen = {p for a in runner.simulator.agents for p in getattr(a, "pids", [])}
    assert seen <= set(pids) | {os.getpid()} and seen & set(pids)


def test_classes_of_a_main_script_reach_spawned_workers(tmp_path):
    """Classes defined in __main__, which multiprocessing sends by name,
    reach spawned workers (by value), and the script's guarded code runs
    once."""
    import subprocess
    import sys

    script = tmp_path / "script.py"
    script.write_text(f"""
import copy, json, random
import pams_cpp
from pams_cpp.runners import MultiProcessAgentParallelRunner, SequentialRunner

class Counting(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        self.calls = getattr(self, "calls", 0) + 1
        return super().submit_orders(markets)

def run(cls, config):
    saver = pams_cpp.logs.MarketStepSaver()
    runner = cls(settings=copy.deepcopy(config), prng=random.Random(9), logger=saver)
    runner.class_register(Counting)
    runner.main()
    return ([log["market_price"] for log in saver.market_step_logs],
            [getattr(a, "calls", 0) for a in runner.simulator.agents])

if __name__ == "__main__":
    # Every warning shown: both runs warn at the same line of this script
    # (the user's line), which Python's default filter shows once.
    import warnings
    warnings.simplefilter("always")
    config = json.load(open({os.path.join(ROOT, "samples/CI2002/config.json")!r}))
    config["FCNAgents"]["class"] = "Counting"
    config["simulation"].update(numParallel=2, startMethod="spawn")
    config["simulation"]["sessions"][1]["maxNormalOrders"] = 4
    a = run(SequentialRunner, config)
    b = run(MultiProcessAgentParallelRunner, config)
    print("RESULT", a == b, sum(b[1]))
""")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT")]
    assert lines == ["RESULT True 2100"], out.stdout + out.stderr
    # The config's warning once per run, from the main process only.
    assert out.stderr.count("hifreqSubmitRate is replaced") == 2, out.stderr


class Failing(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 150 and self.agent_id % 7 == 0:
            raise ValueError("no price today")
        return super().submit_orders(markets)


class Dying(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 120:
            os._exit(3)
        return super().submit_orders(markets)


class Unloadable(pams_cpp.agents.FCNAgent):
    """Its state cannot be loaded in a worker once it has made 30 calls."""

    def submit_orders(self, markets):
        self.calls = getattr(self, "calls", 0) + 1
        return super().submit_orders(markets)

    def __getstate__(self):
        return {"calls": getattr(self, "calls", 0)}

    def __setstate__(self, state):
        if state["calls"] >= 30 and str(os.getpid()) != os.environ["PAMS_TEST_MAIN_PID"]:
            raise RuntimeError("cannot load this state")
        self.calls = state["calls"]


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_a_worker_that_raises_or_dies_ends_the_run_with_a_clear_error(start_method, capsys,
                                                                       monkeypatch):
    monkeypatch.setenv("PAMS_TEST_MAIN_PID", str(os.getpid()))
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        # workerTimeout: every task in a worker (a lone one would run here).
        config = with_parallel(json.load(f), 2, max_normal_orders=8, startMethod=start_method,
                               workerTimeout=60)
    # A Python error keeps its type (raised again in this process, as
    # concurrent.futures does), with the worker's traceback as its cause
    # (source lines included) and a note naming the agent and the step.
    for cls, error, message, note in (
            (Failing, ValueError, "no price today",
             r"in submit_orders of agent FCNAgents-\d+ \(Failing\) at step 150"),
            (Dying, pams_cpp.SimulationError,
             r"worker process \d running agent FCNAgents-\d+ \(Dying\) at step 120 failed: .*exit",
             None),
            # The worker cannot go on (it exits), with tasks queued.
            (Unloadable, RuntimeError, "cannot load this state",
             r"loading, in a worker process, the state of agent FCNAgents-\d+ \(Unloadable\)")):
        config["FCNAgents"]["class"] = cls.__name__
        runner = MultiProcessAgentParallelRunner(settings=copy.deepcopy(config),
                                                 prng=random.Random(1))
        runner.class_register(cls)
        with pytest.raises(error, match=message) as info:
            runner.main()
        if note is not None:
            assert type(info.value) is error
            assert re.match(note, info.value.__notes__[0]), info.value.__notes__
            cause = str(info.value.__cause__)
            assert f"File \"{__file__}\"" in cause and "raise" in cause, cause
    # The interpreter goes on and runs again.
    config["FCNAgents"]["class"] = "FCNAgent"
    assert outcome(MultiProcessAgentParallelRunner, config, 1, classes={})[0]


def test_pams_names_of_the_parallel_runners():
    import pams

    assert issubclass(pams_cpp.runners.MultiProcessAgentParallelRunner,
                      pams_cpp.runners.MultiThreadAgentParallelRunner)
    assert issubclass(pams.runners.MultiProcessAgentParallelRunner,
                      pams.runners.MultiThreadAgentParallelRunner)
    assert pams_cpp.runners.agent_parallel.MultiThreadAgentParallelRunner is (
        pams_cpp.runners.MultiThreadAgentParallelRunner)


def test_without_tensorflow_its_runner_says_how_to_install_it():
    import subprocess
    import sys

    script = (
        "import sys, pams_cpp\n"
        "from pams_cpp.runners import TensorFlowAgentParallelRunner\n"
        "assert 'tensorflow' not in sys.modules\n"
        "try:\n"
        f"    TensorFlowAgentParallelRunner(settings={os.path.join(ROOT, 'samples/CI2002/config.json')!r})\n"
        "except ImportError as e:\n"
        "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    # This venv has no TensorFlow (.venv-tf has; tests/python_tf runs there).
    assert "TensorFlowAgentParallelRunner needs TensorFlow" in out
    assert "pip install tensorflow (or tensorflow-cpu" in out


def test_without_pytorch_or_jax_their_runners_say_how_to_install_them():
    from pams_cpp.runners import JaxAgentParallelRunner
    from pams_cpp.runners import TorchAgentParallelRunner

    path = os.path.join(ROOT, "samples/CI2002/config.json")
    # This venv has neither (.venv-jax has JAX; tests/python_jax runs there).
    with pytest.raises(ImportError, match=r"TorchAgentParallelRunner needs PyTorch.*pip "
                                          r"install torch"):
        TorchAgentParallelRunner(settings=path)
    with pytest.raises(ImportError, match=r"JaxAgentParallelRunner needs JAX.*pip install jax"):
        JaxAgentParallelRunner(settings=path)


class Limited(pams_cpp.agents.FCNAgent):
    """Keeps a cache it does not send to workers (__getstate__ leaves it
    out), and a count that travels."""

    def submit_orders(self, markets):
        self.count = getattr(self, "count", 0) + 1
        self.cache = getattr(self, "cache", None) or {"made in": os.getpid()}
        return super().submit_orders(markets)

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items()
                if k not in ("cache", "_engine", "prng", "simulator", "logger")}

    def __setstate__(self, state):
        self.__dict__.update(state)


def test_a_class_limits_what_travels_with_getstate(capsys):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        config = with_parallel(json.load(f), 2, startMethod="fork", workerTimeout=60)
    config["FCNAgents"]["class"] = "Limited"
    runner = MultiProcessAgentParallelRunner(settings=config, prng=random.Random(2))
    runner.class_register(Limited)
    runner.main()
    agents = [a for a in runner.simulator.agents if hasattr(a, "count")]
    assert sum(a.count for a in agents) == 2400  # every call's count came back
    # The cache never came back from a worker: the main process has none.
    assert all(not hasattr(a, "cache") for a in agents)


class Hanging(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 110:
            import time

            time.sleep(60)
        return super().submit_orders(markets)


def test_a_worker_hanging_past_the_timeout_ends_the_run(capsys):
    import time

    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        # The timeout bounds the workers' start too, which took 1.25 s here
        # (a spawned worker imports this module): 1 s failed on a loaded
        # machine.
        config = with_parallel(json.load(f), 2, startMethod="spawn", workerTimeout=5)
    config["FCNAgents"]["class"] = "Hanging"
    runner = MultiProcessAgentParallelRunner(settings=config, prng=random.Random(2))
    runner.class_register(Hanging)
    start = time.monotonic()
    with pytest.raises(pams_cpp.SimulationError,
                       match=r"running agent FCNAgents-\d+ \(Hanging\) at step 110 failed"):
        runner.main()
    assert time.monotonic() - start < 30


def test_ctrl_c_stops_python_workers_and_leaves_none(capsys):
    import signal
    import subprocess
    import sys

    script = f"""
import json, os, random, signal, threading
import pams_cpp
from pams_cpp.runners import MultiProcessAgentParallelRunner

class Slow(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        import time
        time.sleep(0.01)
        return super().submit_orders(markets)

if __name__ == "__main__":
    # Python installs its SIGINT handler only where SIGINT is not ignored
    # already, and a shell without job control starts background commands
    # with SIGINT ignored: this test's Ctrl-C must not depend on how the
    # tests were started.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    config = json.load(open({os.path.join(ROOT, 'samples/CI2002/config.json')!r}))
    config["FCNAgents"]["class"] = "Slow"
    config["simulation"].update(numParallel=2, startMethod="spawn", workerTimeout=30)
    config["simulation"]["sessions"][1]["maxNormalOrders"] = 4
    runner = MultiProcessAgentParallelRunner(settings=config, prng=random.Random(1))
    runner.class_register(Slow)
    threading.Timer(3.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        runner.main()
        print("RAN TO THE END")
    except KeyboardInterrupt:
        print("INTERRUPTED")
    print("STILL HERE", runner.simulator.markets[0].get_time() > 0)
"""
    # The script's processes carry a tag of this test in their environment
    # (workers inherit it), so that other tests' workers (tests may run at
    # the same time) are not counted.
    tag = f"ctrl-c-{os.getpid()}-{time.monotonic_ns()}"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PAMS_TEST_TAG=tag))
    assert "INTERRUPTED" in done.stdout and "STILL HERE True" in done.stdout, (
        done.stdout + done.stderr[-2000:])
    # No worker outlives it.
    assert processes_tagged(tag) == []


@pytest.mark.parametrize("start_method", ["spawn", "forkserver"])
def test_classes_of_an_interactive_session_reach_workers(start_method):
    """A main module with no file (a notebook's, here one read from stdin),
    which multiprocessing's spawn cannot import: its classes travel by
    value."""
    import subprocess
    import sys

    script = f"""
import copy, json, random
import pams_cpp
from pams_cpp.runners import MultiProcessAgentParallelRunner, SequentialRunner

class NotebookAgent(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        self.calls = getattr(self, "calls", 0) + 1
        return super().submit_orders(markets)

def run(cls, config):
    saver = pams_cpp.logs.MarketStepSaver()
    runner = cls(settings=copy.deepcopy(config), prng=random.Random(9), logger=saver)
    runner.class_register(NotebookAgent)
    runner.main()
    return ([log["market_price"] for log in saver.market_step_logs],
            [getattr(a, "calls", 0) for a in runner.simulator.agents])

config = json.load(open({os.path.join(ROOT, 'samples/CI2002/config.json')!r}))
config["FCNAgents"]["class"] = "NotebookAgent"
config["simulation"].update(numParallel=2, startMethod={start_method!r})
config["simulation"]["sessions"][1]["maxNormalOrders"] = 4
print("RESULT", run(SequentialRunner, config) == run(MultiProcessAgentParallelRunner, config))
"""
    out = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True,
                         timeout=300)
    assert "RESULT True" in out.stdout, out.stdout + out.stderr[-2000:]


class AffinityRecorder(pams_cpp.agents.FCNAgent):
    """Records the process and the CPUs it may run on at each call."""

    def submit_orders(self, markets):
        seen = getattr(self, "cpus_seen", [])
        self.cpus_seen = seen + [(os.getpid(), sorted(os.sched_getaffinity(0)))]
        return super().submit_orders(markets)


def worker_cpus(runner_class, start_method, **simulation):
    """{worker pid: the CPUs its calls ran on} for a run of AffinityRecorders."""
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        # Every task in a worker (none in this process while they start).
        config = with_parallel(json.load(f), 2, startMethod=start_method,
                               runRoundsWhileWorkersStart=False, **simulation)
    config["FCNAgents"]["class"] = "AffinityRecorder"
    runner = runner_class(settings=config, prng=random.Random(1))
    runner.class_register(AffinityRecorder)
    runner.main()
    cpus = {}
    for agent in runner.simulator.agents:
        for pid, seen in getattr(agent, "cpus_seen", []):
            cpus.setdefault(pid, set()).add(tuple(seen))
    assert os.getpid() not in cpus and len(cpus) == 2
    assert all(len(sets) == 1 for sets in cpus.values())  # the same at every call
    return sorted(next(iter(sets)) for sets in cpus.values())


def two_shares(allowed):
    """What workerCpuAffinity true gives 2 workers: each its own share of
    the allowed CPUs, the first one larger (both all of one CPU)."""
    if len(allowed) < 2:
        return [tuple(allowed)] * 2
    half = (len(allowed) + 1) // 2
    return sorted([tuple(allowed[:half]), tuple(allowed[half:])])


@pytest.mark.parametrize("start_method", ["fork", "spawn", "forkserver"])
def test_workers_run_on_the_cpus_worker_cpu_affinity_gives(start_method, capsys):
    allowed = sorted(os.sched_getaffinity(0))
    # Not pinned by default: every CPU this process may use.
    assert (worker_cpus(MultiProcessAgentParallelRunner, start_method) ==
            [tuple(allowed)] * 2)
    # true: each worker its own share, the first share one larger.
    expected = two_shares(allowed)
    assert worker_cpus(MultiProcessAgentParallelRunner, start_method,
                       workerCpuAffinity=True) == expected
    # An array: worker k takes entry k mod size (both on the last CPU here).
    assert (worker_cpus(MultiProcessAgentParallelRunner, start_method,
                        workerCpuAffinity=[[allowed[-1]]]) == [(allowed[-1],)] * 2)
    if len(allowed) >= 2:  # each its own CPU, which the other's replica may not use
        assert (worker_cpus(MultiProcessAgentParallelRunner, start_method,
                            workerCpuAffinity=[allowed[1], [allowed[0]]]) ==
                [(allowed[0],), (allowed[1],)])

    class Pinning(MultiProcessAgentParallelRunner):
        default_worker_cpu_affinity = True

    assert worker_cpus(Pinning, start_method) == expected
    assert worker_cpus(Pinning, start_method, workerCpuAffinity=False) == [tuple(allowed)] * 2
    assert sorted(os.sched_getaffinity(0)) == allowed  # the main process is not pinned


def test_the_engines_own_workers_are_pinned_too(capsys):
    """Built-in classes only: the engine's workers (no Python there), seen
    from the main process through /proc while the run goes on (a worker
    pins itself once started: the last look counts). The agents are
    WorkloadFCNAgents, whose calls go to workers (FCNAgents' calls run in
    the main process: they take less than a hand-over)."""
    allowed = sorted(os.sched_getaffinity(0))
    seen = {}

    class Watcher(pams_cpp.logs.Logger):
        def process_market_step_end_log(self, log):
            if len(seen) == 2 and sorted(seen.values()) == two_shares(allowed):
                return  # both seen pinned: no more /proc scans
            for pid in os.listdir("/proc"):
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                    if ppid == os.getpid():
                        seen[int(pid)] = tuple(sorted(os.sched_getaffinity(int(pid))))
                except (OSError, ValueError):
                    pass

    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        config = with_parallel(json.load(f), 2, startMethod="fork", workerCpuAffinity=True)
    config["FCNAgents"].update({"class": "WorkloadFCNAgent", "bsWorkload": False})
    runner = MultiProcessAgentParallelRunner(settings=config, prng=random.Random(1),
                                             logger=Watcher())
    runner.main()
    assert sorted(seen.values()) == two_shares(allowed)


def test_a_bad_worker_cpu_affinity_is_refused_naming_the_key(capsys):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        base = json.load(f)
    for value, message in (("yes", r"simulation\.workerCpuAffinity: expected true"),
                           ([], r"simulation\.workerCpuAffinity: expected true"),
                           ([0, 4096], r"simulation\.workerCpuAffinity\[1\]: CPU 4096 is not "
                                       r"one this process may run on"),
                           ([[]], r"simulation\.workerCpuAffinity\[0\]: expected a non-empty")):
        config = with_parallel(base, 2, workerCpuAffinity=value)
        with pytest.raises(pams_cpp.ConfigError, match=message):
            MultiProcessAgentParallelRunner(settings=config, prng=random.Random(1)).main()

    class Bad(MultiProcessAgentParallelRunner):
        default_worker_cpu_affinity = "yes"

    with pytest.raises(ValueError, match="Bad.default_worker_cpu_affinity must be True or False"):
        Bad(settings=with_parallel(base, 2))


def test_a_tasks_state_keeps_the_main_processs_orders():
    """What a worker returns: orders in a book come back as the main
    process's objects (once, wherever the state refers to them), new ones
    and those no longer in a book as copies with their fields."""
    from pams_cpp.order import Cancel, LIMIT_ORDER, Order
    from pams_cpp.runners import _task_state

    class Fields:
        pass

    def order(order_id):
        o = Order(agent_id=0, market_id=1, is_buy=True, kind=LIMIT_ORDER, volume=2, price=100.0)
        o.order_id = order_id
        return o

    in_book, gone, new = order(7), order(8), order(None)
    worker_agent = Fields()
    worker_agent.kept = [in_book, gone, new]
    worker_agent.count = 3
    blob = _task_state.dumps(worker_agent, [Cancel(order=in_book), new], in_worker=True)

    mains = {(1, 7): order(7)}
    main_agent = Fields()
    main_agent.stale = "deleted by the worker"
    actions = _task_state.loads(main_agent, blob, lambda m, i: mains.get((m, i)))
    kept = main_agent.kept
    assert kept[0] is mains[(1, 7)] and actions[0].order is kept[0]
    assert kept[1] is not gone and vars(kept[1]) == vars(gone)
    assert kept[2] is actions[1] and vars(kept[2]) == vars(new)
    assert main_agent.count == 3 and not hasattr(main_agent, "stale")
    # From the main process, orders travel as copies (the worker's replica
    # has no Python orders to find).
    assert _task_state.loads(Fields(), _task_state.dumps(main_agent, [], in_worker=False),
                             lambda m, i: None) == []


def test_calls_that_wait_use_every_ready_worker(tmp_path):
    """Python calls that spend their time off the CPUs (here a sleep, as an
    agent waiting for a model server or a GPU would) keep every ready
    worker busy, not only one per spare CPU, and the main process hands a
    round over as soon as a worker is ready (PAMS_WORKER_STATS's counts: 3
    calls a round, 3 workers)."""
    import subprocess
    import sys

    script = tmp_path / "script.py"
    script.write_text(f"""
import json, random, time
import pams_cpp
from pams_cpp.runners import MultiProcessAgentParallelRunner

class Waiting(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        time.sleep(0.02)
        return super().submit_orders(markets)

if __name__ == "__main__":
    config = json.load(open({os.path.join(ROOT, "samples/CI2002/config.json")!r}))
    config["FCNAgents"].update({{"class": "Waiting", "numAgents": 10}})
    config["simulation"].update(numParallel=3, startMethod="fork")
    config["simulation"]["sessions"] = [{{
        "sessionName": 0, "iterationSteps": 20, "withOrderPlacement": True,
        "withOrderExecution": True, "withPrint": False, "maxNormalOrders": 3}}]
    runner = MultiProcessAgentParallelRunner(config, prng=random.Random(2))
    runner.class_register(Waiting)
    runner.main()
""")
    out = subprocess.run([sys.executable, "-W", "ignore", str(script)], capture_output=True,
                         text=True, timeout=300, env=dict(os.environ, PAMS_WORKER_STATS="1"))
    assert out.returncode == 0, out.stdout + out.stderr
    m = re.search(r"ROUNDS (\d+) with workers' tasks; tasks (\d+) here, (\d+) in workers",
                  out.stderr)
    assert m, out.stderr
    rounds, here, remote = map(int, m.groups())
    # Two of each round's three calls in workers once a call was measured
    # and the workers were ready (a loaded machine may take a few rounds);
    # capped at one worker per spare CPU, a 2-CPU machine gave them one.
    assert here + remote == 60 and remote >= 1.5 * rounds - 3, out.stderr
