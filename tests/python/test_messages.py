"""Messages that must not mislead (issue 37): a batched agent's error names
the phase that failed; a class whose submit_orders batching would hide is
warned at class_register; the timeouts' ranges are stated; fees of numpy's
scalar types count as PAMS counts them; a registered class that is not an
agent is told so in PAMS's words; a worker's error carries its note once;
a KeyboardInterrupt raised in a worker arrives as one, as in the main
process."""
import copy
import json
import os
import random
import warnings

import numpy as np
import pytest

import pams_cpp
from pams_cpp import TransactionFee
from pams_cpp.agents import Agent
from pams_cpp.agents import FCNAgent
from pams_cpp.agents import ModelCall
from pams_cpp.runners import MultiProcessAgentParallelRunner
from pams_cpp.runners import SequentialRunner
from conftest import ROOT


def ci2002(agent_class=None, steps=40, **simulation):
    with open(os.path.join(ROOT, "samples", "CI2002", "config.json")) as f:
        c = json.load(f)
    c["simulation"]["sessions"][0]["iterationSteps"] = 10
    c["simulation"]["sessions"][1]["iterationSteps"] = steps
    for session in c["simulation"]["sessions"]:
        session["maxNormalOrders"] = 4
    c["simulation"].update(simulation)
    if agent_class is not None:
        c["FCNAgents"]["class"] = agent_class
    return c


def run(runner_class, settings, classes=(), seed=1):
    runner = runner_class(settings=copy.deepcopy(settings), prng=random.Random(seed))
    for cls in classes:
        runner.class_register(cls)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner.main()
    return runner


def _double(x):
    return np.asarray(x) * 2.0


class CashInPrepare(Agent):
    """Batches its model calls and changes its cash while preparing them,
    which the agent contract forbids."""

    def prepare_model_calls(self, markets):
        self.cash_amount = self.cash_amount + 1.0
        return ModelCall(_double, np.zeros(2))

    def submit_orders_with_model_outputs(self, markets, outputs):
        return []


def test_a_batched_agents_error_names_the_phase_that_failed():
    settings = ci2002("CashInPrepare")
    with pytest.raises(pams_cpp.SimulationError) as raised:
        run(SequentialRunner, settings, [CashInPrepare])
    message = str(raised.value)
    assert "(CashInPrepare) failed in prepare_model_calls at step" in message, message
    assert "failed in submit_orders" not in message
    assert "changed its cash" in message


def test_submit_orders_that_batching_would_never_call_is_warned_at_class_register():
    class Both(Agent):
        def submit_orders(self, markets):
            return []

        def prepare_model_calls(self, markets):
            return None

        def submit_orders_with_model_outputs(self, markets, outputs):
            return []

    class BatchingOnly(Agent):
        def prepare_model_calls(self, markets):
            return None

        def submit_orders_with_model_outputs(self, markets, outputs):
            return []

    runner = SequentialRunner(settings=ci2002("Both"), prng=random.Random(1))
    with pytest.warns(UserWarning, match="Both defines submit_orders and batches its model "
                                         "calls.*batchModelCalls false") as caught:
        runner.class_register(Both)
    assert caught[0].filename == __file__  # the user's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        runner.class_register(BatchingOnly)  # nothing to warn of


@pytest.mark.parametrize("key,value", [("workerIdleTimeout", 1e10), ("workerTimeout", 2e9),
                                       ("workerStartTimeout", 1e10)])
def test_the_timeouts_say_their_upper_limit(key, value):
    settings = ci2002(numParallel=2, **{key: value})
    with pytest.raises(pams_cpp.ConfigError, match=f"simulation.{key}: .*1e9"):
        run(MultiProcessAgentParallelRunner, settings)


class Executions(pams_cpp.logs.Logger):
    def __init__(self):
        super().__init__()
        self.fees = []

    def process_execution_log(self, log):
        self.fees.append((repr(log.buy_transaction_fee), repr(log.sell_transaction_fee)))


class FloatFee(TransactionFee):
    """A fee of 0.1% each side, as a float, or in another type (TYPE)."""

    TYPE = float

    def compute_fees(self, price, volume, buy_order, sell_order):
        fee = price * volume * 0.001
        return self.TYPE(fee), self.TYPE(fee)


class Float32Fee(FloatFee):
    TYPE = np.float32


