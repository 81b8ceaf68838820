"""The runners' surface of PAMS's development branch on pams_cpp:
Agent.synced_attributes (only what an agent lists comes back from a worker
process; everything when it lists nothing), startMethod and
default_start_method, the hooks the engine cannot honour (refused when the
runner is made, naming what to do instead), the failure rules (a failing
worker initializer fails the run with a RuntimeError naming it, caused by
its error), and the runners' signatures and docstrings."""
import copy
import inspect
import json
import multiprocessing
import os
import random
import warnings

import pytest

import pams_cpp
from pams_cpp.runners import MultiProcessAgentParallelRunner
from pams_cpp.runners import MultiThreadAgentParallelRunner
from pams_cpp.runners import SequentialRunner
from conftest import ROOT
from test_python_agents import typed_value

START_METHODS = ["fork", "spawn", "forkserver"]


def ci2002(num_parallel=2, max_normal_orders=4, agent_class=None, **simulation):
    """CI2002 with rounds of several agents (maxNormalOrders), so that calls
    run in parallel, and its FCN agents of `agent_class`."""
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        config = json.load(f)
    config["simulation"]["numParallel"] = num_parallel
    config["simulation"].update(simulation)
    for session in config["simulation"]["sessions"]:
        session["maxNormalOrders"] = max_normal_orders
    if agent_class is not None:
        config["FCNAgents"]["class"] = agent_class.__name__
    return config


def run(runner_class, config, seed, classes=(), fields=()):
    """The market logs, each agent's cash, volume and listed `fields` (None
    where it has none), and the runner's generator, after a run; and the
    runner."""
    saver = pams_cpp.logs.MarketStepSaver()
    prng = random.Random(seed)
    runner = runner_class(settings=copy.deepcopy(config), prng=prng, logger=saver)
    for cls in classes:
        runner.class_register(cls)
    runner.main()
    agents = [(a.name, repr(float(a.cash_amount)), dict(a.asset_volumes),
               [typed_value(getattr(a, f, None)) for f in fields])
              for a in runner.simulator.agents]
    logs = [{k: typed_value(v) for k, v in log.items()} for log in saver.market_step_logs]
    return (logs, agents, prng.getstate()), runner


# --- synced_attributes


class Learner(pams_cpp.agents.FCNAgent):
    """Changes only what it lists, in every way a field can change: a
    counter, a list it appends to, a value reassigned and reset, a field
    made lazily and deleted every fourth call, two names for one list; its
    orders depend on them (a bias on the price)."""

    synced_attributes = ("n_calls", "prices", "last_price", "bias", "weights", "same_weights")

    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings, accessible_markets_ids, *args, **kwargs)
        self.n_calls = 0
        self.prices = []
        self.last_price = None
        self.weights = [1.0]
        self.same_weights = self.weights

    def submit_orders(self, markets):
        market = markets[0]
        self.n_calls += 1
        self.prices.append(market.get_market_price())
        self.last_price = None if self.n_calls % 5 == 0 else self.prices[-1]
        if self.n_calls % 4 == 0:
            if hasattr(self, "bias"):
                del self.bias
        else:
            self.bias = getattr(self, "bias", 0.0) + self.prng.random() - 0.5
        self.same_weights.append(self.weights[-1] * 0.99)
        if self.n_calls % 3 == 0:
            return []
        orders = super().submit_orders(markets)
        for order in orders:
            if getattr(order, "price", None) is not None:
                order.price += getattr(self, "bias", 0.0) * 0.01 + len(self.weights) * 1e-6
        return orders


LEARNER_FIELDS = ("n_calls", "prices", "last_price", "bias", "weights")


@pytest.mark.parametrize("start_method, num_parallel, max_normal_orders", [
    ("fork", 2, 4), ("spawn", 2, 4), ("forkserver", 2, 4),
    # One worker (then every call runs in it, none here), and more workers
    # than CPUs with longer rounds.
    ("fork", 1, 4), ("fork", 4, 8)])
