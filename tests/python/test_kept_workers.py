"""Worker processes kept between runs: a loop of runs starts its
workers once, a different worker set-up starts others, workers go after
their idle timeout, on close() / leaving ``with`` / shutdown_workers(); the
main process runs rounds while workers start (and rounds of one task), and
the results are those of SequentialRunner wherever tasks run."""
import copy
import json
import os
import random
import subprocess
import sys
import time

import pytest

import pams_cpp
from pams_cpp.runners import MultiProcessAgentParallelRunner
from pams_cpp.runners import SequentialRunner
from pams_cpp.runners import shutdown_workers
from conftest import ROOT
from conftest import processes_tagged

HERE = os.path.dirname(os.path.abspath(__file__))


class PidRecorder(pams_cpp.agents.FCNAgent):
    """Records the process of each of its calls, which take a millisecond
    (so that workers get tasks before a run ends)."""

    def submit_orders(self, markets):
        self.pids = getattr(self, "pids", []) + [os.getpid()]
        time.sleep(0.001)
        return super().submit_orders(markets)


def config(start_method="spawn", num_parallel=2, steps=150, **simulation):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        c = json.load(f)
    c["simulation"]["sessions"][0]["iterationSteps"] = 20
    c["simulation"]["sessions"][1]["iterationSteps"] = steps
    for session in c["simulation"]["sessions"]:
        session["maxNormalOrders"] = 4
    # Every call in a worker (all awaited at the start), so that the pids
    # say which workers ran; test_rounds_in_the_main_process_* sets it.
    simulation.setdefault("runRoundsWhileWorkersStart", False)
    c["simulation"].update(numParallel=num_parallel, startMethod=start_method, **simulation)
    c["FCNAgents"]["class"] = "PidRecorder"
    return c


def run(runner_class, settings, seed, **kwargs):
    """(market prices, every agent's cash, the pids that ran tasks)."""
    saver = pams_cpp.logs.MarketStepSaver()
    runner = runner_class(settings=copy.deepcopy(settings), prng=random.Random(seed),
                          logger=saver, **kwargs)
    runner.class_register(PidRecorder)
    runner.main()
    pids = set()
    for agent in runner.simulator.agents:
        pids.update(getattr(agent, "pids", []))
    prices = [log["market_price"] for log in saver.market_step_logs]
    cash = [repr(float(a.cash_amount)) for a in runner.simulator.agents]
    return (prices, cash), pids


@pytest.mark.parametrize("start_method", ["spawn", "forkserver", "fork"])
def test_a_loop_of_runs_starts_its_workers_once(start_method):
    seen = []
    for seed in (5, 6, 7):
        ours, pids = run(MultiProcessAgentParallelRunner, config(start_method), seed)
        assert ours == run(SequentialRunner, config(start_method), seed)[0]
        seen.append(pids - {os.getpid()})
        assert pams_cpp._core.kept_worker_sets() == 1
    # The same two workers served the three runs.
    workers = set().union(*seen)
    assert len(workers) == 2, seen
    assert seen[0] == seen[1] == seen[2] == workers


def test_another_worker_set_up_starts_other_workers():
    _, first = run(MultiProcessAgentParallelRunner, config(), 1)
    _, again = run(MultiProcessAgentParallelRunner, config(), 2)
    # Another number of workers, other CPUs, another start method: others.
    _, three = run(MultiProcessAgentParallelRunner, config(num_parallel=3), 3)
    _, pinned = run(MultiProcessAgentParallelRunner, config(workerCpuAffinity=True), 4)
    main = {os.getpid()}
    assert (again - main) and (three - main) and (pinned - main)
    assert not (three - main) & (again - main)
    assert not (pinned - main) & (again - main)
    assert not (pinned - main) & (three - main)
    assert len(three - main) == 3
    assert pams_cpp._core.kept_worker_sets() == 3

    class Other(MultiProcessAgentParallelRunner):
        """Another runner class: workers prepared by another class."""

    _, other = run(Other, config(), 5)
    assert not (other - main) & (again - main)


def test_each_kept_worker_runs_the_initializer_once():
    marks = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"pams-init-{os.getpid()}")
    if os.path.exists(marks):
        os.remove(marks)

    class Loading(MultiProcessAgentParallelRunner):
        def _get_worker_initializer(self):
            return _mark_initialized

        def _get_worker_initargs(self):
            return (marks,)

    try:
        for seed in (1, 2, 3):
            ours, _ = run(Loading, config(), seed)
            assert ours == run(SequentialRunner, config(), seed)[0]
        with open(marks) as f:
            pids = f.read().split()
        assert len(pids) == 2 and len(set(pids)) == 2, pids  # once in each of two workers
    finally:
        if os.path.exists(marks):
            os.remove(marks)


def _mark_initialized(path):
    with open(path, "a") as f:
        f.write(f"{os.getpid()}\n")


