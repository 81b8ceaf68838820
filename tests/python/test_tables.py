"""TableLogger's tables (the CSV loggers' records as columns, through
Arrow's C data interface, pandas and numpy) and pams_cpp.analysis (the
stylized facts and charts of `pams stats` and `pams plot`)."""
import csv
import gc
import json
import os
import random
import subprocess

import pytest

import pams_cpp
from pams_cpp import analysis
from pams_cpp.agents import FCNAgent
from pams_cpp.logs import AgentsCsvLogger
from pams_cpp.logs import EventsCsvLogger
from pams_cpp.logs import StepsCsvLogger
from pams_cpp.logs import TableLogger

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The pams command (tests/CMakeLists.txt sets PAMS_CLI), whose stats and
# plot these must equal.
CLI = os.environ.get("PAMS_CLI", os.path.join(ROOT, "build", "bin", "pams"))
# Markets of several classes, agents that trade in some markets only, and
# cancels and expirations (market_share's agents' orders expire).
CONFIGS = ["samples/CI2002/config.json", "samples/shock_transfer/config.json",
           "samples/trading_halt/config.json"]


def run(config, seed, logger):
    pams_cpp.SequentialRunner(settings=os.path.join(ROOT, config), prng=random.Random(seed),
                              logger=logger).main()