def test_listed_attributes_come_back_and_give_sequential_runners_results(
        start_method, num_parallel, max_normal_orders, capsys):
    config = ci2002(num_parallel, max_normal_orders, agent_class=Learner,
                    startMethod=start_method)
    ours, runner = run(MultiProcessAgentParallelRunner, config, 7, [Learner], LEARNER_FIELDS)
    theirs, _ = run(SequentialRunner, config, 7, [Learner], LEARNER_FIELDS)
    assert ours == theirs
    learners = [a for a in runner.simulator.agents if isinstance(a, Learner)]
    assert sum(a.n_calls for a in learners) > 1000
    # Two names for one list stay one list (pickled together), and a field
    # deleted in a worker is deleted here.
    assert all(a.same_weights is a.weights for a in learners)
    assert any(not hasattr(a, "bias") for a in learners)


class Forgetful(Learner):
    """Also changes a field it does not list: that change is lost."""

    def submit_orders(self, markets):
        self.unlisted = getattr(self, "unlisted", 0) + 1
        self.unlisted_too = self.n_calls
        return super().submit_orders(markets)


def test_unlisted_changes_are_lost_with_one_warning(capsys):
    config = ci2002(agent_class=Forgetful, startMethod="fork")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours, runner = run(MultiProcessAgentParallelRunner, config, 3, [Forgetful],
                           LEARNER_FIELDS)
    lost = [str(w.message) for w in caught if "synced_attributes" in str(w.message)]
    # Once per class and attribute for the run, both names in one message.
    assert len(lost) == 1, lost
    assert lost[0].startswith("Changes to attributes not listed in synced_attributes are lost: "
                              "Forgetful assigned or deleted 'unlisted', 'unlisted_too'")
    assert "Forgetful.synced_attributes" in lost[0]
    forgetful = [a for a in runner.simulator.agents if isinstance(a, Forgetful)]
    assert all(not hasattr(a, "unlisted") for a in forgetful)
    # What it lists came back as SequentialRunner leaves it (the lost
    # fields do not change its orders).
    theirs, sequential = run(SequentialRunner, config, 3, [Forgetful], LEARNER_FIELDS)
    assert ours == theirs
    assert any(getattr(a, "unlisted", 0) > 1 for a in sequential.simulator.agents)


class Counting(pams_cpp.agents.FCNAgent):
    """Lists nothing (None): every field comes back, as before."""

    def submit_orders(self, markets):
        self.calls = getattr(self, "calls", 0) + 1
        self.history = getattr(self, "history", ()) + (markets[0].get_time(),)
        return super().submit_orders(markets)


class CountingListsNothing(Counting):
    """Lists no field at all: none of its changes comes back."""

    synced_attributes = ()


def test_an_agent_that_lists_nothing_keeps_every_change_and_one_listing_empty_none(capsys):
    config = ci2002(agent_class=Counting, startMethod="fork")
    ours, runner = run(MultiProcessAgentParallelRunner, config, 5, [Counting],
                       ("calls", "history"))
    theirs, _ = run(SequentialRunner, config, 5, [Counting], ("calls", "history"))
    assert ours == theirs
    assert sum(getattr(a, "calls", 0) for a in runner.simulator.agents) > 1000

    config = ci2002(agent_class=CountingListsNothing, startMethod="fork")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (logs, agents, state), runner = run(MultiProcessAgentParallelRunner, config, 5,
                                            [CountingListsNothing], ("calls",))
    # The orders, the generator and cash came back (the market logs and the
    # runner's generator are SequentialRunner's); the fields did not.
    assert logs == theirs[0] and state == theirs[2]
    assert all(not hasattr(a, "calls") for a in runner.simulator.agents)


class ListingInSetup(Counting):
    """Lists its fields per instance, from its settings, in setup."""

    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings, accessible_markets_ids, *args, **kwargs)
        self.synced_attributes = list(settings["syncedAttributes"])