def test_workers_go_after_their_idle_timeout_or_when_closed():
    run(MultiProcessAgentParallelRunner, config(workerIdleTimeout=0.5), 1)
    assert pams_cpp._core.kept_worker_sets() == 1
    deadline = time.monotonic() + 10
    while pams_cpp._core.kept_worker_sets() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pams_cpp._core.kept_worker_sets() == 0
    # 0: they end with the run.
    run(MultiProcessAgentParallelRunner, config(workerIdleTimeout=0), 1)
    assert pams_cpp._core.kept_worker_sets() == 0
    # close() ends those of its set-up; `with` closes on the way out.
    runner = MultiProcessAgentParallelRunner(settings=config(), prng=random.Random(1))
    runner.class_register(PidRecorder)
    runner.main()
    assert pams_cpp._core.kept_worker_sets() == 1
    run(MultiProcessAgentParallelRunner, config(num_parallel=3), 1)
    assert pams_cpp._core.kept_worker_sets() == 2
    runner.close()
    assert pams_cpp._core.kept_worker_sets() == 1
    with MultiProcessAgentParallelRunner(settings=config(num_parallel=3),
                                         prng=random.Random(1)) as runner:
        runner.class_register(PidRecorder)
        runner.main()
    assert pams_cpp._core.kept_worker_sets() == 0
    run(MultiProcessAgentParallelRunner, config(), 1)
    shutdown_workers()
    assert pams_cpp._core.kept_worker_sets() == 0


def test_rounds_in_the_main_process_give_the_same_results():
    # Fresh workers (spawn: each imports this module's classes): the main
    # process runs the first rounds and every round of one task.
    shutdown_workers()
    here, pids_here = run(MultiProcessAgentParallelRunner,
                          config(runRoundsWhileWorkersStart=True), 11)
    shutdown_workers()
    there, pids_there = run(MultiProcessAgentParallelRunner,
                            config(runRoundsWhileWorkersStart=False), 11)
    # The first rounds ran here (workers join once ready, which a loaded
    # machine may not see before this short run ends).
    assert os.getpid() in pids_here
    assert os.getpid() not in pids_there and len(pids_there) == 2
    assert here == there == run(SequentialRunner, config(), 11)[0]


class Busy(pams_cpp.agents.FCNAgent):
    """Calls that keep a CPU busy for 5 ms of this thread's CPU time (on a
    loaded machine they take longer, but spend most of it on a CPU)."""

    def submit_orders(self, markets):
        end = time.thread_time() + 0.005
        while time.thread_time() < end:
            pass
        return super().submit_orders(markets)


class Waiting(pams_cpp.agents.FCNAgent):
    """Calls that wait 20 ms off the CPUs (as for a GPU or a server): a
    share of CPU time far below the rule's quarter on any machine."""

    def submit_orders(self, markets):
        time.sleep(0.02)
        return super().submit_orders(markets)


