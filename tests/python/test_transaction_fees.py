"""Transaction fees (PAMS's development branch) from pams_cpp: the config key,
ProportionalTransactionFee, Python subclasses run in the engine (rebates,
state, partial fills), several markets with the arbitrage agent, the
process runner, the logs, the tables and the CLI's CSV columns.

Expected values come from a model written here in Python: the fee formula
(rate * price * volume on both sides) and the accounting of the execution
logs (cash - price * volume - fee for the buyer, cash + price * volume -
fee for the seller, in log order), which must give the engine's floats bit
for bit.
"""
import copy
import csv
import json
import os
import random
import subprocess
import tempfile

import pytest

import pams_cpp
from pams_cpp import ProportionalTransactionFee
from pams_cpp import TransactionFee
from pams_cpp.logs import Logger
from pams_cpp.logs import TableLogger
from pams_cpp.runners import MultiProcessAgentParallelRunner
from pams_cpp.runners import SequentialRunner
from conftest import ROOT


def ci2002(fee=None):
    with open(os.path.join(ROOT, "samples", "CI2002", "config.json")) as f:
        config = json.load(f)
    if fee is not None:
        config["Market"]["transactionFee"] = fee
    return config


# The index arbitrage setup of tests/differential: two spot markets, an
# index and arbitrage agents.
ARBITRAGE = os.path.join(ROOT, "tests", "differential", "configs", "index_arbitrage.json")


def arbitrage(spot_fee=None, index_fee=None):
    with open(ARBITRAGE) as f:
        config = json.load(f)
    if spot_fee is not None:
        config["SpotBase"]["transactionFee"] = spot_fee
    if index_fee is not None:
        config["Index"]["transactionFee"] = index_fee
    return config


class Executions(Logger):
    """Keeps every execution log."""

    def __init__(self):
        super().__init__()
        self.logs = []

    def process_execution_log(self, log):
        self.logs.append(log)


def run(config, seed=3, classes=(), runner_class=SequentialRunner):
    logger = Executions()
    runner = runner_class(settings=copy.deepcopy(config), prng=random.Random(seed), logger=logger)
    for cls in classes:
        runner.class_register(cls)
    runner._setup()
    cash = [a.cash_amount for a in runner.simulator.agents]
    runner._run()
    return runner, logger.logs, cash


def replay_cash(cash, logs):
    """The agents' cash after the executions, by the model (in log order)."""
    cash = list(cash)
    for log in logs:
        value = log.price * log.volume
        cash[log.buy_agent_id] = cash[log.buy_agent_id] - value - log.buy_transaction_fee
        cash[log.sell_agent_id] = cash[log.sell_agent_id] + value - log.sell_transaction_fee
    return cash


def test_proportional_fee_by_hand():
    fee = ProportionalTransactionFee(market=None)
    assert isinstance(fee, TransactionFee)
    assert fee.rate == 0.0
    for rate in [0, 0.0, 0.001, 0.5, 0.999]:
        fee.setup(settings={"rate": rate, "unknown": "ignored"})
        assert fee.rate == rate and isinstance(fee.rate, float)
    for settings, match in [({}, "rate is required"), ({"rate": "0.001"}, "int or float"),
                            ({"rate": True}, "int or float"), ({"rate": None}, "int or float"),
                            ({"rate": -0.001}, r"\[0.0, 1.0\)"), ({"rate": 1}, r"\[0.0, 1.0\)"),
                            ({"rate": float("nan")}, r"\[0.0, 1.0\)")]:
        with pytest.raises(ValueError, match=match):
            ProportionalTransactionFee(market=None).setup(settings=settings)
    fee.setup(settings={"rate": 0.002})
    assert fee.compute_fees(price=299.87, volume=7, buy_order=None, sell_order=None) == (
        0.002 * 299.87 * 7, 0.002 * 299.87 * 7)
    with pytest.raises(TypeError):
        TransactionFee(market=None)  # abstract


