"""Python agent classes on pams_cpp against the same classes on PAMS 0.3.0:
the same config and seed give identical market logs, identical agents
(cash, volumes and every field of their own), and the runner's generator
ends in the same state."""
import copy
import json
import os
import random

import pams
import pytest

import pams_cpp
import user_classes
from conftest import ROOT

PAMS_CLASSES = user_classes.define(pams)
OUR_CLASSES = user_classes.define(pams_cpp)
PAMS_CLASSES.update(user_classes.define_events(pams))
OUR_CLASSES.update(user_classes.define_events(pams_cpp))
PAMS_LOGGERS = user_classes.define_loggers(pams)
OUR_LOGGERS = user_classes.define_loggers(pams_cpp)


def typed_value(v):
    if isinstance(v, float):
        return ("float", repr(float(v)))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [typed_value(x) for x in v])
    if isinstance(v, dict):
        return ("dict", sorted((k, typed_value(x)) for k, x in v.items()))
    return (type(v).__name__, repr(v))


def ci2002(**groups):
    """CI2002 with extra agent groups: name -> (class, count, extra keys)."""
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        config = json.load(f)
    for name, (cls, count, extra) in groups.items():
        group = copy.deepcopy(config["FCNAgents"])
        group.update({"class": cls, "numAgents": count}, **extra)
        config[name] = group
        config["simulation"]["agents"].append(name)
    return config


CONFIGS = {
    # PAMS's user_class sample: the FCNAgents are a subclass that changes nothing.
    "user_class": ci2002(),
    "cancel": ci2002(CancelFCNAgents=("CancelFCNAgent", 30, {"cancelRate": [0.1, 0.5]})),
    "invest_div": ci2002(InvestDivFCNAgents=("InvestDivFCNAgent", 30,
                                             {"leverageRatio": 1.5, "diversityRatio": 0.4})),
    "keeper": ci2002(KeeperAgents=("KeeperAgent", 10, {"maxAge": 4, "spread": [0.0, 0.02]}),
                     Quoters=("QuoterAgent", 2, {})),
}
CONFIGS["user_class"]["FCNAgents"]["class"] = "UserDefinedFCNAgent"
CONFIGS["keeper"]["simulation"]["sessions"][1]["maxNormalOrders"] = 5
CONFIGS["keeper"]["simulation"]["sessions"][1]["maxHighFrequencyOrders"] = 2


def shock_transfer():
    """PAMS's shock_transfer sample (three markets, an index, arbitrageurs,
    a shock) with KeeperAgents trading in all three and CancelFCNAgents."""
    with open(os.path.join(ROOT, "samples/shock_transfer/config.json")) as f:
        config = json.load(f)
    config["KeeperAgents"] = {
        "class": "KeeperAgent", "numAgents": 10, "cashAmount": 10000, "assetVolume": 50,
        "markets": ["SpotMarket-1", "SpotMarket-2", "IndexMarket-I"], "maxAge": 6}
    config["FCNAgents-2"]["class"] = "CancelFCNAgent"
    config["simulation"]["agents"].append("KeeperAgents")
    return config


CONFIGS["shock_transfer"] = shock_transfer()


def with_events(config):
    """The config with the Python events in its last session."""
    config = copy.deepcopy(config)
    config["PriceNudge"] = {"class": "PriceNudge", "rate": 0.2}
    config["Recorder"] = {"class": "Recorder", "every": 7}
    session = config["simulation"]["sessions"][-1]
    session["events"] = session.get("events", []) + ["PriceNudge", "Recorder"]
    return config


with open(os.path.join(ROOT, "samples/market_share/config.json")) as f:
    CONFIGS["market_share"] = json.load(f)  # ExtendedMarkets
CONFIGS["events"] = with_events(CONFIGS["cancel"])
CONFIGS["events_shock_transfer"] = with_events(CONFIGS["shock_transfer"])


def builtin_event_subclasses(sample, classes):
    """A sample whose built-in events are Python subclasses of theirs."""
    with open(os.path.join(ROOT, "samples", sample, "config.json")) as f:
        config = json.load(f)
    for key, cls in classes.items():
        config[key]["class"] = cls
    return config


CONFIGS["shock_subclass"] = builtin_event_subclasses(
    "shock_transfer", {"FundamentalPriceShock": "LoggedShock"})
CONFIGS["price_limit_subclass"] = builtin_event_subclasses(
    "price_limit", {"PriceLimitRule": "CountingLimit"})
CONFIGS["trading_halt_subclass"] = builtin_event_subclasses(
    "trading_halt", {"FundamentalPriceShock": "LoggedShock", "TradingHaltRule": "NoisyHalt"})


