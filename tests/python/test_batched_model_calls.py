"""Batched model calls (pams_cpp.agents.ModelCall): agents defining
prepare_model_calls and submit_orders_with_model_outputs have their model
calls of a round made as one call per model, in the main process, by every
runner; the results are identical between SequentialRunner and the
agent-parallel runners (threads, processes under every start method), and
between batched and unbatched runs when the model's batch gives each row's
single-row output exactly."""
import copy
import json
import os
import random

import numpy as np
import pytest

import pams_cpp
from pams_cpp.agents import Agent
from pams_cpp.agents import ModelCall
from pams_cpp.order import LIMIT_ORDER
from pams_cpp.order import Order
from pams_cpp.runners import MultiProcessAgentParallelRunner
from pams_cpp.runners import MultiThreadAgentParallelRunner
from pams_cpp.runners import SequentialRunner
from conftest import ROOT
from test_python_agents import typed_value

FEATURES = 5


class NumpyMLP:
    """A two-layer perceptron in numpy that counts its calls and rows: the
    batch's matrix products round differently from single rows' (BLAS), as
    a framework's do."""

    def __init__(self, seed, hidden=16):
        rng = np.random.default_rng(seed)
        self.w1 = rng.standard_normal((FEATURES, hidden))
        self.b1 = rng.standard_normal(hidden) * 0.1
        self.w2 = rng.standard_normal((hidden, 1))
        self.b2 = rng.standard_normal(1) * 0.1
        self.batches = []  # the rows of each call

    def __call__(self, x):
        x = np.asarray(x)
        self.batches.append(len(x))
        return np.tanh(x @ self.w1 + self.b1) @ self.w2 + self.b2


class Elementwise:
    """A model whose output rows do not depend on the batch (elementwise):
    batched and single-row calls give the same bits."""

    def __init__(self, scale):
        self.scale = scale
        self.batches = []

    def __call__(self, x):
        self.batches.append(len(x))
        return np.tanh(np.asarray(x) * self.scale)[:, :1]


# The models by name (module-level: the agents look them up, so that their
# state, which worker processes receive, holds no model).
MODELS = {}


def reset_models():
    MODELS.clear()
    MODELS["mlp"] = NumpyMLP(1)
    MODELS["mlp2"] = NumpyMLP(2)
    MODELS["elementwise"] = Elementwise(3.0)


reset_models()

# What the error tests make fail ("prepare", "model", "submit"), and where.
FAIL = {}


def failing_model(x):
    raise RuntimeError("the model failed")


class MLPAgent(Agent):
    """Builds a row from the market's last prices and a draw of its prng,
    asks its model(s), buys or sells one unit around the market price."""

    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings, accessible_markets_ids)
        self.models = list(settings.get("models", ["mlp"]))
        self.steps = 0
        self.last_output = None

    def row(self, market):
        t = market.get_time()
        prices = [market.get_market_price(max(0, t - k)) for k in range(FEATURES - 1)]
        x = np.log(np.array(prices) / market.get_fundamental_price())
        return np.append(x * 10.0, self.prng.random() - 0.5)

    def prepare_model_calls(self, markets):
        if FAIL.get("prepare") == self.name:
            raise ValueError("prepare failed")
        if "none" in self.models:
            return None
        market = markets[0]
        calls = [ModelCall(failing_model if FAIL.get("model") == self.name else MODELS[m],
                           self.row(market)) for m in self.models]
        return calls[0] if len(calls) == 1 else calls

    def submit_orders_with_model_outputs(self, markets, outputs):
        if FAIL.get("submit") == self.name:
            raise KeyError("submit failed")
        self.steps += 1
        if not outputs:
            return []
        assert len(outputs) == len(self.models)
        y = float(sum(float(o[0]) for o in outputs))
        self.last_output = y
        market = markets[0]
        price = market.get_market_price() * (1.0 + 0.01 * float(np.tanh(y)))
        return [Order(agent_id=self.agent_id, market_id=market.market_id, is_buy=y > 0,
                      kind=LIMIT_ORDER, volume=1, price=price, ttl=5)]

    def state(self):
        return [self.steps, self.last_output]


CLASSES = {"MLPAgent": MLPAgent}


def config(groups=(("MLPAgents", 12, {"models": ["mlp"]}),), max_normal_orders=4,
           steps=60, **simulation):
    """CI2002 (20 FCNAgents; shorter sessions) with groups of MLPAgents."""
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        c = json.load(f)
    c["FCNAgents"]["numAgents"] = 20
    c["simulation"]["sessions"][0]["iterationSteps"] = 20
    c["simulation"]["sessions"][1]["iterationSteps"] = steps
    c["simulation"]["sessions"][1]["maxNormalOrders"] = max_normal_orders
    for name, count, extra in groups:
        group = {"class": "MLPAgent", "numAgents": count, "markets": ["Market"],
                 "assetVolume": 50, "cashAmount": 10000}
        group.update(extra)
        c[name] = group
        c["simulation"]["agents"].append(name)
    c["simulation"].update(simulation)
    return c


