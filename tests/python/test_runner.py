"""PAMS 0.3.0 and pams_cpp in the same interpreter, on the same configs and
seeds: PAMS's samples of built-in classes and the differential configs of
tests/differential/, three seeds each. MarketStepSaver's market_step_logs
must be identical (values bit for bit, types too), as must every agent's
cash and asset volumes at the end and the runner's random.Random
afterwards."""
import io
import json
import os
import random

import pytest

import pams
import pams.logs.market_step_loggers
import pams_cpp
from pams_cpp.logs.market_step_loggers import MarketStepSaver

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIGS = [
    "samples/CI2002/config.json",
    "samples/fat_finger/config.json",
    "samples/price_limit/config.json",
    "samples/shock_transfer/config.json",
    "samples/test/config.json",
    "samples/trading_halt/config.json",
] + [os.path.join("tests/differential/configs", f)
     for f in sorted(os.listdir(os.path.join(ROOT, "tests/differential/configs")))]


def typed_value(v):
    """A value's type and repr, so that 1 != 1.0 (PAMS's numpy floats count
    as floats)."""
    if isinstance(v, float):
        return ("float", repr(float(v)))
    return (type(v).__name__, repr(v))


def typed(logs):
    return [{k: typed_value(v) for k, v in log.items()} for log in logs]


def outcome(fn, *args):
    """repr of what fn(*args) returns, or the type of what it raises."""
    try:
        return repr(fn(*args))
    except Exception as e:  # noqa: BLE001
        return type(e).__name__


def agents_of(runner):
    return [(a.name, repr(float(a.cash_amount)), sorted(a.asset_volumes.items()))
            for a in runner.simulator.agents]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_same_results_as_pams(config, seed, capsys):
    path = os.path.join(ROOT, config)
    ref_prng, our_prng = random.Random(seed), random.Random(seed)
    ref_saver = pams.logs.market_step_loggers.MarketStepSaver()
    ref = pams.runners.SequentialRunner(settings=path, prng=ref_prng, logger=ref_saver)
    ref.main()
    our_saver = MarketStepSaver()
    ours = pams_cpp.runners.SequentialRunner(settings=path, prng=our_prng, logger=our_saver)
    ours.main()
    assert len(our_saver.market_step_logs) == len(ref_saver.market_step_logs) > 0
    assert typed(our_saver.market_step_logs) == typed(ref_saver.market_step_logs)
    assert agents_of(ours) == agents_of(ref)
    assert our_prng.getstate() == ref_prng.getstate()


def test_settings_as_dict_path_and_file():
    path = os.path.join(ROOT, "samples/CI2002/config.json")
    with open(path) as f:
        text = f.read()
    results = []
    for settings in (json.loads(text), path, io.StringIO(text)):
        saver = MarketStepSaver()
        runner = pams_cpp.SequentialRunner(settings=settings, prng=random.Random(4),
                                           logger=saver)
        runner.main()
        results.append(saver.market_step_logs)
        assert isinstance(runner.settings, dict)
    assert results[0] == results[1] == results[2]


def test_printer_writes_through_sys_stdout(capsys):
    path = os.path.join(ROOT, "samples/CI2002/config.json")
    ours = pams_cpp.SequentialRunner(settings=path, prng=random.Random(9),
                                     logger=pams_cpp.logs.MarketStepPrintLogger())
    ours.main()
    our_out = capsys.readouterr().out
    ref = pams.runners.SequentialRunner(
        settings=path, prng=random.Random(9),
        logger=pams.logs.market_step_loggers.MarketStepPrintLogger())
    ref.main()
    ref_out = capsys.readouterr().out
    strip = lambda s: [l for l in s.splitlines() if not l.startswith("# ")]
    assert strip(our_out) == strip(ref_out)
    assert "# EXECUTION TIME" in our_out