def csv_rows(path, types):
    """The CSV's rows as typed values: "" is None."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return header, [[None if v == "" else types.get(h, str)(v) for h, v in zip(header, row)]
                    for row in body]


def table_rows(table):
    columns = table.to_pydict()
    return [list(row) for row in zip(*columns.values())]


STEP_TYPES = {**{k: int for k in ("session_id", "market_id", "market_time", "executed_volume",
                                  "n_buy_book", "n_sell_book", "n_buy_orders",
                                  "n_sell_orders")},
              **{k: float for k in ("market_price", "fundamental_price", "mid_price",
                                    "best_buy_price", "best_sell_price")}}
EVENT_TYPES = {**{k: int for k in ("time", "market_id", "agent_id", "order_id", "volume", "ttl",
                                   "buy_agent_id", "buy_order_id", "sell_agent_id",
                                   "sell_order_id")},
               "price": float}


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("seed", [1, 42])
def test_tables_hold_the_csv_loggers_records(config, seed, tmp_path, capsys):
    tables = TableLogger(events=True)
    run(config, seed, tables)
    for logger_class, table, types in ((StepsCsvLogger, tables.steps, STEP_TYPES),
                                       (EventsCsvLogger, tables.events, EVENT_TYPES)):
        path = tmp_path / "out.csv"
        run(config, seed, logger_class(path))
        header, rows = csv_rows(path, types)
        assert table.column_names == header
        assert table_rows(table) == rows  # every float equal: the CSV prints its repr
        assert len(rows) > 0
    # Agents: the CSV's "0=12;2=30" volumes are the asset_volume_<id> columns.
    path = tmp_path / "agents.csv"
    run(config, seed, AgentsCsvLogger(path))
    header, rows = csv_rows(path, {"agent_id": int, "cash_amount": float})
    names = tables.agents.column_names
    assert names[:4] == header[:4]
    market_ids = [int(n[len("asset_volume_"):]) for n in names[4:]]
    expected = []
    for row in rows:
        volumes = dict(map(int, kv.split("=")) for kv in (row[4] or "").split(";") if kv)
        expected.append(row[:4] + [volumes.get(i) for i in market_ids])
    assert table_rows(tables.agents) == expected


def test_arrow_consumers_and_pandas_read_the_columns(capsys):
    import pandas as pd  # noqa: F401
    import pyarrow as pa
    tables = TableLogger(events=True)
    run("samples/CI2002/config.json", 3, tables)
    events = tables.events
    arrow = pa.table(events)  # __arrow_c_stream__
    assert arrow.num_rows == len(events) > 0
    assert str(arrow.schema.field("price").type) == "double"
    assert str(arrow.schema.field("kind").type) == "large_string"
    assert arrow.to_pydict() == events.to_pydict()
    assert pa.record_batch(events).to_pydict() == events.to_pydict()  # __arrow_c_array__
    assert pa.schema(events) == arrow.schema                           # __arrow_c_schema__
    assert events.to_pyarrow().equals(arrow)
    # Executions have no agent_id: a nullable Int64 column in pandas; NaN
    # for a market order's price.
    df = events.to_pandas()
    assert str(df["agent_id"].dtype) == "Int64"
    assert df["agent_id"].isna().sum() == (df["kind"] == "execution").sum() > 0
    assert df["sell_order_id"].dropna().astype(int).tolist() == [
        v for v in arrow.column("sell_order_id").to_pylist() if v is not None]
    steps = tables.steps.to_pandas()
    assert str(steps["market_price"].dtype) == "float64"
    assert steps["market_price"].tolist() == tables.steps.to_pydict()["market_price"]


def test_numeric_columns_are_read_only_views_that_keep_the_table_alive(capsys):
    tables = TableLogger()
    run("samples/CI2002/config.json", 5, tables)
    values, nulls = tables.steps.numpy("market_price")
    expected = values.tolist()
    assert nulls is None and len(expected) == 600
    with pytest.raises(ValueError):
        values[0] = 1.0
    capsule = tables.steps.__arrow_c_stream__()
    del tables
    gc.collect()
    assert values.tolist() == expected
    import pyarrow as pa
    assert pa.RecordBatchReader._import_from_c_capsule(capsule).read_all().column(
        "market_price").to_pylist() == expected
    with pytest.raises(KeyError, match="no column price"):
        TableLogger().steps.numpy("price")


def test_a_table_taken_during_the_run_stays_as_it_was(capsys):
    seen = []

    class Peeker(FCNAgent):
        def submit_orders(self, markets):
            if self.agent_id == 0:
                table = logger.steps
                seen.append((table, len(table), table.to_pydict()))
            return super().submit_orders(markets)

    logger = TableLogger()
    config = json.load(open(os.path.join(ROOT, "samples/CI2002/config.json")))
    config["FCNAgents"]["class"] = "Peeker"
    runner = pams_cpp.SequentialRunner(settings=config, prng=random.Random(1), logger=logger)
    runner.class_register(Peeker)
    runner.main()
    assert len(seen) > 3
    assert [n for _, n, _ in seen] == sorted(n for _, n, _ in seen)
    for table, n, rows in seen:
        assert len(table) == n and table.to_pydict() == rows
    final = logger.steps.to_pydict()
    assert all(rows[k] == final[k][:n] for _, n, rows in seen for k in rows)


def test_a_logger_keeps_only_the_tables_asked_for(capsys):
    logger = TableLogger(steps=False, agents=False)
    run("samples/CI2002/config.json", 1, logger)
    assert logger.steps is None and logger.agents is None and logger.events is None
    with pytest.raises(ValueError, match="keeps no steps"):
        analysis.stylized_facts(logger)


def test_stylized_facts_are_those_of_pams_stats(tmp_path, capsys):
    config = "samples/shock_transfer/config.json"
    tables = TableLogger()
    run(config, 7, tables)
    path = tmp_path / "steps.csv"
    run(config, 7, StepsCsvLogger(path))
    for sessions in (None, [1]):
        facts = analysis.stylized_facts(tables, sessions=sessions)
        assert facts == analysis.stylized_facts(str(path), sessions=sessions)
        assert len(facts) == 3 and facts[0]["steps"] > 0
        args = [CLI, "stats", str(path), "--json"] + (["--session", "1"] if sessions else [])
        assert json.loads(subprocess.check_output(args))["markets"] == facts
        args.remove("--json")
        assert subprocess.check_output(args).decode() == analysis.stylized_facts_text(
            tables.steps, sessions=sessions)


def test_charts_are_those_of_pams_plot(tmp_path, capsys):
    tables = TableLogger()
    run("samples/CI2002/config.json", 2, tables)
    path = tmp_path / "steps.csv"
    run("samples/CI2002/config.json", 2, StepsCsvLogger(path))
    # PNG: an SVG carries ids that cairo counts up within a process.
    analysis.plot(tables, tmp_path / "a.png", title="CI2002")
    analysis.plot(path, tmp_path / "b.png", title="CI2002")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    subprocess.check_call([CLI, "plot", str(path), "-o", str(tmp_path / "c.png"),
                           "--title", "CI2002"])
    assert (tmp_path / "c.png").read_bytes() == (tmp_path / "a.png").read_bytes()
    png = analysis.plot(tables.steps, width=640, height=480)
    png = png if isinstance(png, bytes) else png.data
    assert png.startswith(b"\x89PNG")


def test_bad_analysis_arguments_say_what_is_wrong(tmp_path, capsys):
    tables = TableLogger()
    run("samples/CI2002/config.json", 2, tables)
    cases = [
        (lambda: analysis.plot(tables, tmp_path / "c.jpg"), pams_cpp.ConfigError, "end in .png or .svg"),
        (lambda: analysis.plot(tables, width=100), pams_cpp.ConfigError, "width: must be"),
        (lambda: analysis.plot(tables, height="big"), TypeError, "height must be an int"),
        (lambda: analysis.stylized_facts(tmp_path / "none.csv"), pams_cpp.ConfigError,
         "cannot open the steps CSV file"),
        (lambda: analysis.stylized_facts(tables, sessions=[9]), pams_cpp.ConfigError,
         "sessions: no row of steps"),
        (lambda: analysis.stylized_facts(tables, sessions=["1"]), TypeError, "session ids"),
        (lambda: analysis.stylized_facts(tables.agents), pams_cpp.ConfigError,
         "no column session_id"),
        (lambda: analysis.stylized_facts([1, 2]), TypeError, "steps must be"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()
    assert not list(tmp_path.iterdir())  # no partial chart left