def outcome(runner_class, settings, seed=7):
    reset_models()
    saver = pams_cpp.logs.MarketStepSaver()
    prng = random.Random(seed)
    runner = runner_class(settings=copy.deepcopy(settings), prng=prng, logger=saver)
    for cls in CLASSES.values():
        runner.class_register(cls)
    runner.main()
    state = []
    for a in runner.simulator.agents:
        own = a.state() if hasattr(a, "state") else None
        state.append((a.name, repr(float(a.cash_amount)), typed_value(own)))
    logs = [{k: typed_value(v) for k, v in log.items()} for log in saver.market_step_logs]
    return logs, state, prng.getstate()


@pytest.fixture(scope="module")
def sequential():
    return outcome(SequentialRunner, config())


def test_batched_agents_trade(sequential, capsys):
    logs, state, _ = sequential
    assert len(logs) >= 80
    mlp = [s for s in state if s[0].startswith("MLPAgents")]
    assert len(mlp) == 12 and any(s[2] != typed_value([0, None]) for s in mlp)
    # Batches of more than one row were made (rounds of 4 agents).
    assert max(MODELS["mlp"].batches) > 1


@pytest.mark.parametrize("num_parallel", [1, 2, 4])
def test_threads_give_sequential_runners_results(sequential, num_parallel, capsys):
    ours = outcome(MultiThreadAgentParallelRunner, config(numParallel=num_parallel))
    assert ours == sequential


@pytest.mark.parametrize("start_method", ["spawn", "forkserver", "fork"])
@pytest.mark.parametrize("num_parallel", [1, 2, 4])
def test_processes_give_sequential_runners_results(sequential, start_method, num_parallel,
                                                   capsys):
    ours = outcome(MultiProcessAgentParallelRunner,
                   config(numParallel=num_parallel, startMethod=start_method))
    assert ours == sequential


def test_batched_equals_unbatched_for_a_row_independent_model(capsys):
    groups = (("MLPAgents", 12, {"models": ["elementwise"]}),)
    batched = outcome(SequentialRunner, config(groups))
    batched_calls = list(MODELS["elementwise"].batches)
    unbatched = outcome(SequentialRunner, config(groups, batchModelCalls=False))
    assert set(MODELS["elementwise"].batches) == {1}
    assert max(batched_calls) > 1 and sum(batched_calls) == len(MODELS["elementwise"].batches)
    assert batched == unbatched
    threads = outcome(MultiThreadAgentParallelRunner,
                      config(groups, batchModelCalls=False, numParallel=2))
    assert threads == unbatched


def test_one_call_per_model_per_round(capsys):
    """maxNormalOrders above the number of agents: every step is one round
    of all agents, so each model is called once a step with a row for each
    of its agents' calls; two models in one round, an agent with two
    calls."""
    groups = (("OneModel", 5, {"models": ["mlp"]}),
              ("TwoModels", 3, {"models": ["mlp", "mlp2"]}),
              ("Second", 4, {"models": ["mlp2"]}))
    settings = config(groups, max_normal_orders=100)
    settings["simulation"]["sessions"][0]["maxNormalOrders"] = 100
    _, state, _ = outcome(SequentialRunner, settings)
    steps = 20 + 60  # both sessions place orders
    assert MODELS["mlp"].batches == [5 + 3] * steps
    assert MODELS["mlp2"].batches == [3 + 4] * steps
    by_name = {name: own for name, _, own in state}
    assert by_name["TwoModels-0"][1][0] == typed_value(steps)
    settings["simulation"]["numParallel"] = 2
    parallel = outcome(MultiThreadAgentParallelRunner, settings)
    assert MODELS["mlp"].batches == [8] * steps
    assert parallel[1] == state


def test_prepare_returning_none_gives_no_outputs(capsys):
    groups = (("Silent", 4, {"models": ["none"]}), ("MLPAgents", 4, {"models": ["mlp"]}))
    _, state, _ = outcome(SequentialRunner, config(groups))
    silent = [own for name, _, own in state if name.startswith("Silent")]
    assert all(own[1][0] != typed_value(0) for own in silent)  # asked
    assert all(own[1][1] == typed_value(None) for own in silent)  # no orders


def test_submit_orders_works_by_hand_and_unbatched(capsys):
    """The class's submit_orders (Agent's: unbatched) runs when batching is
    off, and calls each model on one row."""
    outcome(SequentialRunner, config(batchModelCalls=False))
    assert set(MODELS["mlp"].batches) == {1}
    assert MLPAgent.submit_orders is not Agent.submit_orders


