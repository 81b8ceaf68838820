"""The samples of PAMS's development branch on pams_cpp (samples/*/).

* Each sample's main.py prints what ``pams run`` prints for its config.
* Each built-in sample class gives, bit for bit, the run of a model of the
  branch's class written here in Python (a user class of the same name,
  which replaces the built-in one in its runner, as in the branch's sample).
* The dark pool fills at its lit market's mid price, rounded for the
  earlier order; the workload's prices are CPython's.
"""
import copy
import json
import math
import os
import random
import subprocess
import sys

import pytest

from conftest import ROOT
from pams_cpp.agents import FCNAgent
from pams_cpp.events import EventABC
from pams_cpp.events import EventHook
from pams_cpp.logs import Logger
from pams_cpp.order import MARKET_ORDER
from pams_cpp.order import Cancel
from pams_cpp.order import Order
from pams_cpp.runners import MultiProcessAgentParallelRunner
from pams_cpp.runners import SequentialRunner
from pams_cpp.utils import JsonRandom

if ROOT not in sys.path:
    sys.path.append(ROOT)  # the samples package

from samples.black_scholes.black_scholes import BlackScholes  # noqa: E402
from samples.black_scholes.workload_fcn_agent import WorkloadFCNAgent as BsWorkload  # noqa: E402
from samples.dark_pool.dark_pool_market import DarkPoolMarket  # noqa: E402
from samples.parallel_main.make_config import make_config  # noqa: E402
from samples.parallel_main.workload_fcn_agent import WorkloadFCNAgent as PmWorkload  # noqa: E402


def sample_config(name, file="config.json"):
    with open(os.path.join(ROOT, "samples", name, file)) as f:
        return json.load(f)


def market_lines(out):
    return [line for line in out.splitlines() if line and not line.startswith("#")]


@pytest.mark.parametrize("name, runner", [
    ("dark_pool", None), ("invest_div", None), ("cancel_test", None), ("fat_tail", None),
    ("black_scholes", "multi_process"), ("parallel_main", "multi_thread")])
def test_main_prints_what_pams_run_prints(name, runner):
    cli = os.environ.get("PAMS_CLI")
    if not cli:
        pytest.skip("PAMS_CLI (the pams command) is not set")  # only outside ctest
    config = os.path.join("samples", name, "config.json")
    args = [sys.executable, "-m", f"samples.{name}.main", "--config", config, "--seed", "1"]
    if runner is not None:
        args += ["--runner", runner, "--num-parallel", "2"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    ours = subprocess.run(args, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    cli_out = subprocess.run([cli, "run", config, "--seed", "1"], cwd=ROOT, check=True,
                             capture_output=True, text=True)
    mine, theirs = market_lines(ours.stdout), market_lines(cli_out.stdout)
    assert len(mine) == len(theirs) > 0
    if name == "dark_pool":
        # DarkPoolPrintLogger adds the trade price and the volume.
        mine = [" ".join(line.split()[:6]) for line in mine]
    assert mine == theirs


class Record(Logger):
    def __init__(self):
        super().__init__()
        self.executions = []

    def process_execution_log(self, log):
        self.executions.append(vars(log))


def results(config, seed, classes=(), runner_class=SequentialRunner):
    """Everything a run decides: prices, volumes, executions, the agents."""
    logger = Record()
    runner = runner_class(settings=copy.deepcopy(config), prng=random.Random(seed), logger=logger)
    for cls in classes:
        runner.class_register(cls)
    runner._setup()
    runner._run()
    sim = runner.simulator
    markets = [(m.get_market_prices(), m.get_executed_volumes()) for m in sim.markets]
    agents = [(a.cash_amount, dict(a.asset_volumes)) for a in sim.agents]
    return markets, logger.executions, agents, runner


# --- Models of the branch's classes, written here (user classes) ---

class CancelFCNAgent(FCNAgent):
    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings=settings, accessible_markets_ids=accessible_markets_ids)
        self.cancel_rate = (JsonRandom(prng=self.prng).random(settings["cancelRate"])
                            if "cancelRate" in settings else 0.3)

    def submit_orders_by_market(self, market):
        orders = super().submit_orders_by_market(market=market)
        return orders + [Cancel(order=o) for o in orders
                         if isinstance(o, Order) and self.prng.random() < self.cancel_rate]


class InvestDivFCNAgent(FCNAgent):
    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings, accessible_markets_ids, *args, **kwargs)
        self.leverage = float(settings["leverageRatio"])
        self.diversity = float(settings["diversityRatio"])

    def value(self, market):
        return market.get_market_price() * self.get_asset_volume(market_id=market.market_id)

    def submit_orders(self, markets):
        mine = [m for m in markets if self.is_market_accessible(market_id=m.market_id)]
        net, total = self.get_cash_amount(), 0.0
        for m in mine:
            net += self.value(m)
            total += abs(self.value(m))
        if total > self.leverage * net:
            return []
        out = []
        for order in super().submit_orders(markets=mine):
            market = next(m for m in mine if m.market_id == order.market_id)
            if abs(self.value(market)) <= self.diversity * net:
                out.append(order)
                continue
            volume = self.get_asset_volume(market_id=market.market_id)
            book = market.sell_order_book if volume < 0 else market.buy_order_book
            if volume != 0 and market.is_running and len(book) > 0:
                out.append(Order(agent_id=self.agent_id, market_id=market.market_id,
                                 is_buy=volume < 0, kind=MARKET_ORDER, volume=1, ttl=10))
        return out


