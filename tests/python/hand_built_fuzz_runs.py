"""Random sequences of calls on PAMS's objects built by hand, for
test_hand_built_fuzz.py, in an interpreter of their own: `python
hand_built_fuzz_runs.py fuzz OUT FIRST_SEED LAST_SEED STEPS [--package pams]
[--log PATH]` runs one sequence per seed (FIRST_SEED to LAST_SEED included)
of STEPS calls each and writes what it saw as JSON to OUT: the number of
sequences and calls, how many of the calls raised (by exception type), and
every exception whose message holds raw C++ or nanobind text (`raw`: seed,
call and message).

Each sequence builds, from its seed, what PAMS's tests and programs such as
pamsenvs build by hand (Simulators, Markets and IndexMarkets, OrderBooks,
Fundamentals, Sessions, Orders and Cancels, agents and events of the
built-in classes, a SequentialRunner and its steps) and then calls their
public and underscore methods at random, with arguments that are right
most of the time and otherwise anything (None, strings, negative and huge
ints, NaN, infinities, objects of other classes, orders placed before,
canceled or changed after they were made, calls before set-up, missing and
extra arguments). A call that raises is fine: the process must not die (a
segfault, an abort) and the messages must be Python's or ours.

`--package pams` runs the same sequences on PAMS 0.3.0 (to compare by hand:
`--log` writes every call and its outcome, one a line; PAMS's own
fundamentals may take long on the huge steps). The sequences draw only
from their own generator, so a seed is the same sequence on both as long as
the outcomes agree.
"""
import faulthandler
import json
import math
import random
import sys
import warnings

# What only a C++ library or nanobind writes: none of it may reach a user.
RAW_TEXT = (
    "incompatible function arguments", "Invoked with types", "std::", "vector::",
    "_M_range_check", "bad_cast", "bad_alloc", "basic_string", "nanobind", "nb::",
    "Unable to convert", "unable to convert function return value",
    "invalid literal for int() with base 10", "terminate called", "__n (which is",
)

# Seconds a sequence may take (a few milliseconds as a rule): past it, the
# process prints where it is and exits with status 1.
SEQUENCE_TIMEOUT = 120

# A config small enough to set up in a few milliseconds: two markets and an
# index, FCN and arbitrage agents, two sessions, a shock.
SETTING = {
    "simulation": {
        "markets": ["Spot", "Index"],
        "agents": ["FCNAgents", "Arbitrage"],
        "sessions": [
            {"sessionName": 0, "iterationSteps": 3, "withOrderPlacement": True,
             "withOrderExecution": False, "withPrint": False, "maxNormalOrders": 2},
            {"sessionName": 1, "iterationSteps": 5, "withOrderPlacement": True,
             "withOrderExecution": True, "withPrint": False, "maxNormalOrders": 3,
             "maxHighFrequencyOrders": 2, "events": ["Shock"]},
        ],
    },
    "Spot": {"class": "Market", "numMarkets": 2, "tickSize": 0.01, "marketPrice": 300.0,
             "outstandingShares": 100},
    "Index": {"class": "IndexMarket", "tickSize": 0.01, "marketPrice": 300.0,
              "markets": ["Spot-0", "Spot-1"]},
    "FCNAgents": {"class": "FCNAgent", "numAgents": 6, "markets": ["Spot", "Index"],
                  "assetVolume": 50, "cashAmount": 10000, "fundamentalWeight": 1.0,
                  "chartWeight": [0.0, 1.0], "noiseWeight": 1.0, "noiseScale": 0.001,
                  "timeWindowSize": [5, 10], "orderMargin": [0.0, 0.1]},
    "Arbitrage": {"class": "ArbitrageAgent", "numAgents": 2, "markets": ["Index", "Spot"],
                  "assetVolume": 50, "cashAmount": 10000, "orderVolume": 1,
                  "orderThresholdPrice": 0.5},
    "Shock": {"class": "FundamentalPriceShock", "target": "Spot-0", "triggerTime": 1,
              "priceChangeRate": -0.05, "shockTimeLength": 2},
}

FCN_SETTINGS = {"assetVolume": 50, "cashAmount": 10000, "fundamentalWeight": 1.0,
                "chartWeight": 0.5, "noiseWeight": 1.0, "noiseScale": 0.001,
                "timeWindowSize": 5, "orderMargin": 0.05}
SESSION_SETTINGS = {"sessionName": "s", "iterationSteps": 5, "withOrderPlacement": True,
                    "withOrderExecution": True, "withPrint": False, "maxNormalOrders": 2,
                    "maxHighFrequencyOrders": 1, "highFrequencySubmitRate": 0.5}