def test_an_instance_may_list_its_own_attributes_in_setup(capsys):
    config = ci2002(agent_class=ListingInSetup, startMethod="fork")
    config["FCNAgents"]["syncedAttributes"] = ["calls"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, runner = run(MultiProcessAgentParallelRunner, config, 2, [ListingInSetup],
                        ("calls", "history"))
    assert sum(getattr(a, "calls", 0) for a in runner.simulator.agents) > 1000
    assert all(not hasattr(a, "history") for a in runner.simulator.agents)
    assert any("'history'" in str(w.message) for w in caught)


class Threaded(Forgetful):
    pass


def test_the_thread_runner_keeps_every_change(capsys):
    """Threads call the agents themselves (as on PAMS's branch):
    synced_attributes plays no part there."""
    config = ci2002(agent_class=Threaded)
    fields = LEARNER_FIELDS + ("unlisted",)
    ours, runner = run(MultiThreadAgentParallelRunner, config, 4, [Threaded], fields)
    theirs, _ = run(SequentialRunner, config, 4, [Threaded], fields)
    assert ours == theirs
    assert any(getattr(a, "unlisted", 0) > 1 for a in runner.simulator.agents)


class NotAList(pams_cpp.agents.FCNAgent):
    synced_attributes = "calls"


class ListsPrng(pams_cpp.agents.FCNAgent):
    synced_attributes = ("calls", "prng")


class ListsNumbers(pams_cpp.agents.FCNAgent):
    synced_attributes = ["calls", 3]


@pytest.mark.parametrize("cls, error, message", [
    (NotAList, TypeError,
     r"NotAList.synced_attributes must be None \(every attribute comes back from a worker "
     r"process\) or a tuple or list of attribute names \(str\), got 'calls'"),
    (ListsNumbers, TypeError, r"ListsNumbers.synced_attributes must be None .* got \['calls', 3\]"),
    (ListsPrng, ValueError,
     r"ListsPrng.synced_attributes must not list 'prng': the runner gives every process its own"),
])
def test_a_bad_synced_attributes_is_refused_naming_the_class(cls, error, message, capsys):
    config = ci2002(agent_class=cls, startMethod="fork")
    runner = MultiProcessAgentParallelRunner(settings=config, prng=random.Random(1))
    # When the class is registered (a process runner: the others do not
    # read it)...
    with pytest.raises(error, match=message):
        runner.class_register(cls)
    # PAMS's branch raises ValueError: that catches the TypeError too.
    with pytest.raises(ValueError, match=message):
        runner.class_register(cls)
    SequentialRunner(settings=config).class_register(cls)


class ListsBadlyInSetup(pams_cpp.agents.FCNAgent):
    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings, accessible_markets_ids, *args, **kwargs)
        self.synced_attributes = ("calls", "__dict__")


def test_a_bad_synced_attributes_set_in_setup_is_refused_when_the_runner_sets_up(capsys):
    config = ci2002(agent_class=ListsBadlyInSetup, startMethod="fork")
    runner = MultiProcessAgentParallelRunner(settings=config, prng=random.Random(1))
    runner.class_register(ListsBadlyInSetup)
    with pytest.raises(ValueError, match="ListsBadlyInSetup.synced_attributes must not list "
                                         "'__dict__': it would be every attribute of the agent"):
        runner.main()


class Receiving(MultiProcessAgentParallelRunner):
    """Overrides the branch's hook for the listed attributes: honoured."""

    received = []

    def _receive_synced_attributes_from_worker(self, agent, attributes):
        type(self).received.append((agent.name, sorted(attributes)))
        super()._receive_synced_attributes_from_worker(agent, attributes)


def test_receive_synced_attributes_from_worker_is_called_for_each_call(capsys):
    config = ci2002(agent_class=Learner, startMethod="fork")
    Receiving.received = []
    ours, runner = run(Receiving, config, 7, [Learner], LEARNER_FIELDS)
    assert ours == run(SequentialRunner, config, 7, [Learner], LEARNER_FIELDS)[0]
    calls = sum(a.n_calls for a in runner.simulator.agents if isinstance(a, Learner))
    # Every call ran in a worker (none here, where nothing would be lost),
    # and each gave the hook its listed fields.
    assert len(Receiving.received) == calls
    listed = set(Learner.synced_attributes)
    assert all(set(names) <= listed for _, names in Receiving.received)
    # A call that deleted "bias" gave no "bias": the default deleted it.
    assert any("bias" in names for _, names in Receiving.received)
    assert any("bias" not in names for _, names in Receiving.received)


# --- hooks the engine cannot honour: refused when the runner is made