def run(pkg, classes, config, seed):
    saver = pkg.logs.market_step_loggers.MarketStepSaver()
    prng = random.Random(seed)
    runner = pkg.runners.SequentialRunner(settings=copy.deepcopy(config), prng=prng,
                                          logger=saver)
    for cls in classes.values():
        runner.class_register(cls)
    runner.main()
    agents = []
    for a in runner.simulator.agents:
        own = a.state() if hasattr(a, "state") else None
        agents.append((a.name, type(a).__name__, repr(float(a.cash_amount)),
                       sorted(a.asset_volumes.items()), typed_value(own)))
    for e in runner.simulator.events:
        if hasattr(e, "state"):
            agents.append((e.name, type(e).__name__, typed_value(e.state())))
    logs = [{k: typed_value(v) for k, v in log.items()} for log in saver.market_step_logs]
    return logs, agents, prng.getstate()


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_python_agents_as_in_pams(name, seed, capsys):
    ref = run(pams, PAMS_CLASSES, CONFIGS[name], seed)
    ours = run(pams_cpp, OUR_CLASSES, CONFIGS[name], seed)
    assert ours[0] == ref[0]
    assert ours[1] == ref[1]
    assert ours[2] == ref[2]
    assert len(ref[0]) >= 600


def test_override_detection():
    """A subclass that overrides nothing runs in C++; overrides are found
    once per class, also of submit_orders_by_market."""
    from pams_cpp.runners.base import _agent_class

    info = _agent_class(OUR_CLASSES["UserDefinedFCNAgent"], None)
    assert info.base == "FCNAgent"
    assert not (info.setup or info.submit_orders or info.submitted_order
                or info.executed_order or info.canceled_order)
    info = _agent_class(OUR_CLASSES["CancelFCNAgent"], None)
    assert info.setup and info.submit_orders and not info.executed_order
    info = _agent_class(OUR_CLASSES["QuoterAgent"], None)
    assert info.base == "HighFrequencyAgent" and info.submit_orders


@pytest.mark.parametrize("logger, seed", [("RecordingLogger", 1), ("RecordingLogger", 2),
                                          ("RecordingLogger", 3), ("StepEndLogger", 1),
                                          ("ProcessLogger", 1), ("DirectWriteLogger", 1)])
@pytest.mark.parametrize("name", ["keeper", "shock_transfer"])
def test_python_loggers_receive_what_pams_gives(logger, name, seed, capsys):
    """Every log a Python logger receives, in the same order, every field."""
    records = []
    for pkg, classes, loggers in ((pams, PAMS_CLASSES, PAMS_LOGGERS),
                                  (pams_cpp, OUR_CLASSES, OUR_LOGGERS)):
        log = loggers[logger]()
        runner = pkg.runners.SequentialRunner(settings=copy.deepcopy(CONFIGS[name]),
                                              prng=random.Random(seed), logger=log)
        for cls in classes.values():
            runner.class_register(cls)
        runner.main()
        records.append(typed_value(log.records))
    assert records[1] == records[0]
    assert len(records[0][1]) >= 600


def test_a_logger_sees_only_the_kinds_it_overrides():
    from pams_cpp.runners.base import _log_kinds

    kinds = _log_kinds(OUR_LOGGERS["StepEndLogger"])
    assert kinds == {"order": False, "cancel": False, "expiration": False, "execution": False,
                     "market_step_begin": False, "market_step_end": True,
                     "direct": True}  # its step logs may skip write_and_direct_process
    kinds = _log_kinds(OUR_LOGGERS["ProcessLogger"])
    assert kinds.pop("direct") is False and all(kinds.values())
    assert _log_kinds(OUR_LOGGERS["DirectWriteLogger"])["direct"] is False


def test_a_market_step_saver_subclass_keeps_more_as_in_pams(capsys):
    """PAMS's market_share notebook subclasses MarketStepSaver to keep the
    executed volume too: such a subclass runs as a Python logger."""
    records = []
    for pkg in (pams, pams_cpp):
        class SaverWithVolume(pkg.logs.market_step_loggers.MarketStepSaver):
            def process_market_step_end_log(self, log):
                self.market_step_logs.append({
                    "session_id": log.session.session_id,
                    "market_time": log.market.get_time(),
                    "market_id": log.market.market_id,
                    "market_name": log.market.name,
                    "market_price": log.market.get_market_price(),
                    "fundamental_price": log.market.get_fundamental_price(),
                    "executed_volume": log.market.get_executed_volume(),
                })

        class PlainSubclass(pkg.logs.market_step_loggers.MarketStepSaver):
            def process_market_step_end_log(self, log):
                super().process_market_step_end_log(log)

        for cls in (SaverWithVolume, PlainSubclass):
            saver = cls()
            pkg.runners.SequentialRunner(
                settings=os.path.join(ROOT, "samples/shock_transfer/config.json"),
                prng=random.Random(4), logger=saver).main()
            records.append(typed_value(saver.market_step_logs))
    assert records[2] == records[0] and records[3] == records[1]
    assert len(records[0][1]) == 1800


