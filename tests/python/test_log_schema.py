"""The log schema (src/logs/log_schema.h), the one list of the columns of a
run's records: the CSV files, TableLogger's tables and MarketStepSaver's
dicts all have its columns, in its order."""
import csv
import os
import random

import pytest

import pams_cpp
from pams_cpp import _core
from pams_cpp.logs import AgentsCsvLogger
from pams_cpp.logs import EventsCsvLogger
from pams_cpp.logs import MarketStepSaver
from pams_cpp.logs import StepsCsvLogger
from pams_cpp.logs import TableLogger

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "samples/CI2002/config.json")

STEPS = ("session_id", "market_id", "market_name", "market_time", "market_price",
         "fundamental_price", "mid_price", "best_buy_price", "best_sell_price",
         "executed_volume", "n_buy_book", "n_sell_book", "n_buy_orders", "n_sell_orders",
         "transaction_fee_revenue")
EVENTS = ("kind", "time", "market_id", "agent_id", "order_id", "side", "price", "volume",
          "ttl", "buy_agent_id", "buy_order_id", "sell_agent_id", "sell_order_id",
          "buy_transaction_fee", "sell_transaction_fee")


def test_log_columns_are_the_files_columns():
    assert _core.log_columns("steps") == STEPS
    assert _core.log_columns("agents") == ("agent_id", "name", "class", "cash_amount",
                                           "asset_volumes")
    assert _core.log_columns("events") == EVENTS
    assert _core.log_columns("market_step_logs") == (
        "session_id", "market_time", "market_id", "market_name", "market_price",
        "fundamental_price")
    with pytest.raises(ValueError, match="no table \"nope\""):
        _core.log_columns("nope")


class OwnWaySaver(MarketStepSaver):
    """Processes logs in Python (PAMS's market_share notebook's way): its
    dicts are made by MarketStepSaver.process_market_step_end_log."""

    def process_market_step_end_log(self, log):
        super().process_market_step_end_log(log)


def run(logger):
    pams_cpp.SequentialRunner(settings=CONFIG, prng=random.Random(7), logger=logger).main()


def test_writers_follow_the_schema(tmp_path):
    headers = {}
    for name, cls in (("steps", StepsCsvLogger), ("agents", AgentsCsvLogger),
                      ("events", EventsCsvLogger)):
        path = str(tmp_path / f"{name}.csv")
        run(cls(path))
        with open(path, newline="") as f:
            headers[name] = next(csv.reader(f))
    # No market charges a fee: the fee-only columns (last) are left out.
    assert headers["steps"] == list(_core.log_columns("steps")[:-1])
    assert headers["agents"] == list(_core.log_columns("agents"))
    assert headers["events"] == list(_core.log_columns("events")[:-2])

    table = TableLogger(events=True)
    run(table)
    assert table.steps.column_names == headers["steps"]
    assert table.events.column_names == headers["events"]
    # The agents table has a column per market in place of asset_volumes.
    assert table.agents.column_names == headers["agents"][:-1] + ["asset_volume_0"]


def test_market_step_records_follow_the_schema():
    saver, own_way = MarketStepSaver(), OwnWaySaver()
    run(saver)
    run(own_way)
    keys = list(_core.log_columns("market_step_logs"))
    assert len(saver.market_step_logs) == len(own_way.market_step_logs) > 0
    assert all(list(d) == keys for d in saver.market_step_logs)
    assert own_way.market_step_logs == saver.market_step_logs