def test_the_engines_split_is_one_task_per_agent():
    config = ci2002()
    for cls in (MultiThreadAgentParallelRunner, MultiProcessAgentParallelRunner):
        runner = cls(settings=config, prng=random.Random(1))
        assert runner._split_agents_into_chunks(["a", "b", "c"]) == [["a"], ["b"], ["c"]]
        with pytest.raises(NotImplementedError, match="owns|starts, keeps and stops"):
            runner._create_executor()


def _subclass(base, name, **members):
    return type(name, (base,), members)


@pytest.mark.parametrize("base, hook, instead", [
    (MultiThreadAgentParallelRunner, "_create_executor", "set simulation.numParallel"),
    (MultiProcessAgentParallelRunner, "_create_executor", "_get_worker_initializer"),
    (MultiThreadAgentParallelRunner, "_split_agents_into_chunks",
     "cannot send chosen agents to chosen workers"),
    (MultiProcessAgentParallelRunner, "_split_agents_into_chunks", "remove the override"),
    (MultiProcessAgentParallelRunner, "_get_mp_context", "simulation.startMethod or the class "
                                                         "attribute default_start_method"),
    (MultiThreadAgentParallelRunner, "_receive_orders_from_worker", "executed_order"),
    (MultiThreadAgentParallelRunner, "_get_executor", "no concurrent.futures executor"),
    (MultiProcessAgentParallelRunner, "_shutdown_executor", "shutdown_workers()"),
    (MultiThreadAgentParallelRunner, "_warn_unsynced_changes", "warnings.filterwarnings"),
])
def test_a_hook_the_engine_cannot_honour_is_refused_when_the_runner_is_made(base, hook, instead):
    cls = _subclass(base, "Custom", **{hook: lambda self, *args: None})
    with pytest.raises(NotImplementedError) as info:
        cls(settings=ci2002(), prng=random.Random(1))
    message = str(info.value)
    assert message.startswith(f"Custom overrides {hook} (a hook of PAMS's development branch), "
                              f"which pams_cpp's {base.__name__} cannot honour: ")
    assert instead in message


def test_a_pool_provider_class_attribute_is_refused_too():
    from concurrent.futures import ThreadPoolExecutor

    cls = _subclass(MultiThreadAgentParallelRunner, "Pooled",
                    _parallel_pool_provider=ThreadPoolExecutor)
    with pytest.raises(NotImplementedError, match="Pooled overrides _parallel_pool_provider"):
        cls(settings=ci2002())


# --- startMethod and default_start_method


def test_default_start_method_none_is_multiprocessings_default(capsys):
    class PlatformDefault(MultiProcessAgentParallelRunner):
        default_start_method = None

    config = ci2002(agent_class=Learner)
    ours, runner = run(PlatformDefault, config, 1, [Learner], LEARNER_FIELDS)
    expected = (multiprocessing.get_start_method(allow_none=True)
                or multiprocessing.get_all_start_methods()[0])
    assert runner.start_method == expected
    assert ours == run(SequentialRunner, config, 1, [Learner], LEARNER_FIELDS)[0]


def test_the_configs_start_method_wins_and_is_checked(capsys):
    runner = MultiProcessAgentParallelRunner(settings=ci2002(startMethod="spawn"))
    assert runner.start_method == "spawn"
    assert MultiProcessAgentParallelRunner(settings=ci2002()).start_method == "fork"
    for value, expected in (("thread", 'expected "spawn", "forkserver" or "fork", got "thread"'),
                            (3, "expected a string, got the integer 3")):
        runner = MultiProcessAgentParallelRunner(settings=ci2002(startMethod=value))
        # A ValueError, as PAMS's branch raises, naming the key.
        with pytest.raises(ValueError, match="simulation.startMethod: " + expected) as info:
            runner.main()
        assert isinstance(info.value, pams_cpp.ConfigError)

    class Bad(MultiProcessAgentParallelRunner):
        default_start_method = "threads"

    with pytest.raises(ValueError, match=r'Bad.default_start_method must be "spawn", '
                                         r'"forkserver" or "fork", got \'threads\' \(or None'):
        Bad(settings=ci2002())


# --- failure rules


def load_model(path):
    """A worker initializer whose model is missing."""
    raise FileNotFoundError(f"no model at {path}")