@pytest.mark.parametrize("where,error,note", [
    ("prepare", ValueError, "in prepare_model_calls of agent MLPAgents-3 (MLPAgent)"),
    ("model", RuntimeError, "for agents MLPAgents-3"),
    ("submit", KeyError, "in submit_orders_with_model_outputs of agent MLPAgents-3 (MLPAgent)"),
])
@pytest.mark.parametrize("runner_class", [SequentialRunner, MultiThreadAgentParallelRunner])
def test_errors_name_the_agent(where, error, note, runner_class, capsys):
    FAIL[where] = "MLPAgents-3"
    try:
        with pytest.raises(error) as raised:
            outcome(runner_class, config(numParallel=2, max_normal_orders=40))
    finally:
        FAIL.clear()
    notes = " ".join(getattr(raised.value, "__notes__", []))
    assert note in notes, notes


def test_a_class_with_one_of_the_two_methods_is_refused(capsys):
    class OnlyPrepare(Agent):
        def prepare_model_calls(self, markets):
            return None

    class OnlySubmit(Agent):
        def submit_orders(self, markets):
            return []

        def submit_orders_with_model_outputs(self, markets, outputs):
            return []

    runner = SequentialRunner(settings=config(), prng=random.Random(1))
    with pytest.raises(TypeError, match="OnlyPrepare defines prepare_model_calls but not "
                                        "submit_orders_with_model_outputs"):
        runner.class_register(OnlyPrepare)
    with pytest.raises(TypeError, match="OnlySubmit defines submit_orders_with_model_outputs "
                                        "but not prepare_model_calls"):
        runner.class_register(OnlySubmit)


def test_prepare_must_return_model_calls(capsys):
    class Wrong(MLPAgent):
        def prepare_model_calls(self, markets):
            return [1, 2]

    settings = config((("MLPAgents", 4, {"class": "Wrong"}),))
    runner = SequentialRunner(settings=settings, prng=random.Random(1))
    runner.class_register(Wrong)
    with pytest.raises(TypeError, match="list with a int") as raised:
        runner.main()
    assert "in prepare_model_calls of agent MLPAgents-" in " ".join(raised.value.__notes__)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_batch_model_calls_must_be_a_bool(value, capsys):
    runner = SequentialRunner(settings=config(batchModelCalls=value), prng=random.Random(1))
    for cls in CLASSES.values():
        runner.class_register(cls)
    with pytest.raises(pams_cpp.ConfigError, match="simulation.batchModelCalls"):
        runner.main()


def test_run_batch_stacks_and_splits():
    from pams_cpp.agents.model_call import run_batch

    model = NumpyMLP(3)
    rows = [np.arange(FEATURES, dtype=float) * k for k in range(3)]
    calls = [ModelCall(model, rows[0]), ModelCall(model, rows[1][None, :]),
             ModelCall(model, list(rows[2]))]
    out = run_batch(calls)
    assert model.batches == [3]
    expected = model(np.stack(rows))
    assert all(np.array_equal(o, e) for o, e in zip(out, expected))
    assert out[0].shape == (1,)


def test_a_loop_driven_by_hand_batches_as_the_runner(capsys):
    """runner._collect_orders_from_normal_agents (PAMS's loop written out by
    hand) makes the runner's rounds and batches: the same results and the
    same model calls."""
    from test_hand_built import drive_by_hand

    def ends(by_hand):
        reset_models()
        saver = pams_cpp.logs.MarketStepSaver()
        runner = SequentialRunner(settings=config(), prng=random.Random(4), logger=saver)
        runner.class_register(MLPAgent)
        if by_hand:
            drive_by_hand(runner, [saver])
        else:
            runner._setup()
            runner._run()
        return ([(repr(float(a.cash_amount)), dict(a.asset_volumes))
                 for a in runner.simulator.agents],
                [log["market_price"] for log in saver.market_step_logs],
                list(MODELS["mlp"].batches))

    by_runner = ends(False)
    assert max(by_runner[2]) > 1
    assert ends(True) == by_runner


def test_a_batched_agent_changing_its_cash_is_stopped_under_every_runner(capsys):
    """The agents of a round see its start, under SequentialRunner too: a
    batched agent that changes its cash in a phase stops the run naming it."""

    class Spender(MLPAgent):
        def submit_orders_with_model_outputs(self, markets, outputs):
            self.cash_amount = self.cash_amount - 1
            return super().submit_orders_with_model_outputs(markets, outputs)

    for runner_class in (SequentialRunner, MultiThreadAgentParallelRunner):
        runner = runner_class(settings=config((("MLPAgents", 4, {"class": "Spender"}),),
                                              numParallel=2),
                              prng=random.Random(1))
        runner.class_register(Spender)
        with pytest.raises(pams_cpp.SimulationError,
                           match=r"agent MLPAgents-\d \(Spender\) failed .*changed its cash.* "
                                 "batched model calls"):
            runner.main()