# Times and ids small enough that no step allocates much: 500 steps.
SMALL_TIMES = (-1, 0, 1, 2, 3, 5, 10, 99, 100, 101, 250, 499)


class Dropped:
    """Marks an argument a call leaves out."""


class World:
    """The objects of one sequence and the calls made on them."""

    def __init__(self, pkg, rng: random.Random, arity: bool = False) -> None:
        self.pkg = pkg
        self.rng = rng
        self.arity = arity
        self.sims = []
        self.markets = []
        self.books = []
        self.fundamentals = []
        self.sessions = []
        self.agents = []
        self.events = []
        self.hooks = []
        self.orders = []
        self.cancels = []
        self.runners = []
        self.logs = []
        self.loggers = [None, pkg.logs.Logger()]

    # --- values

    def pick(self, seq, default=None):
        return self.rng.choice(seq) if seq else default

    def any_object(self):
        pools = [self.sims, self.markets, self.books, self.fundamentals, self.sessions,
                 self.agents, self.events, self.hooks, self.orders, self.cancels,
                 self.runners, self.logs]
        pool = self.pick([p for p in pools if p])
        return self.pick(pool) if pool else object()

    def garbage(self):
        r = self.rng.randrange(30)
        if r < 12:
            return self.rng.choice([
                None, "x", "", -1, 0, 1, -7, 2 ** 31, 2 ** 62, 2 ** 63, -(2 ** 63) - 1,
                10 ** 30, 1.5, -0.5, 0.0, math.nan, math.inf, -math.inf, True, False])
        if r < 18:
            return self.rng.choice([[], [1, 2], {}, {"a": 1}, (0, 1), object(), b"x",
                                    random.Random(3), [None], [[]], range(3), "time"])
        return self.any_object()

    def value(self, good, bad=0.2):
        """good() most of the time, else something else."""
        return self.garbage() if self.rng.random() < bad else good()

    def small_int(self):
        return self.rng.choice([0, 0, 1, 1, 2, 3, -1, 5, 7])

    def time(self):
        return self.rng.choice(SMALL_TIMES)

    def price(self):
        return self.rng.choice([300.0, 299.99, 300.013, 1.0, 0.5, 301, 1e-9, -5.0, 300])

    def market(self):
        return self.pick(self.markets) or self.garbage()

    def session(self):
        return self.pick(self.sessions) or self.garbage()

    def sim(self):
        return self.pick(self.sims) or self.garbage()

    def order(self):
        return self.pick(self.orders) or self.garbage()

    def cancel(self):
        return self.pick(self.cancels) or self.garbage()

    def settings(self, good):
        """A copy of good with a key changed, dropped or added now and then."""
        out = dict(good)
        for _ in range(self.rng.choice([0, 0, 1, 2])):
            key = self.pick(list(out) + ["extra"])
            if self.rng.random() < 0.3:
                out.pop(key, None)
            else:
                out[key] = self.garbage()
        return out if self.rng.random() > 0.05 else self.garbage()

    # --- calls

    def call(self, obj, name, args=(), kwargs=None):
        """(label, thunk, arguments) calling obj.name with args given by
        position or by keyword; with arity set, now and then with one left
        out or one too many (the label then ends in "/arity")."""
        kwargs = dict(kwargs or {})
        args = list(args)
        label = f"{type(obj).__name__}.{name}"
        r = self.rng.random()
        if self.arity and r < 0.04 and (args or kwargs):
            if kwargs:
                kwargs.pop(self.pick(list(kwargs)))
            else:
                args.pop()
            label += "/arity"
        elif self.arity and r < 0.07:
            kwargs["bogus"] = 1
            label += "/arity"
        elif self.arity and r < 0.09:
            args.append(self.garbage())
            label += "/arity"
        elif r < 0.4 and kwargs:
            # The keyword arguments by position, in order.
            args = args + list(kwargs.values())
            kwargs = {}

        def thunk():
            return getattr(obj, name)(*args, **kwargs)

        return label, thunk, (args, kwargs)