def test_simulator_and_market_getters_match_pams():
    path = os.path.join(ROOT, "tests/differential/configs/index_arbitrage.json")
    ref = pams.runners.SequentialRunner(settings=path, prng=random.Random(5))
    ours = pams_cpp.SequentialRunner(settings=path, prng=random.Random(5))
    ref.main()
    ours.main()
    assert [m.name for m in ours.simulator.markets] == [m.name for m in ref.simulator.markets]
    for rm, om in zip(ref.simulator.markets, ours.simulator.markets):
        t = rm.get_time()
        assert om.get_time() == t
        # Negative times index PAMS's lists, which grow in chunks of 100.
        times = (None, 0, 1, t // 2, t - 1, t, t + 1, -1, -2, -t, -t - 60, -10**6)
        for getter in ("get_market_prices", "get_mid_prices", "get_last_executed_prices",
                       "get_fundamental_prices", "get_executed_volumes",
                       "get_executed_total_prices", "get_n_buy_orders", "get_n_sell_orders"):
            assert outcome(getattr(om, getter)) == outcome(getattr(rm, getter)), getter
            for ts in ([0, t // 2, t], [t, 0], [-1], [-t - 30], [t + 1]):
                assert outcome(getattr(om, getter), ts) == \
                    outcome(getattr(rm, getter), ts), (getter, ts)
        for getter in ("get_market_price", "get_mid_price", "get_fundamental_price",
                       "get_last_executed_price", "get_executed_volume",
                       "get_executed_total_price", "get_n_buy_order", "get_n_sell_order",
                       "get_vwap"):
            for time in times:
                assert outcome(getattr(om, getter), time) == \
                    outcome(getattr(rm, getter), time), (getter, time)
        assert repr(om.get_buy_order_book()) == repr(rm.get_buy_order_book())
        assert repr(om.get_sell_order_book()) == repr(rm.get_sell_order_book())
        assert om.get_best_buy_price() == rm.get_best_buy_price()
        assert om.is_running == rm.is_running
        with pytest.raises(AssertionError):
            om.get_market_price(t + 1)
    assert [s.name for s in ours.simulator.sessions] == [s.name for s in ref.simulator.sessions]
    assert sorted(ours.simulator.name2market) == sorted(ref.simulator.name2market)


def test_printers_close_their_stream_after_their_last_write():
    """A printer's last flush comes before its stream closes (it once came
    after: a write to a freed FILE, which corrupted the heap). glibc's
    MALLOC_PERTURB_ fills freed memory, so that such a write fails loudly."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        import io, contextlib, json, random, gc, warnings
        warnings.simplefilter("ignore")
        import pams_cpp
        config = json.load(open({os.path.join(ROOT, "samples/CI2002/config.json")!r}))
        config["simulation"]["sessions"][1]["iterationSteps"] = 5
        for i in range(40):
            printer = pams_cpp.logs.MarketStepPrintLogger()
            with contextlib.redirect_stdout(io.StringIO()):
                pams_cpp.SequentialRunner(settings=config, prng=random.Random(i),
                                          logger=printer).main()
            del printer
            gc.collect()
        print("ok")
    """)
    env = dict(os.environ, MALLOC_PERTURB_="165", MALLOC_CHECK_="3")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


def test_a_progress_bar_counts_every_step(capsys):
    pytest.importorskip("tqdm")
    config = json.load(open(os.path.join(ROOT, "samples/CI2002/config.json")))
    config["simulation"]["sessions"][1]["iterationSteps"] = 200000
    pams_cpp.SequentialRunner(settings=config, prng=random.Random(1)).main(progress=True)
    err = capsys.readouterr().err
    assert "200100/200100" in err, err[-500:]


def test_a_progress_bar_without_tqdm_says_how_to_get_it():
    import subprocess
    import sys

    script = ("import sys; sys.modules['tqdm'] = None\n"
              "import pams_cpp\n"
              f"pams_cpp.SequentialRunner(settings={os.path.join(ROOT, 'samples/CI2002/config.json')!r}"
              ").main(progress=True)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "ImportError: main(progress=True) draws its bar with tqdm, which is not " \
           "installed: pip install tqdm" in proc.stderr


def test_the_package_carries_type_stubs():
    """Editors complete the extension's names (_core.pyi) and read the
    package's inline types (py.typed)."""
    import importlib.resources

    files = importlib.resources.files("pams_cpp")
    assert (files / "py.typed").is_file()
    stub = (files / "_core.pyi").read_text()
    for name in ("class Runner", "class Market", "def get_market_price", "class Agent"):
        assert name in stub, name


def test_every_runners_keys_run_under_every_runner_without_warnings(capsys):
    """A config written for one runner (its numParallel, workers', PyTorch's
    and JAX's keys) runs with another: only keys no runner reads are
    reported; a user's runner subclass declares its own."""
    import warnings

    class MyRunner(pams_cpp.runners.SequentialRunner):
        _simulation_keys = ("myRunnerOption",)

    config = json.load(open(os.path.join(ROOT, "samples/CI2002/config.json")))
    config["simulation"]["sessions"][1]["iterationSteps"] = 5
    config["simulation"].update(numParallel=2, workerNice=2, tensorflowIntraOpThreads=1,
                                torchNumThreads=2, jaxPlatforms="cpu", jaxPreallocate=False,
                                myRunnerOption=1, numParalel=3)
    for runner_class in (pams_cpp.runners.SequentialRunner, MyRunner):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            runner_class(settings=config, prng=random.Random(1)).main()
        unread = [str(w.message) for w in caught if "no class reads this key" in str(w.message)]
        assert len(unread) == 1 and unread[0].startswith("simulation.numParalel:"), unread


def test_a_config_changed_after_the_runner_was_made_counts_as_in_pams(capsys):
    """PAMS reads its runner's settings when it sets up: a change made to the
    config (or a new one given) after the runner was made counts."""
    def prices(change):
        config = json.load(open(os.path.join(ROOT, "samples/CI2002/config.json")))
        config["simulation"]["sessions"][1]["iterationSteps"] = 50
        saver = MarketStepSaver()
        runner = pams_cpp.runners.SequentialRunner(settings=config, prng=random.Random(3),
                                                   logger=saver)
        change(runner, config)
        runner.main()
        return [log["market_price"] for log in saver.market_step_logs]

    def reference(edit):
        config = json.load(open(os.path.join(ROOT, "samples/CI2002/config.json")))
        config["simulation"]["sessions"][1]["iterationSteps"] = 50
        edit(config)
        saver = pams.logs.market_step_loggers.MarketStepSaver()
        runner = pams.runners.SequentialRunner(settings=config, prng=random.Random(3),
                                               logger=saver)
        edit(runner.settings)
        runner.main()
        return [log["market_price"] for log in saver.market_step_logs]

    def fewer_agents(config):
        config["FCNAgents"]["numAgents"] = 20

    in_place = prices(lambda runner, config: fewer_agents(config))
    assert in_place == reference(fewer_agents)
    assert len(in_place) == 150  # 100 + 50 steps
    replaced = dict(json.load(open(os.path.join(ROOT, "samples/CI2002/config.json"))))
    replaced["simulation"]["sessions"][1]["iterationSteps"] = 10

    def replace(runner, config):
        runner.settings = replaced

    assert len(prices(replace)) == 110