class DarkPoolFCNAgent(FCNAgent):
    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings=settings, accessible_markets_ids=accessible_markets_ids)
        self.chance = JsonRandom(prng=self.prng).random(settings["darkPoolChance"])

    def submit_orders_by_market(self, market):
        if not isinstance(market, DarkPoolMarket) or not self.is_market_accessible(
                market_id=market.market_id):
            return []
        out = []
        for lit in super().submit_orders_by_market(market=market.lit_market):
            if isinstance(lit, Order) and self.prng.random() < self.chance:
                out.append(Order(agent_id=self.agent_id, market_id=market.market_id,
                                 is_buy=lit.is_buy, kind=MARKET_ORDER, volume=lit.volume,
                                 ttl=lit.ttl))
            else:
                out.append(lit)
        return out


def monte_carlo(prng, n_samples, n_steps, s=100.0, k=100.0, r=0.1, v=0.3, t=3.0):
    """Euler paths of a call; returns the undiscounted total payoff."""
    dt = t / n_steps
    total = 0.0
    for _ in range(n_samples):
        price = s
        for _ in range(n_steps):
            price += price * r * dt + price * prng.gauss(0.0, 1.0) * v * math.sqrt(dt)
        total += max(price - k, 0.0)
    return total


class WorkloadFCNAgent(FCNAgent):
    """parallel_main's."""

    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings=settings, accessible_markets_ids=accessible_markets_ids)
        self.rate = (JsonRandom(prng=self.prng).random(settings["orderRate"])
                     if "orderRate" in settings else 0.1)
        self.workload = settings.get("bsWorkload", False)
        self.samples = settings.get("bsNumSamples", 0)
        self.steps = settings.get("bsNumSteps", 0)
        self.prices = []

    def submit_orders_by_market(self, market):
        if not self.is_market_accessible(market_id=market.market_id):
            return []
        if self.workload:
            prng = random.Random(f"{self.agent_id}:{market.market_id}:{market.get_time()}")
            total = monte_carlo(prng, self.samples, self.steps)
            self.prices.append(math.exp(-0.1 * 3.0) * total / self.samples)
        if self.rate < 1.0 and self.prng.random() > self.rate:
            return []
        return super().submit_orders_by_market(market=market)


class BlackScholesWorkloadFCNAgent(FCNAgent):
    """black_scholes's WorkloadFCNAgent, under its pams run name."""

    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings=settings, accessible_markets_ids=accessible_markets_ids)
        self.workload = settings.get("bsWorkload", False)
        self.shutdown = settings.get("bsLoadShutdown", -1)
        self.samples = settings.get("bsNumSamples", 0)
        self.steps = settings.get("bsNumSteps", 0)
        self.rate = (JsonRandom(prng=self.prng).random(settings["orderRate"])
                     if "orderRate" in settings else 0.1)
        self.bs_sum = 0.0

    def submit_orders(self, markets):
        mine = [m for m in markets if self.is_market_accessible(market_id=m.market_id)]
        if not mine:
            return []
        time = mine[0].get_time()
        if self.workload and (self.shutdown <= 0 or time < self.shutdown):
            total = monte_carlo(self.prng, self.samples, self.steps)
            self.bs_sum += math.exp(-0.1 * 3.0) * (total / self.samples)
        if self.prng.random() > self.rate:
            return []
        return super().submit_orders(markets=markets)