def test_a_python_savers_market_step_logs_is_a_plain_attribute_as_in_pams():
    """A MarketStepSaver subclass that processes logs itself keeps its
    records in a plain attribute, as PAMS's: the same list at each read, a
    list assigned to it is where MarketStepSaver's own method appends, and
    vars() holds it."""
    results = []
    for pkg in (pams, pams_cpp):
        class Replacing(pkg.logs.market_step_loggers.MarketStepSaver):
            def __init__(self):
                super().__init__()
                self.market_step_logs = ["kept"]

            def process_market_step_end_log(self, log):
                super().process_market_step_end_log(log)

        saver = Replacing()
        first = saver.market_step_logs
        pkg.runners.SequentialRunner(
            settings=os.path.join(ROOT, "samples/CI2002/config.json"),
            prng=random.Random(2), logger=saver).main()
        assert saver.market_step_logs is first and "market_step_logs" in vars(saver)
        results.append(typed_value(saver.market_step_logs))
    assert results[1] == results[0]
    assert results[0][1][0] == ("str", "'kept'") and len(results[0][1]) == 1 + 600


def test_overriding_an_engine_csv_logger_is_refused(tmp_path):
    class MyCsv(pams_cpp.logs.StepsCsvLogger):
        def process_market_step_end_log(self, log):
            pass

    with pytest.raises(NotImplementedError, match="subclass pams_cpp.logs.Logger"):
        pams_cpp.runners.SequentialRunner(settings=CONFIGS["keeper"],
                                          logger=MyCsv(tmp_path / "steps.csv"))


