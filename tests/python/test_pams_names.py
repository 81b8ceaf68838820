"""PAMS 0.3.0's public names at the same places in pams_cpp, and the ones
this checks against PAMS's results: the simulator's Fundamentals, markets'
order books and index components, change_fundamental_price, the built-in
agents' helper methods, Session.setup, find_class and json_extends."""
import importlib
import inspect
import json
import os
import pkgutil
import random
from typing import TypeVar

import pams
import pytest

import pams_cpp
import user_classes
from conftest import ROOT

def public_names(module):
    """The classes and functions a PAMS module defines (not what it imports)."""
    out = set()
    for name, value in vars(module).items():
        if name.startswith("_") or inspect.ismodule(value) or isinstance(value, TypeVar):
            continue
        if getattr(value, "__module__", None) == module.__name__:
            out.add(name)
    return out


def test_every_public_name_of_pams_is_in_pams_cpp():
    missing = []
    for info in pkgutil.walk_packages(pams.__path__, "pams."):
        theirs = importlib.import_module(info.name)
        ours = importlib.import_module("pams_cpp" + info.name[len("pams"):])
        for name in public_names(theirs):
            if not hasattr(ours, name):
                missing.append(f"{ours.__name__}.{name}")
            elif inspect.isclass(getattr(theirs, name)):
                methods = {m for m in dir(getattr(theirs, name)) if not m.startswith("_")}
                missing += [f"{ours.__name__}.{name}.{m}" for m in sorted(methods)
                            if not hasattr(getattr(ours, name), m)]
    for name in dir(pams):
        if not name.startswith("_") and not hasattr(pams_cpp, name) and name != "runners":
            missing.append(f"pams_cpp.{name}")
    assert sorted(missing) == []


def define(pkg):
    """Classes that use what this file checks, for PAMS and pams_cpp."""

    class Reader(pkg.events.EventABC):
        """Reads the fundamentals, the books and the components every 25
        steps, and shocks the first market's fundamental price once."""

        def hook_registration(self):
            return [pkg.events.EventHook(event=self, hook_type="market", is_before=False,
                                         time=list(range(1, 600, 25)))]

        def hooked_after_step_for_market(self, simulator, market):
            t = market.get_time()
            f = simulator.fundamentals
            index = isinstance(market, pkg.IndexMarket)  # no fundamental path of its own
            self.seen = getattr(self, "seen", [])
            self.seen.append((
                market.name, t, None if index else f.get_fundamental_price(market.market_id, t),
                None if index else f.get_fundamental_prices(market.market_id,
                                                            [max(0, t - 3), t]),
                sorted(market.buy_order_book.get_price_volume().items(), key=repr),
                sorted(market.sell_order_book.get_price_volume().items(), key=repr),
                market.buy_order_book.get_best_price(), len(market.sell_order_book),
                [m.name for m in market.get_components()] if index else None))
            if t == 101 and market.market_id == 0:
                market.change_fundamental_price(1.05)

        def state(self):
            return self.seen

    class BasePricer(pkg.agents.MarketMakerAgent):
        def submit_orders(self, markets):
            self.bases = getattr(self, "bases", []) + [self.get_base_price(markets)]
            return super().submit_orders(markets)

        def state(self):
            return self.bases

    class VolumeReader(pkg.agents.MarketShareFCNAgent):
        def submit_orders(self, markets):
            self.volumes = getattr(self, "volumes", []) + [
                [self.get_sum_trade_volume(m) for m in markets]]
            return super().submit_orders(markets)

        def state(self):
            return self.volumes

    return [Reader, BasePricer, VolumeReader, user_classes.define(pkg)["ExtendedMarket"]]


def run(pkg, config, seed):
    runner = pkg.runners.SequentialRunner(settings=config, prng=random.Random(seed))
    for cls in define(pkg):
        runner.class_register(cls)
    runner.main()
    out = [repr(x.state()) for x in runner.simulator.agents + runner.simulator.events
           if hasattr(x, "state")]
    market = runner.simulator.markets[0]
    out.append(repr(market.get_fundamental_prices()))
    session = runner.simulator.sessions[0]
    session.setup({"sessionName": 0, "iterationSteps": 7, "withOrderPlacement": False,
                   "withOrderExecution": False, "withPrint": True})
    out.append((session.iteration_steps, session.with_order_placement))
    return out


def shock_transfer_config():
    with open(os.path.join(ROOT, "samples/shock_transfer/config.json")) as f:
        config = json.load(f)
    config["Reader"] = {"class": "Reader"}
    config["simulation"]["sessions"][1]["events"].append("Reader")
    config["MarketMaker"] = {"class": "BasePricer", "numAgents": 1, "cashAmount": 10000,
                             "assetVolume": 50, "targetMarket": "SpotMarket-1",
                             "markets": ["SpotMarket-1", "SpotMarket-2", "IndexMarket-I"],
                             "netInterestSpread": 0.02, "orderTimeLength": 2}
    config["simulation"]["agents"].append("MarketMaker")
    return config


def market_share_config():
    with open(os.path.join(ROOT, "samples/market_share/config.json")) as f:
        config = json.load(f)
    for value in config.values():
        if isinstance(value, dict) and value.get("class") == "MarketShareFCNAgent":
            value["class"] = "VolumeReader"
    return config


@pytest.mark.parametrize("config", [shock_transfer_config(), market_share_config()],
                         ids=["shock_transfer", "market_share"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_what_pams_cpp_adds_gives_pams_results(config, seed, capsys):
    ours = run(pams_cpp, config, seed)
    assert len(ours) >= 2
    assert ours == run(pams, config, seed)


def test_find_class_and_json_extends_as_in_pams():
    for name in ("FCNAgent", "Market", "FundamentalPriceShock", "MarketStepSaver",
                 "JsonRandom"):
        assert pams_cpp.utils.find_class(name).__name__ == pams.utils.find_class(name).__name__
    extra = type("Extra", (), {})
    assert pams_cpp.utils.find_class("Extra", [extra]) is extra
    for utils in (pams.utils, pams_cpp.utils):
        with pytest.raises(AttributeError, match="class for Nothing is found 0 times"):
            utils.find_class("Nothing")
    whole = {"a": {"x": 1, "y": 1, "class": "A"}, "b": {"extends": "a", "y": 2, "z": 2},
             "loop1": {"extends": "loop2"}, "loop2": {"extends": "loop1"}}
    cases = [("c", {"extends": "b", "w": 3}, None), ("c", {"extends": "b"}, ["class"]),
             ("c", {"extends": "missing"}, None), ("loop1", {"extends": "loop2"}, None)]
    for parent, target, excludes in cases:
        results = []
        for utils in (pams.utils, pams_cpp.utils):
            try:
                out = utils.json_extends(whole, parent, target, excludes)
                results.append(list(out.items()))
            except ValueError as e:
                results.append(str(e))
        assert results[0] == results[1]