class FailingThreads(MultiThreadAgentParallelRunner):
    def _get_worker_initializer(self):
        return load_model

    def _get_worker_initargs(self):
        return ("model.keras",)


class FailingProcesses(MultiProcessAgentParallelRunner):
    def _get_worker_initializer(self):
        return load_model

    def _get_worker_initargs(self):
        return ("model.keras",)


def test_a_failing_initializer_fails_the_thread_runner_with_a_runtime_error(capsys):
    runner = FailingThreads(settings=ci2002(), prng=random.Random(1))
    with pytest.raises(RuntimeError, match=r"the worker initializer failed on this worker "
                                           r"\(thread '.*'\): test_runner_hooks.load_model"
                                           r"\('model.keras',\) raised FileNotFoundError: no "
                                           r"model at model.keras") as info:
        runner.main()
    # The cause is the initializer's own exception (PAMS's branch's rule).
    assert isinstance(info.value.__cause__, FileNotFoundError)


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_a_failing_initializer_fails_the_process_runner_with_the_workers_traceback(
        start_method, capsys):
    # Python agents, whose calls need workers (a run of built-in agents
    # starts none, and so runs no initializer).
    runner = FailingProcesses(settings=ci2002(startMethod=start_method, agent_class=Counting),
                              prng=random.Random(1))
    runner.class_register(Counting)
    with pytest.raises(RuntimeError, match=r"the worker initializer failed on this worker "
                                           r"\(worker process \d+\): test_runner_hooks."
                                           r"load_model\('model.keras',\) raised "
                                           r"FileNotFoundError") as info:
        runner.main()
    # The cause: the worker's traceback, the initializer's frames and error
    # first, with its source line (looked up here).
    cause = str(info.value.__cause__)
    assert type(info.value.__cause__).__name__ == "RemoteTraceback"
    assert f'File "{__file__}"' in cause and "in load_model" in cause
    assert 'raise FileNotFoundError(f"no model at {path}")' in cause
    assert "FileNotFoundError: no model at model.keras" in cause
    assert "The above exception was the direct cause of the following exception" in cause
    # No agent's call ran.
    assert runner.simulator.markets[0].get_time() <= 1


class FailsAtStep120(pams_cpp.agents.FCNAgent):
    """Records each call's time in its fields; one agent fails at step 120."""

    def submit_orders(self, markets):
        now = markets[0].get_time()
        self.times = getattr(self, "times", ()) + (now,)
        if now == 120 and self.agent_id % 7 == 3:
            raise ValueError(f"agent {self.agent_id} fails")
        return super().submit_orders(markets)


def test_a_failed_call_fails_the_run_naming_the_agent(capsys):
    config = ci2002(agent_class=FailsAtStep120, max_normal_orders=8, startMethod="fork",
                    workerTimeout=60)
    runner = MultiProcessAgentParallelRunner(settings=config, prng=random.Random(1))
    runner.class_register(FailsAtStep120)
    with pytest.raises(ValueError, match=r"agent \d+ fails") as info:
        runner.main()
    assert "at step 120" in info.value.__notes__[0]


@pytest.mark.parametrize("where", ["workers", "main process and workers"])
def test_a_failed_round_changes_no_agent_in_the_main_process(capsys, where):
    # Every call in a worker (workerTimeout), or the main process running
    # its share of each round beside the workers: either way the agents
    # that ran in the failed round are left as they were before it.
    keys = {"workerTimeout": 60} if where == "workers" else {}
    config = ci2002(agent_class=FailsAtStep120, max_normal_orders=8, startMethod="fork",
                    **keys)
    runner = MultiProcessAgentParallelRunner(settings=config, prng=random.Random(1))
    runner.class_register(FailsAtStep120)
    with pytest.raises(ValueError):
        runner.main()
    # FCN agents always order: each step is one round of 8 calls, so the
    # failed round is the only one of step 120.
    assert not [a.name for a in runner.simulator.agents if 120 in getattr(a, "times", ())]


# --- signatures and docstrings