def test_install_as_pams_runs_code_written_for_pams_unchanged(tmp_path):
    """Code that imports pams (here user_classes.define(pams) and PAMS's
    runner API) runs on pams_cpp after install_as_pams(), with PAMS's
    results."""
    import subprocess
    import sys
    import textwrap

    config_path = tmp_path / "config.json"
    config_path.write_text(json.dumps(CONFIGS["cancel"]))
    script = textwrap.dedent(f"""
        import json, random, sys, warnings
        warnings.simplefilter("ignore")
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        import pams_cpp
        pams_cpp.install_as_pams()
        import pams
        from pams.logs.market_step_loggers import MarketStepSaver
        from pams.runners import SequentialRunner
        import user_classes
        assert pams is pams_cpp
        saver = MarketStepSaver()
        runner = SequentialRunner(settings={str(config_path)!r}, prng=random.Random(2),
                                  logger=saver)
        for cls in user_classes.define(pams).values():
            runner.class_register(cls)
        runner.main()
        print(json.dumps([log["market_price"] for log in saver.market_step_logs]))
        try:
            import pams.no_such_module
        except ModuleNotFoundError as e:
            print(e)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    ref = run(pams, PAMS_CLASSES, CONFIGS["cancel"], 2)[0]
    assert json.loads(out[-2]) == [float(eval(log["market_price"][1])) for log in ref]
    assert out[-1].startswith("pams_cpp has no module pams.no_such_module")


def test_markets_of_python_classes_are_the_simulators_objects(capsys):
    runner = pams_cpp.SequentialRunner(settings=CONFIGS["market_share"], prng=random.Random(1))
    runner.class_register(OUR_CLASSES["ExtendedMarket"])
    runner.main()
    markets = runner.simulator.markets
    assert all(type(m) is OUR_CLASSES["ExtendedMarket"] for m in markets)
    assert markets[0] is runner.simulator.markets[0]
    assert isinstance(markets[0], pams_cpp.Market)
    with pytest.raises(AttributeError, match="only a market of a Python class"):
        pams_cpp.SequentialRunner(settings=CONFIGS["keeper"]).simulator  # noqa: B018
        plain = pams_cpp.SequentialRunner(settings=os.path.join(ROOT, "samples/CI2002/config.json"))
        plain.main()
        plain.simulator.markets[0]._executed_volumes = [3]


EVENT_ATTRIBUTES = {
    "FundamentalPriceShock": ["target_market_name", "trigger_time", "price_change_rate",
                              "is_enabled", "shock_time_length"],
    "PriceLimitRule": ["trigger_change_rate", "is_enabled"],
    "TradingHaltRule": ["trigger_change_rate", "halting_time_length", "halting_time_started",
                        "is_enabled", "is_halting", "activation_count"],
    "OrderMistakeShock": ["trigger_time", "price_change_rate", "order_volume",
                          "order_time_length", "is_enabled", "triggerd"],
}


@pytest.mark.parametrize("sample", ["shock_transfer", "price_limit", "trading_halt",
                                    "fat_finger"])
def test_builtin_events_are_pams_classes_with_pams_attributes(sample, capsys):
    def events_of(pkg):
        runner = pkg.runners.SequentialRunner(
            settings=os.path.join(ROOT, "samples", sample, "config.json"),
            prng=random.Random(4))
        runner.main()
        out = []
        for e in runner.simulator.events:
            cls = type(e).__name__
            assert isinstance(e, getattr(pkg.events, cls))
            values = [typed_value(getattr(e, a)) for a in EVENT_ATTRIBUTES[cls]]
            for name in ("target_market", "target_markets", "halted_markets"):
                if hasattr(e, name):
                    markets = getattr(e, name)
                    values.append(sorted(markets) if isinstance(markets, dict)
                                  else [m.name for m in markets] if isinstance(markets, list)
                                  else markets.name)
            out.append((cls, e.name, values))
        return out

    ours = events_of(pams_cpp)
    assert ours and ours == events_of(pams)


def test_overriding_what_a_builtin_event_calls_in_cpp_is_refused():
    class MyLimit(pams_cpp.events.PriceLimitRule):
        def get_limited_price(self, order, market):
            return order.price

    runner = pams_cpp.runners.SequentialRunner(
        settings=os.path.join(ROOT, "samples/price_limit/config.json"))
    with pytest.raises(NotImplementedError, match="overrides get_limited_price, which the "
                                                  "engine's PriceLimitRule calls"):
        runner.class_register(MyLimit)


def test_super_of_a_log_hook_outside_its_hook_says_so(capsys):
    class Eager(pams_cpp.events.TradingHaltRule):
        def hooked_before_step_for_market(self, simulator, market):
            super().hooked_after_execution(simulator, None)

    config = json.load(open(os.path.join(ROOT, "samples/trading_halt/config.json")))
    config["TradingHaltRule"]["class"] = "Eager"
    runner = pams_cpp.runners.SequentialRunner(settings=config, prng=random.Random(1))
    runner.class_register(Eager)
    with pytest.raises(pams_cpp.SimulationError,
                       match=r"super\(\).hooked_after_execution\(\) must be called from "
                             "hooked_after_execution"):
        runner.main()


def test_runner_subclasses_run_as_in_pams(capsys):
    def define(pkg):
        class CountingRunner(pkg.runners.SequentialRunner):
            """Wraps setup and run, as users' runners do."""

            def _setup(self):
                super()._setup()
                self.after_setup = (len(self.simulator.agents), self._prng.random())

            def _run(self):
                super()._run()
                self.hft = [a.name for a in self.simulator.agents if self.judge_hft_or_not(a)]

        return CountingRunner

    def run_with(pkg):
        saver = pkg.logs.market_step_loggers.MarketStepSaver()
        runner = define(pkg)(settings=os.path.join(ROOT, "samples/CI2002/config.json"),
                             prng=random.Random(8), logger=saver)
        runner.main()
        return runner.after_setup, runner.hft, [typed_value(v) for v in
                                                 (log["market_price"] for log in
                                                  saver.market_step_logs)]

    ours = run_with(pams_cpp)
    assert ours[0][0] == 100 and len(ours[2]) == 600
    assert ours == run_with(pams)


def test_a_runner_overriding_a_step_the_engine_runs_is_refused():
    class Custom(pams_cpp.runners.SequentialRunner):
        def _handle_orders(self, session, local_orders):
            pass

    with pytest.raises(NotImplementedError, match="Custom defines _handle_orders, a step of "
                                                  "PAMS's SequentialRunner"):
        Custom(settings=os.path.join(ROOT, "samples/CI2002/config.json"))


def test_a_market_overriding_what_the_engine_uses_is_refused():
    class Flat(pams_cpp.Market):
        def setup(self, settings, *args, **kwargs):
            super().setup(settings, *args, **kwargs)

        def get_market_price(self, time=None):
            return 300.0

    runner = pams_cpp.runners.SequentialRunner(
        settings=os.path.join(ROOT, "samples/CI2002/config.json"))
    with pytest.raises(NotImplementedError, match="Flat overrides get_market_price of Market, "
                                                  "which the engine's markets and agents use"):
        runner.class_register(Flat)