def test_fees_change_cash_only():
    plain, plain_logs, _ = run(ci2002())
    charged, logs, cash = run(ci2002({"class": "ProportionalTransactionFee", "rate": 0.001}))
    market = charged.simulator.markets[0]
    assert isinstance(market.transaction_fee, ProportionalTransactionFee)
    assert market.transaction_fee.rate == 0.001
    assert plain.simulator.markets[0].transaction_fee is None
    # The same run: fees draw nothing, the built-in agents ignore cash.
    assert market.get_market_prices() == plain.simulator.markets[0].get_market_prices()
    assert [(x.price, x.volume) for x in logs] == [(x.price, x.volume) for x in plain_logs]
    assert len(logs) > 100
    for log in logs:
        fee = 0.001 * log.price * log.volume
        assert (log.buy_transaction_fee, log.sell_transaction_fee) == (fee, fee)
    # Without a fee the log's own fields are PAMS 0.3.0's; the fees read 0.0.
    assert "buy_transaction_fee" not in vars(plain_logs[0])
    assert plain_logs[0].buy_transaction_fee == 0.0
    # Revenues per step: the fees of the step's executions, in log order.
    expected = [0.0] * (market.get_time() + 1)
    for log in logs:
        expected[log.time] += log.buy_transaction_fee + log.sell_transaction_fee
    assert market.get_transaction_fee_revenues() == expected
    assert market.get_transaction_fee_revenue(time=100) == expected[100]
    assert market.get_cumulative_transaction_fee_revenue() == sum(expected, 0.0)
    assert market.get_cumulative_transaction_fee_revenue(time=-1) == 0.0
    with pytest.raises(AssertionError):
        market.get_transaction_fee_revenue(time=market.get_time() + 1)
    assert [a.cash_amount for a in charged.simulator.agents] == replay_cash(cash, logs)


class TieredRebate(TransactionFee):
    """A maker rebate for the earlier order (negative fee), a fee that falls
    with each agent's volume for the later one, and what it was handed."""

    def setup(self, settings, *args, **kwargs):
        self.rebate = settings["rebate"]
        self.volumes = {}
        self.seen = []

    def compute_fees(self, price, volume, buy_order, sell_order):
        self.seen.append((volume, buy_order.volume, sell_order.volume))
        assert buy_order.market_id == sell_order.market_id == self.market.market_id
        buy_first = (buy_order.placed_at, buy_order.order_id) < (sell_order.placed_at,
                                                                 sell_order.order_id)
        maker, taker = (buy_order, sell_order) if buy_first else (sell_order, buy_order)
        traded = self.volumes.get(taker.agent_id, 0)
        self.volumes[taker.agent_id] = traded + volume
        taker_fee = (0.002 if traded < 5 else 0.001) * price * volume
        maker_fee = -self.rebate * price * volume
        return (maker_fee, taker_fee) if buy_first else (taker_fee, maker_fee)


def tiered_model(logs, rebate):
    """The fees TieredRebate must have charged, from the logs alone."""
    volumes = {}
    out = []
    for log in logs:
        # The earlier order: the smaller order id (ids grow with time).
        buy_first = log.buy_order_id < log.sell_order_id
        taker = log.sell_agent_id if buy_first else log.buy_agent_id
        traded = volumes.get(taker, 0)
        volumes[taker] = traded + log.volume
        taker_fee = (0.002 if traded < 5 else 0.001) * log.price * log.volume
        maker_fee = -rebate * log.price * log.volume
        out.append((maker_fee, taker_fee) if buy_first else (taker_fee, maker_fee))
    return out


def test_python_fee_with_rebates_and_state_runs_in_the_engine():
    config = arbitrage(spot_fee={"class": "TieredRebate", "rebate": 0.0005},
                       index_fee={"class": "ProportionalTransactionFee", "rate": 0.0003})
    runner, logs, cash = run(config, classes=[TieredRebate])
    markets = runner.simulator.markets
    assert [type(m.transaction_fee).__name__ for m in markets][:2] == ["TieredRebate"] * 2
    assert markets[0].transaction_fee is not markets[1].transaction_fee
    assert markets[0].transaction_fee.market is markets[0]
    for market in markets[:2]:
        mine = [x for x in logs if x.market_id == market.market_id]
        assert [(x.buy_transaction_fee, x.sell_transaction_fee) for x in mine] == tiered_model(
            mine, 0.0005)
        assert any(x.buy_transaction_fee < 0 or x.sell_transaction_fee < 0 for x in mine)
        # Partial fills: each order still had at least the pair's volume.
        seen = market.transaction_fee.seen
        assert len(seen) == len(mine)
        assert all(b >= v and s >= v for v, b, s in seen)
        assert any(b > v or s > v for v, b, s in seen)
    index = [x for x in logs if x.market_id == 2]
    assert index and all(x.buy_transaction_fee == 0.0003 * x.price * x.volume for x in index)
    assert [a.cash_amount for a in runner.simulator.agents] == replay_cash(cash, logs)
    # The arbitrage agents paid fees in every market.
    arbitrageurs = {a.agent_id for a in runner.simulator.agents
                    if type(a).__name__ == "ArbitrageAgent"}
    assert {x.market_id for x in logs if x.buy_agent_id in arbitrageurs
            or x.sell_agent_id in arbitrageurs} == {0, 1, 2}


def test_python_fee_in_worker_processes():
    config = arbitrage(spot_fee={"class": "TieredRebate", "rebate": 0.0005})
    config["simulation"]["numParallel"] = 2
    _, logs, _ = run(config, classes=[TieredRebate])
    _, parallel_logs, _ = run(config, classes=[TieredRebate],
                              runner_class=MultiProcessAgentParallelRunner)
    assert [vars(x) for x in parallel_logs] == [vars(x) for x in logs]