def actions(w: World):
    """The calls a sequence picks from: (weight, make) with make() giving
    (label, thunk, arguments) or None when it has nothing to call."""
    pkg = w.pkg
    rng = w.rng
    v = w.value
    out = []

    def action(weight):
        def add(f):
            out.append((weight, f))
            return f
        return add

    # --- makers

    @action(2)
    def new_simulator():
        return "Simulator", lambda: w.sims.append(pkg.Simulator(
            prng=v(lambda: random.Random(rng.randrange(99)), 0.1))), ()

    @action(4)
    def new_market():
        cls = pkg.IndexMarket if rng.random() < 0.25 else pkg.Market
        kwargs = dict(market_id=v(w.small_int, 0.15), prng=v(lambda: random.Random(1), 0.1),
                      simulator=v(w.sim, 0.1), name=v(lambda: f"m{rng.randrange(6)}", 0.1),
                      logger=v(lambda: w.pick(w.loggers), 0.1))
        return cls.__name__, lambda: w.markets.append(cls(**kwargs)), kwargs

    @action(2)
    def new_book():
        is_buy = v(lambda: rng.random() < 0.5, 0.1)
        return "OrderBook", lambda: w.books.append(pkg.OrderBook(is_buy=is_buy)), is_buy

    @action(2)
    def new_fundamentals():
        prng = v(lambda: random.Random(rng.randrange(9)), 0.1)
        return "Fundamentals", lambda: w.fundamentals.append(pkg.Fundamentals(prng=prng)), prng

    @action(2)
    def new_session():
        kwargs = dict(session_id=v(w.small_int, 0.1), prng=v(lambda: random.Random(2), 0.1),
                      session_start_time=v(w.time, 0.1), simulator=v(w.sim, 0.1),
                      name=v(lambda: f"s{rng.randrange(4)}", 0.1))
        return "Session", lambda: w.sessions.append(pkg.Session(**kwargs)), kwargs

    @action(2)
    def new_agent():
        cls = rng.choice([pkg.agents.FCNAgent, pkg.agents.ArbitrageAgent,
                          pkg.agents.MarketMakerAgent, pkg.agents.MarketShareFCNAgent,
                          pkg.agents.TestAgent])
        kwargs = dict(agent_id=v(w.small_int, 0.1), prng=v(lambda: random.Random(4), 0.1),
                      simulator=v(w.sim, 0.1), name=v(lambda: f"a{rng.randrange(6)}", 0.1))
        return cls.__name__, lambda: w.agents.append(cls(**kwargs)), kwargs

    @action(1)
    def new_event():
        cls = rng.choice([pkg.events.FundamentalPriceShock, pkg.events.PriceLimitRule,
                          pkg.events.TradingHaltRule, pkg.events.OrderMistakeShock])
        kwargs = dict(event_id=v(w.small_int, 0.1), prng=v(lambda: random.Random(5), 0.1),
                      session=v(w.session, 0.1), simulator=v(w.sim, 0.1),
                      name=v(lambda: f"e{rng.randrange(4)}", 0.1))
        return cls.__name__, lambda: w.events.append(cls(**kwargs)), kwargs

    @action(1)
    def new_hook():
        kwargs = dict(event=v(lambda: w.pick(w.events) or w.garbage(), 0.1),
                      hook_type=v(lambda: rng.choice(["order", "cancel", "execution",
                                                      "session", "market"]), 0.1),
                      is_before=v(lambda: rng.random() < 0.5, 0.1),
                      time=v(lambda: rng.choice([None, [0, 1], [2]]), 0.1))
        return "EventHook", lambda: w.hooks.append(pkg.events.EventHook(**kwargs)), kwargs

    @action(6)
    def new_order():
        kind = rng.choice([pkg.LIMIT_ORDER, pkg.LIMIT_ORDER, pkg.MARKET_ORDER])
        kwargs = dict(agent_id=v(w.small_int, 0.05), market_id=v(w.small_int, 0.05),
                      is_buy=v(lambda: rng.random() < 0.5, 0.05), kind=kind,
                      volume=v(lambda: rng.randint(1, 5), 0.05),
                      price=v(w.price, 0.05) if kind == pkg.LIMIT_ORDER else None,
                      ttl=v(lambda: rng.choice([None, 1, 3]), 0.05))
        return "Order", lambda: w.orders.append(pkg.Order(**kwargs)), kwargs

    @action(2)
    def new_cancel():
        order = v(w.order, 0.1)
        return "Cancel", lambda: w.cancels.append(pkg.Cancel(order=order)), order

    @action(2)
    def change_order():
        # A field changed after the Order was made (PAMS's objects allow it).
        o = w.pick(w.orders)
        if o is None:
            return None
        field = rng.choice(["ttl", "volume", "price", "market_id", "agent_id", "is_buy",
                            "placed_at", "order_id", "kind", "is_canceled"])
        value = rng.choice([-1, 0, None, 2, w.garbage()])
        return f"Order.{field}=", lambda: setattr(o, field, value), value

    @action(1)
    def new_runner():
        import copy

        settings = copy.deepcopy(SETTING)
        prng = v(lambda: random.Random(rng.randrange(9)), 0.05)

        def make():
            runner = pkg.runners.SequentialRunner(settings=settings, prng=prng)
            w.runners.append(runner)
            w.sims.append(runner.simulator)
        return "SequentialRunner", make, ()

    # --- simulators

    @action(3)
    def sim_add():
        s = w.pick(w.sims)
        if s is None:
            return None
        which = rng.choice(["_add_market", "_add_agent", "_add_session", "_add_event"])
        pool = {"_add_market": w.markets, "_add_agent": w.agents, "_add_session": w.sessions,
                "_add_event": w.hooks}[which]
        arg = v(lambda: w.pick(pool) or w.garbage(), 0.15)
        key = {"_add_market": "market", "_add_agent": "agent", "_add_session": "session",
               "_add_event": "event_hook"}[which]
        kwargs = {key: arg}
        if which in ("_add_market", "_add_agent") and rng.random() < 0.3:
            kwargs["group_name"] = v(lambda: "g", 0.3)
        return w.call(s, which, kwargs=kwargs)

    @action(4)
    def sim_step():
        s = w.pick(w.sims)
        if s is None:
            return None
        which = rng.choice(["_update_times_on_markets", "_update_time_on_market",
                            "_trigger_event_before_step_for_market",
                            "_trigger_event_after_step_for_market",
                            "_trigger_event_before_session", "_trigger_event_after_session",
                            "_trigger_event_before_order", "_trigger_event_after_order",
                            "_trigger_event_before_cancel", "_trigger_event_after_cancel",
                            "_trigger_event_after_execution", "_update_agents_for_execution",
                            "_check_event_class_and_instance"])
        if which == "_update_times_on_markets":
            kwargs = {"markets": v(lambda: list(s.markets) if rng.random() < 0.6
                                   else rng.sample(w.markets, min(len(w.markets), 2)))}
        elif which in ("_update_time_on_market", "_trigger_event_before_step_for_market",
                       "_trigger_event_after_step_for_market"):
            kwargs = {"market": v(w.market)}
        elif which in ("_trigger_event_before_session", "_trigger_event_after_session"):
            kwargs = {"session": v(w.session)}
        elif which == "_trigger_event_before_order":
            kwargs = {"order": v(w.order)}
        elif which == "_trigger_event_before_cancel":
            kwargs = {"cancel": v(w.cancel)}
        elif which == "_trigger_event_after_order":
            kwargs = {"order_log": v(lambda: w.pick(w.logs) or w.garbage())}
        elif which == "_trigger_event_after_cancel":
            kwargs = {"cancel_log": v(lambda: w.pick(w.logs) or w.garbage())}
        elif which == "_trigger_event_after_execution":
            kwargs = {"execution_log": v(lambda: w.pick(w.logs) or w.garbage())}
        elif which == "_update_agents_for_execution":
            kwargs = {"execution_logs": v(lambda: [x for x in w.logs
                                                   if type(x).__name__ == "ExecutionLog"])}
        else:
            kwargs = {"check_object": w.any_object(),
                      "class_requirement": v(lambda: pkg.Market),
                      "instance_requirement": v(w.market)}
        return w.call(s, which, kwargs=kwargs)

    @action(1)
    def sim_attribute():
        s = w.pick(w.sims)
        if s is None:
            return None
        name = rng.choice(["markets", "agents", "sessions", "events", "event_hooks",
                           "events_dict", "id2market", "name2agent", "n_events",
                           "normal_frequency_agents", "high_frequency_agents",
                           "markets_group_name2market", "agents_group_name2agent",
                           "current_session", "fundamentals"])
        if name == "current_session" and rng.random() < 0.5:
            value = v(w.session)
            return "Simulator.current_session=", lambda: setattr(s, name, value), value
        return f"Simulator.{name}", lambda: repr(getattr(s, name)), ()

    # --- markets

    @action(3)
    def market_setup():
        m = w.pick(w.markets)
        if m is None:
            return None
        good = {"tickSize": rng.choice([0.01, 1, 0.5]),
                "marketPrice": rng.choice([300.0, 100, 1.0])}
        if rng.random() < 0.5:
            good["outstandingShares"] = rng.choice([10, 100])
        if isinstance(m, pkg.IndexMarket) and rng.random() < 0.7:
            good["markets"] = [x.name for x in w.markets[:3] if isinstance(x.name, str)]
        return w.call(m, "setup", kwargs={"settings": w.settings(good)})

    @action(10)
    def market_order():
        m = w.pick(w.markets)
        if m is None:
            return None
        which = rng.choice(["_add_order", "_add_order", "_add_order", "_cancel_order",
                            "_execution", "_execution", "_execute_orders", "_update_time",
                            "_update_time", "_set_time", "_update_market_price",
                            "change_fundamental_price", "remain_executable_orders"])
        if which == "_add_order":
            kwargs = {"order": v(w.order, 0.1)}
        elif which == "_cancel_order":
            kwargs = {"cancel": v(w.cancel, 0.1)}
        elif which == "_execute_orders":
            kwargs = {"price": v(w.price), "volume": v(lambda: rng.randint(0, 3)),
                      "buy_order": v(w.order), "sell_order": v(w.order)}
        elif which == "_update_time":
            kwargs = {"next_fundamental_price": v(w.price, 0.1)}
        elif which == "_set_time":
            kwargs = {"time": v(w.time), "next_fundamental_price": v(w.price, 0.1)}
        elif which == "change_fundamental_price":
            kwargs = {"scale": v(lambda: rng.choice([1.1, 0.9]))}
        else:
            kwargs = {}

        def keep(result):
            if isinstance(result, list):
                w.logs.extend(result)
            elif result is not None:
                w.logs.append(result)
        label, thunk, args = w.call(m, which, kwargs=kwargs)
        return label, lambda: keep(thunk()), args

    @action(5)
    def market_read():
        m = w.pick(w.markets)
        if m is None:
            return None
        one = ["get_market_price", "get_mid_price", "get_last_executed_price",
               "get_fundamental_price", "get_executed_volume", "get_executed_total_price",
               "get_n_buy_order", "get_n_sell_order", "get_vwap"]
        many = ["get_market_prices", "get_mid_prices", "get_last_executed_prices",
                "get_fundamental_prices", "get_executed_volumes", "get_executed_total_prices",
                "get_n_buy_orders", "get_n_sell_orders"]
        other = ["get_time", "get_best_buy_price", "get_best_sell_price",
                 "get_buy_order_book", "get_sell_order_book", "convert_to_tick_level",
                 "convert_to_price", "convert_to_tick_level_rounded_lower",
                 "convert_to_tick_level_rounded_upper", "_extract_data_by_time",
                 "_extract_sequential_data_by_time", "__repr__"]
        index = ["get_fundamental_index", "get_market_index", "get_index",
                 "compute_fundamental_index", "compute_market_index",
                 "is_all_markets_running", "get_components"]
        names = one + many + other + (index if isinstance(m, pkg.IndexMarket) else [])
        which = rng.choice(names)
        if which in one or which in index[:5]:
            kwargs = {"time": v(w.time)} if rng.random() < 0.7 else {}
        elif which in many:
            kwargs = {"times": v(lambda: rng.choice([None, range(2), [0, -1], [1, 5]]))}
        elif which == "convert_to_tick_level":
            kwargs = {"price": v(w.price), "is_buy": v(lambda: rng.random() < 0.5)}
        elif which == "convert_to_price":
            kwargs = {"tick_level": v(lambda: rng.randint(-5, 30000))}
        elif which.startswith("convert"):
            kwargs = {"price": v(w.price)}
        elif which == "_extract_data_by_time":
            kwargs = {"time": v(w.time), "parameters": v(lambda: [1, None, 2.0])}
        elif which == "_extract_sequential_data_by_time":
            kwargs = {"times": v(lambda: [0, 1]), "parameters": v(lambda: [1, None, 2.0])}
        else:
            kwargs = {}
        return w.call(m, which, kwargs=kwargs)

    @action(3)
    def market_attribute():
        m = w.pick(w.markets)
        if m is None:
            return None
        name = rng.choice(["time", "_is_running", "tick_size", "outstanding_shares",
                           "logger", "_prng", "simulator", "chunk_size", "name",
                           "market_id", "_market_prices", "_executed_volumes",
                           "_fundamental_prices", "buy_order_book", "sell_order_book",
                           "is_running", "_next_order_id"])
        if rng.random() < 0.5:
            return f"{type(m).__name__}.{name}", lambda: repr(getattr(m, name)), ()
        good = {"time": w.time, "_is_running": lambda: rng.random() < 0.5,
                "tick_size": lambda: rng.choice([0.01, 1, 0.5]),
                "outstanding_shares": lambda: rng.choice([None, 10, 100]),
                "logger": lambda: w.pick(w.loggers), "_prng": lambda: random.Random(6),
                }.get(name, w.garbage)
        value = v(good)
        return f"{type(m).__name__}.{name}=", lambda: setattr(m, name, value), value

    @action(2)
    def index_add():
        m = w.pick([x for x in w.markets if isinstance(x, pkg.IndexMarket)])
        if m is None:
            return None
        if rng.random() < 0.5:
            return w.call(m, "_add_market", kwargs={"market": v(w.market)})
        return w.call(m, "_add_markets", kwargs={"markets": v(
            lambda: rng.sample(w.markets, min(2, len(w.markets))))})

    # --- order books

    @action(5)
    def book_call():
        pool = w.books + [getattr(m, rng.choice(["buy_order_book", "sell_order_book"]), None)
                          for m in w.markets[:2]]
        b = w.pick([x for x in pool if x is not None])
        if b is None:
            return None
        which = rng.choice(["add", "add", "cancel", "_remove", "change_order_volume",
                            "get_best_order", "get_best_price", "get_price_volume",
                            "_set_time", "_update_time", "__len__", "time", "__repr__"])
        if which == "time":
            return "OrderBook.time", lambda: b.time, ()
        kwargs = {"add": {"order": v(w.order)}, "_remove": {"order": v(w.order)},
                  "cancel": {"cancel": v(w.cancel)},
                  "change_order_volume": {"order": v(w.order),
                                          "delta": v(lambda: rng.randint(-3, 2))},
                  "_set_time": {"time": v(w.time)}}.get(which, {})
        return w.call(b, which, kwargs=kwargs)

    # --- fundamentals

    @action(5)
    def fundamentals_call():
        pool = w.fundamentals + [s.fundamentals for s in w.sims[:2]]
        f = w.pick(pool)
        if f is None:
            return None
        ids = lambda: rng.choice([0, 1, 2, 3])  # noqa: E731
        which = rng.choice(["add_market", "add_market", "remove_market", "change_volatility",
                            "change_drift", "set_correlation", "remove_correlation",
                            "get_fundamental_price", "get_fundamental_price",
                            "get_fundamental_prices", "_generate_next", "attribute",
                            "assign"])
        if which == "add_market":
            kwargs = {"market_id": v(ids), "initial": v(lambda: rng.choice([300.0, 100])),
                      "drift": v(lambda: rng.choice([0.0, 0.01])),
                      "volatility": v(lambda: rng.choice([0.0, 0.01, 0.1]))}
            if rng.random() < 0.5:
                kwargs["start_at"] = v(lambda: rng.choice([0, 3, 150]))
        elif which == "remove_market":
            kwargs = {"market_id": v(ids)}
        elif which == "change_volatility":
            kwargs = {"market_id": v(ids), "volatility": v(lambda: rng.choice([0.0, 0.2])),
                      "time": v(lambda: rng.choice([0, 5, 100]))}
        elif which == "change_drift":
            kwargs = {"market_id": v(ids), "drift": v(lambda: rng.choice([0.0, 0.1])),
                      "time": v(lambda: rng.choice([0, 5, 100]))}
        elif which in ("set_correlation", "remove_correlation"):
            kwargs = {"market_id1": v(ids), "market_id2": v(ids),
                      "time": v(lambda: rng.choice([0, 5]))}
            if which == "set_correlation":
                kwargs["corr"] = v(lambda: rng.choice([0.3, -0.5, 0.99]))
        elif which == "get_fundamental_price":
            kwargs = {"market_id": v(ids), "time": v(w.time)}
        elif which == "get_fundamental_prices":
            kwargs = {"market_id": v(ids), "times": v(lambda: rng.choice(
                [range(3), [0, 5, 2], [], [-1], [300]]))}
        elif which == "attribute":
            name = rng.choice(["prices", "drifts", "volatilities", "initials", "start_at",
                               "market_ids", "correlation", "_generated_until", "_prng",
                               "_generate_chunk_size"])
            return f"Fundamentals.{name}", lambda: repr(getattr(f, name)), ()
        elif which == "assign":
            return fundamentals_assign(f)
        else:
            kwargs = {}
        return w.call(f, which, kwargs=kwargs)

    def fundamentals_assign(f):
        name = rng.choice(["prices", "drifts", "volatilities", "initials", "start_at",
                           "correlation", "_generated_until", "market_ids"])
        key = rng.choice([0, 1, (0, 1), "x", 7])
        value = v(lambda: rng.choice([1.0, 0.5, 3, [1.0, 2.0], 0.2]))

        def assign():
            container = getattr(f, name)
            if name == "_generated_until":
                f._generated_until = v(lambda: rng.choice([0, 1]))
            elif name == "market_ids":
                container.append(key)
            elif name == "prices" and rng.random() < 0.5 and key in container:
                container[key][rng.choice([0, -1, 5])] = value
            elif rng.random() < 0.2:
                del container[key]
            else:
                container[key] = value
        return f"Fundamentals.{name}[]=", assign, (key, value)

    # --- sessions, agents, events

    @action(2)
    def session_call():
        s = w.pick(w.sessions)
        if s is None:
            return None
        if rng.random() < 0.5:
            settings = w.settings(SESSION_SETTINGS)
            steps = settings.get("iterationSteps") if isinstance(settings, dict) else None
            if isinstance(steps, int) and steps > 1000:
                settings["iterationSteps"] = 1000  # a long session is a long run, not a fault
            return w.call(s, "setup", kwargs={"settings": settings})
        name = rng.choice(["iteration_steps", "max_normal_orders", "max_high_frequency_orders",
                           "with_order_placement", "with_order_execution", "with_print",
                           "high_frequency_submission_rate"])
        value = v(lambda: rng.choice([1, 2, True, 0.5]))
        if name == "iteration_steps" and isinstance(value, int) and value > 1000:
            value = 1000  # a session of 2**62 steps is a run that long, not a fault
        return f"Session.{name}=", lambda: setattr(s, name, value), value

    @action(4)
    def agent_call():
        a = w.pick(w.agents)
        if a is None:
            return None
        which = rng.choice(["setup", "setup", "submit_orders", "submit_orders",
                            "get_asset_volume", "set_asset_volume", "update_asset_volume",
                            "set_cash_amount", "update_cash_amount", "is_market_accessible",
                            "set_market_accessible", "submitted_order", "executed_order",
                            "canceled_order", "cash_amount="])
        ids = lambda: rng.choice([0, 1, 2])  # noqa: E731
        if which == "setup":
            good = dict(FCN_SETTINGS)
            if isinstance(a, pkg.agents.ArbitrageAgent):
                good = {"assetVolume": 5, "cashAmount": 100, "orderVolume": 2,
                        "orderThresholdPrice": 0.1}
            elif isinstance(a, pkg.agents.MarketMakerAgent):
                good = {"assetVolume": 5, "cashAmount": 100, "targetMarkets": ["m0"],
                        "netInterestSpread": 0.02, "orderTimeLength": 2}
            kwargs = {"settings": w.settings(good),
                      "accessible_markets_ids": v(lambda: rng.sample([0, 1, 2], 2))}
        elif which == "submit_orders":
            kwargs = {"markets": v(lambda: list(w.markets[:3]))}
        elif which in ("get_asset_volume", "is_market_accessible", "set_market_accessible"):
            kwargs = {"market_id": v(ids)}
        elif which in ("set_asset_volume", "update_asset_volume"):
            kwargs = {"market_id": v(ids), ("volume" if which[0] == "s" else "delta"):
                      v(lambda: rng.randint(-3, 9))}
        elif which in ("set_cash_amount", "update_cash_amount"):
            kwargs = {("cash_amount" if which[0] == "s" else "delta"): v(lambda: 10.0)}
        elif which == "cash_amount=":
            value = v(lambda: 5.0)
            return "Agent.cash_amount=", lambda: setattr(a, "cash_amount", value), value
        else:
            kwargs = {"log": v(lambda: w.pick(w.logs) or w.garbage())}

        def keep(result):
            if isinstance(result, list):
                w.orders.extend(x for x in result if isinstance(x, pkg.Order))
                w.cancels.extend(x for x in result if isinstance(x, pkg.Cancel))
        label, thunk, args = w.call(a, which, kwargs=kwargs)
        return label, lambda: keep(thunk()), args

    @action(2)
    def event_call():
        e = w.pick(w.events)
        if e is None:
            return None
        which = rng.choice(["setup", "hook_registration", "hooked_before_order",
                            "hooked_after_execution", "hooked_before_step_for_market",
                            "hooked_after_step_for_market", "hooked_before_session"])
        if which == "setup":
            good = {"target": "m0", "targetMarkets": ["m0"], "triggerTime": 1,
                    "priceChangeRate": -0.1, "shockTimeLength": 2, "triggerChangeRate": 0.05,
                    "haltingTimeLength": 2, "orderVolume": 10, "orderTimeLength": 2}
            kwargs = {"settings": w.settings(good)}
        elif which == "hook_registration":
            kwargs = {}
        else:
            arg = {"hooked_before_order": ("order", w.order),
                   "hooked_after_execution": ("execution_log",
                                              lambda: w.pick(w.logs) or w.garbage()),
                   "hooked_before_session": ("session", w.session)}.get(
                which, ("market", w.market))
            kwargs = {"simulator": v(w.sim), arg[0]: v(arg[1])}
        return w.call(e, which, kwargs=kwargs)

    # --- a runner's steps

    @action(5)
    def runner_step():
        r = w.pick(w.runners)
        if r is None:
            return None
        which = rng.choice(["_setup", "_collect_orders_from_normal_agents", "_handle_orders",
                            "_handle_orders", "_handle_high_frequency_orders", "_process_order",
                            "_update_markets", "_iterate_market_updates", "_generate_markets",
                            "_generate_agents", "_generate_sessions",
                            "_set_fundamental_correlation", "_pending_setups", "time"])
        sessions = list(r.simulator.sessions) + w.sessions[:1]
        session = lambda: w.pick(sessions) or w.garbage()  # noqa: E731
        if which == "time":
            return "Simulator._update_times_on_markets", lambda: \
                r.simulator._update_times_on_markets(r.simulator.markets), ()
        if which == "_pending_setups":
            def run_setups():
                for func, kwargs in r._pending_setups:
                    func(**kwargs)
            return "SequentialRunner._pending_setups()", run_setups, ()
        if which in ("_collect_orders_from_normal_agents", "_handle_high_frequency_orders",
                     "_update_markets", "_iterate_market_updates"):
            kwargs = {"session": v(session, 0.15)}
        elif which == "_handle_orders":
            def lists():
                if rng.random() < 0.5:
                    try:
                        return r._collect_orders_from_normal_agents(session=w.pick(sessions))
                    except Exception:  # noqa: BLE001  (a step that fails: other lists)
                        pass
                return [rng.sample(w.orders, min(len(w.orders), 2)) for _ in range(2)]
            kwargs = {"session": v(session, 0.1), "local_orders": v(lists, 0.15)}
        elif which == "_process_order":
            kwargs = {"session": v(session, 0.1),
                      "order": v(lambda: w.pick(w.orders + w.cancels) or w.garbage())}
        elif which == "_generate_markets":
            kwargs = {"market_type_names": v(lambda: ["Spot"])}
        elif which == "_generate_agents":
            kwargs = {"agent_type_names": v(lambda: ["FCNAgents"])}
        else:
            kwargs = {}
        return w.call(r, which, kwargs=kwargs)

    return out