def small(config, count=20, steps=None):
    for entry in config.values():
        if isinstance(entry, dict) and "numAgents" in entry and entry.get("numAgents", 0) > count:
            entry["numAgents"] = count
    if steps is not None:
        for session in config["simulation"]["sessions"]:
            session["iterationSteps"] = min(session["iterationSteps"], steps)
    return config


@pytest.mark.parametrize("name, model, file", [
    ("cancel_test", CancelFCNAgent, "config.json"),
    ("invest_div", InvestDivFCNAgent, "config.json"),
    ("dark_pool", DarkPoolFCNAgent, "config.json"),
    ("black_scholes", BlackScholesWorkloadFCNAgent, "config.json"),
    ("parallel_main", WorkloadFCNAgent, "config.json"),
])
def test_builtin_classes_equal_models_of_the_branchs(name, model, file):
    config = small(sample_config(name, file), steps=400)
    builtin = results(config, 5)
    modelled = results(config, 5, classes=[model])
    # The model ran (its objects are the agents), and gave the same run.
    assert any(type(a) is model for a in modelled[3].simulator.agents)
    assert builtin[:3] == modelled[:3]
    assert len(builtin[1]) > 0


def test_workload_prices_and_bs_sum_are_the_models():
    config = small(make_config(n_spots=2, steps=5, agents_per_market=3, arbitrage_agents=2))
    engine = results(config, 7)[3]
    agent = engine.simulator.agents[0]
    market = engine.simulator.markets[0]
    assert isinstance(agent, PmWorkload)
    # The price at the market's time now, by the model.
    prng = random.Random(f"0:0:{market.get_time()}")
    assert agent.compute_workload(market) == math.exp(-0.3) * monte_carlo(prng, 10, 10) / 10
    # black_scholes: bs_sum of every agent.
    config = sample_config("black_scholes")
    for key in ("FCNAgents-1", "FCNAgents-2", "FCNAgents-3"):
        config[key]["numAgents"] = 3
    config["FCNAgents-I"]["numAgents"] = 2
    engine = results(config, 7)[3]
    model = results(config, 7, classes=[BlackScholesWorkloadFCNAgent])[3]
    sums = [a.bs_sum for a in engine.simulator.agents if isinstance(a, BsWorkload)]
    assert len(sums) == 11 and all(s > 0 for s in sums)
    assert sums == [a.bs_sum for a in model.simulator.agents if hasattr(a, "bs_sum")]


def test_black_scholes_draws_as_the_python_loop():
    prng, ours = random.Random(42), random.Random(42)
    price = BlackScholes(prng, 100.0, 100.0, 0.1, 0.3, 3.0).compute(n_samples=3, n_steps=4)
    assert price == math.exp(-0.3) * (monte_carlo(ours, 3, 4) / 3)
    assert prng.getstate() == ours.getstate()
    # plhamJ's BlackScholes.main prints 33.6044837628.
    assert BlackScholes(prng, 100.0, 100.0, 0.1, 0.3, 3.0).theoretical_price() == \
        pytest.approx(33.6044837628, abs=1e-9)
    with pytest.raises(ValueError):
        BlackScholes(prng, 100.0, 100.0, 0.1, 0.3, 3.0).compute(n_samples=0, n_steps=1)


class DarkPoolCheck(EventABC):
    """After each execution (the engine calls it before anything else
    trades): a dark pool's price against its lit market's mid."""

    checked = 0

    def hook_registration(self):
        return [EventHook(event=self, hook_type="execution", is_before=False)]

    def hooked_after_execution(self, simulator, execution_log):
        if execution_log.market_id != 1:
            return
        lit = simulator.markets[0]
        buy, sell = lit.get_best_buy_price(), lit.get_best_sell_price()
        mid = lit.get_market_price() if buy is None or sell is None else (buy + sell) / 2.0
        level = mid / 0.00001
        # The earlier order gets the better side of the tick: a later buy
        # pays the tick above, a later sell gets the tick below.
        later_buy = execution_log.buy_order_id > execution_log.sell_order_id
        tick = math.ceil(level) if later_buy else math.floor(level)
        if abs(level - round(level)) < 1e-6:
            tick = round(level)
        assert execution_log.price == pytest.approx(tick * 0.00001, abs=1e-9)
        DarkPoolCheck.checked += 1