def public_runner_classes():
    from pams_cpp.runners import JaxAgentParallelRunner
    from pams_cpp.runners import Runner
    from pams_cpp.runners import TensorFlowAgentParallelRunner
    from pams_cpp.runners import TorchAgentParallelRunner

    return [Runner, SequentialRunner, MultiThreadAgentParallelRunner,
            MultiProcessAgentParallelRunner, TensorFlowAgentParallelRunner,
            TorchAgentParallelRunner, JaxAgentParallelRunner]


def test_every_runner_shows_pamss_parameters():
    from pams_cpp.simulator import Simulator

    for cls in public_runner_classes():
        parameters = inspect.signature(cls).parameters
        assert list(parameters) == ["settings", "prng", "logger", "simulator_class"], cls
        assert [p.default for p in parameters.values()][1:] == [None, None, Simulator], cls
        for name, member in inspect.getmembers(cls, callable):
            if name.startswith("_") or isinstance(member, type):
                continue
            kinds = {p.kind for p in inspect.signature(member).parameters.values()}
            assert not kinds & {inspect.Parameter.VAR_POSITIONAL}, (cls, name)


# The hooks a subclass of the parallel runners may override (documented as
# public names are).
HOOKS = ("_get_worker_initializer", "_get_worker_initargs", "_get_worker_environment",
         "_prepare_worker_process", "_worker_state", "_main_process_can_run_tasks",
         "_receive_synced_attributes_from_worker", "_split_agents_into_chunks",
         "_create_executor", "_get_mp_context")


def public_names():
    """Every public class, method and function of pams_cpp.runners, and
    the parallel runners' hooks."""
    import pams_cpp.runners as runners
    from pams_cpp.runners import agent_parallel, tensorflow_parallel

    found = {}
    for name in runners.__all__:
        found[f"pams_cpp.runners.{name}"] = getattr(runners, name)
    for module in (agent_parallel, tensorflow_parallel):
        for name in module.__all__:
            found[f"{module.__name__}.{name}"] = getattr(module, name)
    for cls in public_runner_classes():
        for name, member in vars(cls).items():
            if (not name.startswith("_") or name in HOOKS) and (
                    callable(member) or isinstance(member, staticmethod)):
                found[f"{cls.__name__}.{name}"] = getattr(cls, name)
    return found


def missing_sections(obj):
    """The Google-style sections obj's docstring lacks: Args where it takes
    arguments, Returns where it returns something, Raises for a runner."""
    doc = inspect.getdoc(obj) or ""
    # Its own: an override says what it does in its runner.
    missing = [] if len(doc) >= 40 and obj.__doc__ is not None else ["a docstring"]
    signature = inspect.signature(obj)
    takes = [p for p in signature.parameters if p not in ("self", "cls")]
    if takes and "Args:" not in doc:
        missing.append("Args:")
    if isinstance(obj, type):
        if "Raises:" not in doc:
            missing.append("Raises:")
    elif signature.return_annotation not in (None, "None", inspect.Signature.empty) and \
            "Returns:" not in doc and "NotImplementedError" not in doc:
        missing.append("Returns:")
    return missing


def test_every_public_name_of_the_runners_is_documented():
    names = public_names()
    assert len(names) >= 35
    lacking = {name: missing for name, obj in names.items() if (missing := missing_sections(obj))}
    assert not lacking


def test_the_tensorflow_runners_docstring_covers_what_the_seed_page_does():
    from pams_cpp.runners import TensorFlowAgentParallelRunner

    doc = inspect.getdoc(TensorFlowAgentParallelRunner)
    for key in ("numParallel", "startMethod", "workerTimeout", "workerCpuAffinity",
                "workerStartTimeout", "workerIdleTimeout", "runRoundsWhileWorkersStart",
                "workerNice", "tensorflowIntraOpThreads", "tensorflowInterOpThreads",
                "tensorflowGpuMemoryGrowth", "batchModelCalls"):
        assert f"``{key}``" in doc, key
    for section in ("Args:", "Raises:", "Note:", "Warning:", "Attributes:"):
        assert section in doc, section
    for words in ('"spawn"', '"forkserver"', '"fork"', "SequentialRunner", "GPU",
                  "configure_tensorflow", "1.58x", "synced_attributes", "PAMS"):
        assert words in doc, words
    assert len(doc) > 4000