def safe_repr(value) -> str:
    """repr for the log (an agent's repr reads what its setup sets)."""
    try:
        return f"{value!r:.300}".replace("\n", "\\n")
    except Exception as e:  # noqa: BLE001
        return f"<repr raised {type(e).__name__}>"


def raw_text(message: str) -> bool:
    return any(text in message for text in RAW_TEXT)


def run_sequence(pkg, seed: int, steps: int, report: dict, log, arity: bool) -> None:
    rng = random.Random(seed)
    w = World(pkg, rng, arity)
    table = actions(w)
    weights = [weight for weight, _ in table]
    makers = [make for _, make in table]
    # A few objects to start from, made by the sequence's own first calls.
    by_name = {m.__name__: m for m in makers}
    start = [by_name[name] for name in ("new_simulator", "new_market", "new_market",
                                        "new_order", "new_order", "new_session")]
    for step in range(steps):
        make = start[step] if step < len(start) else rng.choices(makers, weights)[0]
        made = make()
        if made is None:
            continue
        label, thunk, args = made
        report["calls"] += 1
        if log is not None:
            log.write(f"{seed} {step} {label} {safe_repr(args)}")
            log.flush()
        try:
            thunk()
            outcome = "ok"
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # noqa: BLE001  (every exception is looked at)
            name = type(e).__name__
            report["raised"][name] = report["raised"].get(name, 0) + 1
            try:
                message = str(e)
            except Exception as inner:  # noqa: BLE001  (a KeyError of an object whose repr raises)
                message = f"<str() raised {type(inner).__name__}>"
            outcome = f"{name}: {message[:200]}".replace("\n", "\\n")
            if raw_text(message) or raw_text(name):
                report["raw"].append({"seed": seed, "step": step, "call": label,
                                      "error": name, "message": message[:2000]})
        if log is not None:
            log.write(f" -> {outcome}\n")