def test_dark_pool_fills_at_the_lit_mid():
    config = sample_config("dark_pool")
    config["Check"] = {"class": "DarkPoolCheck"}
    config["simulation"]["sessions"][1]["events"] = ["Check"]
    runner = SequentialRunner(settings=config, prng=random.Random(2))
    runner.class_register(DarkPoolCheck)
    DarkPoolCheck.checked = 0
    runner.main()
    assert DarkPoolCheck.checked > 50
    pool = runner.simulator.markets[1]
    assert isinstance(pool, DarkPoolMarket)
    assert pool.lit_market.market_id == 0


def test_parallel_runners_give_sequentials_results():
    config = small(make_config(n_spots=2, steps=10, agents_per_market=8, arbitrage_agents=3,
                               num_parallel=2))
    assert results(config, 4, runner_class=MultiProcessAgentParallelRunner)[:3] == \
        results(config, 4)[:3]
    config = sample_config("black_scholes")
    config["simulation"]["numParallel"] = 2
    config["simulation"]["sessions"][0]["iterationSteps"] = 20
    assert results(config, 4, classes=[BsWorkload],
                   runner_class=MultiProcessAgentParallelRunner)[:3] == \
        results(config, 4)[:3]


def test_make_config_writes_the_checked_in_configs():
    for n in (2, 9, 99):
        assert sample_config("parallel_main", f"config-{n:03d}.json") == make_config(n_spots=n)
    assert sample_config("parallel_main") == make_config(
        n_spots=2, steps=20, agents_per_market=20, arbitrage_agents=10, num_parallel=2)
    with pytest.raises(ValueError):
        make_config(n_spots=0)


def docs_config_example(name):
    """The configs of the development branch's docs (config_examples/*.json,
    the quick start of its config guide), built from its description: 100
    FCN agents in one market, a warm-up session of 100 steps and a main one
    of 500, and per example what it adds."""
    fcn = {"class": "FCNAgent", "numAgents": 100, "markets": ["Market"], "assetVolume": 50,
           "cashAmount": 10000, "fundamentalWeight": {"expon": [1.0]},
           "chartWeight": {"expon": [0.0]}, "noiseWeight": {"expon": [1.0]},
           "noiseScale": 0.001, "timeWindowSize": [100, 200], "orderMargin": [0.0, 0.1]}
    session = {"withOrderPlacement": True, "withPrint": True}
    config = {
        "simulation": {"markets": ["Market"], "agents": ["FCNAgents"], "sessions": [
            dict(session, sessionName="warmup", iterationSteps=100, withOrderExecution=False),
            dict(session, sessionName="main", iterationSteps=500, withOrderExecution=True)]},
        "Market": {"class": "Market", "tickSize": 0.00001, "marketPrice": 300.0},
        "FCNAgents": fcn,
    }
    sessions = config["simulation"]["sessions"]
    if name == "events":
        sessions[1]["events"] = ["PriceDrop", "CircuitBreaker"]
        config["PriceDrop"] = {"class": "FundamentalPriceShock", "target": "Market",
                               "triggerTime": 100, "priceChangeRate": -0.1}
        config["CircuitBreaker"] = {"class": "TradingHaltRule", "targetMarkets": ["Market"],
                                    "triggerChangeRate": 0.05, "haltingTimeLength": 50}
    elif name == "market_maker":
        config["simulation"]["agents"].append("MarketMakers")
        sessions[0]["maxHighFrequencyOrders"] = 0
        sessions[1].update(maxHighFrequencyOrders=1, highFrequencySubmitRate=0.5)
        config["MarketMakers"] = {"class": "MarketMakerAgent", "numAgents": 2,
                                  "markets": ["Market"], "targetMarket": "Market",
                                  "assetVolume": 50, "cashAmount": 10000,
                                  "netInterestSpread": 0.02, "orderTimeLength": 2}
    elif name == "parallel":
        config["simulation"]["numParallel"] = 4
        for s in sessions:
            s["maxNormalOrders"] = 4
    elif name == "index_arbitrage":
        config["simulation"] = {
            "markets": ["SpotMarkets", "IndexMarket"],
            "agents": ["SpotFCNAgents", "IndexFCNAgents", "ArbitrageAgents"],
            "sessions": sessions,
            "fundamentalCorrelations": {"pairwise": [["SpotMarkets-0", "SpotMarkets-1", 0.5]]}}
        sessions[0].update(maxNormalOrders=3, maxHighFrequencyOrders=0)
        sessions[1].update(maxNormalOrders=3, maxHighFrequencyOrders=5)
        del config["Market"], config["FCNAgents"]
        config["SpotMarkets"] = {"class": "Market", "numMarkets": 2, "tickSize": 0.00001,
                                 "marketPrice": 300.0, "fundamentalVolatility": 0.001,
                                 "outstandingShares": 25000}
        config["IndexMarket"] = {"class": "IndexMarket", "tickSize": 0.00001,
                                 "marketPrice": 300.0,
                                 "markets": ["SpotMarkets-0", "SpotMarkets-1"]}
        config["FCNBase"] = dict(fcn)
        del config["FCNBase"]["markets"]
        config["SpotFCNAgents"] = {"extends": "FCNBase", "markets": ["SpotMarkets"]}
        config["IndexFCNAgents"] = {"extends": "FCNBase", "markets": ["IndexMarket"]}
        config["ArbitrageAgents"] = {"class": "ArbitrageAgent", "numAgents": 10,
                                     "markets": ["IndexMarket", "SpotMarkets"],
                                     "assetVolume": 50, "cashAmount": 150000,
                                     "orderVolume": 1, "orderThresholdPrice": 1.0}
    return config