class Int64Fee(FloatFee):
    TYPE = np.int64


class Float64Fee(FloatFee):
    TYPE = np.float64


class BoolFee(FloatFee):
    TYPE = bool


def fee_run(fee_class):
    settings = ci2002()
    settings["Market"]["transactionFee"] = {"class": fee_class.__name__}
    logger = Executions()
    runner = SequentialRunner(settings=settings, prng=random.Random(2), logger=logger)
    runner.class_register(fee_class)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner.main()
    return logger.fees, [repr(a.cash_amount) for a in runner.simulator.agents]


@pytest.mark.parametrize("fee_class", [Float32Fee, Int64Fee, Float64Fee])
def test_fees_of_numpys_scalar_types_count_as_their_float(fee_class):
    # PAMS adds a fee to a float: np.float32(x) counts as float(np.float32(x)).
    class AsFloat(FloatFee):
        def compute_fees(self, price, volume, buy_order, sell_order):
            fee = float(fee_class.TYPE(price * volume * 0.001))
            return fee, fee

    AsFloat.__name__ = "AsFloat"
    fees, cash = fee_run(fee_class)
    assert fees and (fees, cash) == fee_run(AsFloat)


def test_a_fee_that_is_not_a_number_is_named():
    with pytest.raises(pams_cpp.SimulationError, match="a fee must be a real number.*got True"):
        fee_run(BoolFee)


class NotAnAgent:
    """A class registered with class_register that is no agent (PAMS keeps
    such classes too)."""


def test_a_registered_class_that_is_not_an_agent_is_told_so():
    settings = ci2002("NotAnAgent")
    runner = SequentialRunner(settings=settings, prng=random.Random(1))
    runner.class_register(NotAnAgent)
    with pytest.raises(ValueError, match='FCNAgents.class: class "NotAnAgent" does not inherit '
                                         'Agent class') as raised:
        runner.main()
    assert isinstance(raised.value, pams_cpp.ConfigError)
    assert "--plugin" not in str(raised.value)


def test_an_unknown_class_from_python_says_how_to_register_one():
    with pytest.raises(pams_cpp.ConfigError, match="runner.class_register") as raised:
        run(SequentialRunner, ci2002("NoSuchAgent"))
    assert "--plugin" not in str(raised.value)


class FailingInWorker(FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 20:
            raise ValueError("no price today")
        return super().submit_orders(markets)


class InterruptingInWorker(FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 20:
            raise KeyboardInterrupt
        return super().submit_orders(markets)


def test_a_workers_error_carries_its_note_once():
    settings = ci2002("FailingInWorker", numParallel=2, startMethod="fork")
    with pytest.raises(ValueError, match="no price today") as raised:
        run(MultiProcessAgentParallelRunner, settings, [FailingInWorker])
    notes = raised.value.__notes__
    assert len(notes) == 1, notes
    assert notes[0].startswith("in submit_orders of agent FCNAgents-")
    assert notes[0].endswith("(FailingInWorker) at step 20")


@pytest.mark.parametrize("runner_class", [SequentialRunner, MultiProcessAgentParallelRunner])
def test_a_keyboard_interrupt_an_agent_raises_arrives_as_one(runner_class):
    settings = ci2002("InterruptingInWorker", numParallel=2, startMethod="fork")
    with pytest.raises(KeyboardInterrupt):
        run(runner_class, settings, [InterruptingInWorker])
    # The interpreter goes on.
    run(SequentialRunner, ci2002())


@pytest.mark.parametrize("base,helper", [(FCNAgent, "is_finite"),
                                         (FCNAgent, "is_market_accessible"),
                                         (pams_cpp.agents.ArbitrageAgent, "_submit_orders"),
                                         (pams_cpp.agents.MarketMakerAgent, "get_base_price")])
def test_a_helper_the_built_in_code_calls_cannot_be_overridden_silently(base, helper):
    # PAMS's built-in agents call these helpers from their own code, which
    # runs in C++ here and would not call a Python override: refused, named.
    cls = type("Overriding", (base,), {helper: lambda self, *args: True})
    runner = SequentialRunner(settings=ci2002(), prng=random.Random(1))
    with pytest.raises(NotImplementedError, match=f"Overriding overrides {helper}, which the "
                                                  f"engine's {base.__name__} calls"):
        runner.class_register(cls)