def main(argv) -> int:
    faulthandler.enable()
    mode, out = argv[1], argv[2]
    if mode != "fuzz":
        raise SystemExit(f"unknown mode {mode}")
    first, last, steps = int(argv[3]), int(argv[4]), int(argv[5])
    rest = argv[6:]
    package = rest[rest.index("--package") + 1] if "--package" in rest else "pams_cpp"
    log_path = rest[rest.index("--log") + 1] if "--log" in rest else None
    pkg = __import__(package)
    import_submodules(pkg)
    report = {"sequences": 0, "calls": 0, "raised": {}, "raw": []}
    log = open(log_path, "w") if log_path else None  # noqa: SIM115
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(first, last + 1):
            # On a crash, the last seed printed is the one to replay (--log).
            print(f"seed {seed}", file=sys.stderr, flush=True)
            # A sequence that hangs is a failure too: the traceback, and exit.
            faulthandler.dump_traceback_later(SEQUENCE_TIMEOUT, exit=True)
            run_sequence(pkg, seed, steps, report, log, "--arity" in rest)
            faulthandler.cancel_dump_traceback_later()
            report["sequences"] += 1
    if log is not None:
        log.close()
    with open(out, "w") as f:
        json.dump(report, f, indent=1)
    return 0


def import_submodules(pkg) -> None:
    import importlib

    for name in ("agents", "events", "logs", "runners"):
        importlib.import_module(f"{pkg.__name__}.{name}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