def test_fee_errors_name_the_key():
    for fee, match in [(0.001, "transactionFee: expected an object"),
                       ({"rate": 0.001}, "transactionFee.class: required key"),
                       ({"class": "Proportional", "rate": 0.1}, "unknown transaction fee class"),
                       ({"class": "ProportionalTransactionFee"}, "transactionFee.rate"),
                       ({"class": "ProportionalTransactionFee", "rate": 2}, r"\[0.0, 1.0\)")]:
        with pytest.raises(pams_cpp.ConfigError, match=match):
            run(ci2002(fee))

    class Broken(TransactionFee):
        def compute_fees(self, price, volume, buy_order, sell_order):
            return (1.0,)

    with pytest.raises(pams_cpp.SimulationError, match=r"must return \(buy_fee, sell_fee\)"):
        run(ci2002({"class": "Broken"}), classes=[Broken])


def test_tables_gain_the_fee_columns():
    logger = TableLogger(events=True)
    SequentialRunner(settings=ci2002({"class": "ProportionalTransactionFee", "rate": 0.001}),
                     prng=random.Random(3), logger=logger).main()
    steps, events = logger.steps.to_pandas(), logger.events.to_pandas()
    assert list(steps.columns)[-1] == "transaction_fee_revenue"
    assert list(events.columns)[-2:] == ["buy_transaction_fee", "sell_transaction_fee"]
    executions = events[events.kind == "execution"]
    assert (executions.buy_transaction_fee == 0.001 * executions.price * executions.volume).all()
    assert events[events.kind == "order"].buy_transaction_fee.isna().all()
    plain = TableLogger(events=True)
    SequentialRunner(settings=ci2002(), prng=random.Random(3), logger=plain).main()
    assert "transaction_fee_revenue" not in plain.steps.to_pandas().columns
    assert len(plain.events.to_pandas().columns) == 13


def test_cli_csv_columns():
    cli = os.environ.get("PAMS_CLI")
    if not cli:
        pytest.skip("PAMS_CLI (the pams command) is not set")  # only outside ctest
    with tempfile.TemporaryDirectory() as tmp:
        def files(config):
            path = os.path.join(tmp, "config.json")
            with open(path, "w") as f:
                json.dump(config, f)
            subprocess.run([cli, "run", path, "--seed", "3", "--quiet", "--steps-csv",
                            os.path.join(tmp, "s.csv"), "--events-csv",
                            os.path.join(tmp, "e.csv")], check=True, capture_output=True)
            with open(os.path.join(tmp, "s.csv")) as s, open(os.path.join(tmp, "e.csv")) as e:
                return list(csv.DictReader(s)), list(csv.DictReader(e))

        plain_steps, plain_events = files(ci2002())
        assert "transaction_fee_revenue" not in plain_steps[0]
        assert "buy_transaction_fee" not in plain_events[0]
        steps, events = files(ci2002({"class": "ProportionalTransactionFee", "rate": 0.001}))
        revenue = {}
        for row in events:
            if row["kind"] == "execution":
                fee = 0.001 * float(row["price"]) * int(row["volume"])
                assert float(row["buy_transaction_fee"]) == fee
                revenue[int(row["time"])] = revenue.get(int(row["time"]), 0.0) + (fee + fee)
            else:
                assert row["buy_transaction_fee"] == ""
        for row in steps:
            assert float(row["transaction_fee_revenue"]) == revenue.get(int(row["market_time"]), 0.0)
        # The other columns are as without fees.
        assert [{k: v for k, v in r.items() if k != "transaction_fee_revenue"} for r in steps] \
            == plain_steps


def test_cli_plugin_fee_class():
    cli = os.environ.get("PAMS_CLI")
    if not cli:
        pytest.skip("PAMS_CLI (the pams command) is not set")  # only outside ctest
    plugin = os.path.join(os.path.dirname(os.path.dirname(cli)), "lib",
                          "libpams_test_agents.so")
    with tempfile.TemporaryDirectory() as tmp:
        path, events = os.path.join(tmp, "config.json"), os.path.join(tmp, "e.csv")
        with open(path, "w") as f:
            json.dump(ci2002({"class": "FlatFee", "fee": 0.5}), f)
        subprocess.run([cli, "run", path, "--seed", "3", "--quiet", "--plugin", plugin,
                        "--events-csv", events], check=True, capture_output=True)
        with open(events) as f:
            rows = [r for r in csv.DictReader(f) if r["kind"] == "execution"]
    assert rows and all(r["buy_transaction_fee"] == r["sell_transaction_fee"] == "0.5"
                        for r in rows)