@pytest.fixture
def two_cpus(monkeypatch):
    """This process (and what it starts) on two CPUs, under a tag of its own."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        pytest.skip(f"needs 2 CPUs, this process may use {len(allowed)}")
    shutdown_workers()
    tag = f"cpus-{os.getpid()}-{time.monotonic_ns()}"
    monkeypatch.setenv("PAMS_TEST_TAG", tag)
    os.sched_setaffinity(0, allowed[:2])
    try:
        yield tag
    finally:
        shutdown_workers()
        os.sched_setaffinity(0, allowed)


@pytest.mark.parametrize("agent_class,started", [(Busy, 1), (Waiting, 3)])
def test_workers_start_as_the_cpus_can_use_them(two_cpus, agent_class, started):
    # With rounds in the main process (runRoundsWhileWorkersStart true):
    # calls that keep a CPU busy leave room for one worker beside the main
    # process on 2 CPUs, so only one starts (a second would only slow the
    # main process's rounds while it starts). Calls that wait off the CPUs
    # start the other two once the main process has run 0.1 s of them (the
    # run keeps its record whole until it has, however fast the first
    # worker started).
    settings = config(num_parallel=3, steps=20, runRoundsWhileWorkersStart=True)
    settings["FCNAgents"]["class"] = agent_class.__name__
    runner = MultiProcessAgentParallelRunner(settings=copy.deepcopy(settings),
                                             prng=random.Random(4))
    runner.class_register(agent_class)
    runner.main()
    assert len(set(processes_tagged(two_cpus)) - {os.getpid()}) == started
    sequential = SequentialRunner(settings=copy.deepcopy(settings), prng=random.Random(4))
    sequential.class_register(agent_class)
    sequential.main()
    assert ([repr(float(a.cash_amount)) for a in runner.simulator.agents] ==
            [repr(float(a.cash_amount)) for a in sequential.simulator.agents])


def test_a_run_whose_calls_no_worker_could_run_starts_none(monkeypatch):
    # Built-in agents' calls run in the main process (engine code): a run
    # of them only would start workers for nothing.
    tag = f"none-{os.getpid()}-{time.monotonic_ns()}"
    monkeypatch.setenv("PAMS_TEST_TAG", tag)
    settings = config(start_method="spawn")
    settings["FCNAgents"]["class"] = "FCNAgent"
    ours = MultiProcessAgentParallelRunner(settings=copy.deepcopy(settings),
                                           prng=random.Random(3))
    ours.main()
    assert set(processes_tagged(tag)) - {os.getpid()} == set()
    assert pams_cpp._core.kept_worker_sets() == 0
    sequential = SequentialRunner(settings=copy.deepcopy(settings), prng=random.Random(3))
    sequential.main()
    assert ([repr(float(a.cash_amount)) for a in ours.simulator.agents] ==
            [repr(float(a.cash_amount)) for a in sequential.simulator.agents])


def test_by_default_no_python_call_runs_in_the_main_process():
    # Isolation: a crash in an agent's call takes its worker down, not this
    # process (tests/python_faults/case_agent_segfault_processes.py).
    settings = config(start_method="fork")
    del settings["simulation"]["runRoundsWhileWorkersStart"]
    _, pids = run(MultiProcessAgentParallelRunner, settings, 7)
    assert os.getpid() not in pids and len(pids) == 2


@pytest.mark.parametrize("mode", ["shutdown_workers", "atexit"])
def test_a_forked_child_ends_none_of_its_parents_workers(tmp_path, mode):
    # A child of os.fork() (or of multiprocessing's "fork") that shuts the
    # kept workers down, or exits through atexit, leaves its parent's alone:
    # the parent's next run is served by the same workers.
    out = tmp_path / "result.json"
    done = subprocess.run([sys.executable, os.path.join(HERE, "forked_child_runs.py"), mode,
                           str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["child_status"] == 0
    assert result["kept_after_child"] == 1
    assert len(result["before"]) == 2 and result["after"] == result["before"], result


def test_a_worker_timeout_keeps_every_task_in_a_worker():
    # Only a worker's call can be timed out.
    _, pids = run(MultiProcessAgentParallelRunner,
                  config(workerTimeout=60, runRoundsWhileWorkersStart=True), 1)
    assert os.getpid() not in pids


@pytest.mark.parametrize("key,value,message", [
    ("workerIdleTimeout", -1, "must be a number of seconds from 0 to 1e9"),
    ("workerIdleTimeout", 1e10, "must be a number of seconds from 0 to 1e9"),
    ("workerTimeout", 1e10, "must be a number of seconds from 0 to 1e9"),
    ("workerStartTimeout", 0, "must be a number of seconds > 0 and <= 1e9"),
    ("runRoundsWhileWorkersStart", "yes", "true or false"),
])
def test_bad_values_of_the_new_keys_name_the_key(key, value, message):
    settings = config(**{key: value})
    with pytest.raises(pams_cpp.ConfigError, match=f"simulation.{key}.*{message}"):
        run(MultiProcessAgentParallelRunner, settings, 1)


def test_a_python_worker_that_does_not_start_in_time_says_what_to_do():
    settings = config(workerStartTimeout=0.001, runRoundsWhileWorkersStart=False)
    with pytest.raises(pams_cpp.SimulationError) as info:
        run(MultiProcessAgentParallelRunner, settings, 1)
    message = str(info.value)
    assert "did not start" in message and "simulation.workerStartTimeout" in message
    assert "imports the main module" in message
    assert "InitWorkerProcess" not in message  # the C++ hint is for C++ programs


def test_a_kept_worker_that_failed_to_start_is_reported_by_the_next_run(tmp_path, monkeypatch):
    # A run shorter than its workers' start ends before they answer: one
    # whose start then fails leaves its error unread. The next run that
    # would take those workers reports it, instead of starting workers that
    # fail alike while every round runs in the main process.
    shutdown_workers()
    monkeypatch.setenv("PAMS_TEST_FAIL_IN_WORKERS", str(tmp_path))
    monkeypatch.setenv("PAMS_TEST_MAIN_PID", str(os.getpid()))
    from failing_in_workers import FailsInWorkers

    settings = config(runRoundsWhileWorkersStart=True, steps=5)
    settings["FCNAgents"]["class"] = "FailsInWorkers"

    def run_failing(seed):
        runner = MultiProcessAgentParallelRunner(settings=copy.deepcopy(settings),
                                                 prng=random.Random(seed))
        runner.class_register(FailsInWorkers)
        runner.main()

    run_failing(1)  # every round runs here: the workers wait for "go"
    open(tmp_path / "go", "w").close()
    deadline = time.monotonic() + 60
    said = tmp_path / "said"
    while time.monotonic() < deadline and (
            not said.exists() or len(said.read_text().split()) < 2):
        time.sleep(0.01)
    time.sleep(0.5)  # for their errors to be sent
    with pytest.raises(RuntimeError, match="model file is missing") as info:
        run_failing(2)
    assert any("kept from an earlier run" in note for note in info.value.__notes__)
    assert pams_cpp._core.kept_worker_sets() == 0