@pytest.mark.parametrize("name", ["minimal", "events", "index_arbitrage", "market_maker",
                                  "parallel"])
def test_docs_config_examples_validate_and_run_as_pams(name, tmp_path):
    cli = os.environ.get("PAMS_CLI")
    if not cli:
        pytest.skip("PAMS_CLI (the pams command) is not set")  # only outside ctest
    import pams.logs.market_step_loggers
    import pams.runners

    config = docs_config_example(name)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    subprocess.run([cli, "validate", str(path)], check=True, capture_output=True)
    ours = market_lines(subprocess.run([cli, "run", str(path), "--seed", "3"], check=True,
                                       capture_output=True, text=True).stdout)
    assert len(ours) == 600 * len(config["simulation"]["markets"]) + (
        600 if name == "index_arbitrage" else 0)
    if name not in ("minimal", "events", "parallel"):
        return  # 0.3.0's features, which the differential tests compare with PAMS
    # PAMS 0.3.0 (these configs use nothing of the branch's): the same lines.
    saver = pams.logs.market_step_loggers.MarketStepSaver()
    pams.runners.SequentialRunner(settings=copy.deepcopy(config), prng=random.Random(3),
                                  logger=saver).main()
    assert len(ours) == len(saver.market_step_logs)
    assert [line.split()[4] for line in ours] == [
        str(log["market_price"]) for log in saver.market_step_logs]
    if name == "parallel":
        for runner in ["MultiThreadAgentParallelRunner", "MultiProcessAgentParallelRunner"]:
            assert market_lines(subprocess.run(
                [cli, "run", str(path), "--seed", "3", "--runner", runner], check=True,
                capture_output=True, text=True).stdout) == ours


@pytest.mark.parametrize("name", ["dark_pool", "invest_div", "cancel_test", "black_scholes"])
def test_cli_process_runner_gives_sequentials_results(name):
    cli = os.environ.get("PAMS_CLI")
    if not cli:
        pytest.skip("PAMS_CLI (the pams command) is not set")  # only outside ctest
    # --check-parallel compares every event of the run with SequentialRunner's
    # (the dark pool's immediate cancels replayed in the worker replicas).
    out = subprocess.run([cli, "run", f"samples/{name}/config.json", "--seed", "3", "--quiet",
                          "--runner", "MultiProcessAgentParallelRunner", "--set",
                          "simulation.numParallel=2", "--check-parallel"],
                         cwd=ROOT, check=True, capture_output=True, text=True)
    assert "gives SequentialRunner's results" in out.stdout + out.stderr
