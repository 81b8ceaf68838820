"""Python classes of users, defined once for PAMS and once for pams_cpp from
the same source (define(pkg) with pkg the pams or the pams_cpp module), so
that the differential tests run the very same user code on both.

UserDefinedFCNAgent, CancelFCNAgent, InvestDivFCNAgent and ExtendedMarket
behave as the user classes of PAMS's samples (user_class, cancel_test,
invest_div, market_share),
written here anew; KeeperAgent and QuoterAgent are ours: agents with state
that keep their orders and cancel them later (also in the same result),
read the markets' histories and draw with every kind of random.Random call.
"""
import importlib


def define_loggers(pkg):
    """Loggers of users: one that records every log of every kind with every
    field (and what the market and session say at each step), one that
    overrides only process_market_step_end_log, one that overrides process."""
    base = importlib.import_module(pkg.__name__ + ".logs.base")

    def fields(log):
        out = []
        for key, value in sorted(vars(log).items()):
            if key == "kind":
                value = value.kind_id
            elif key == "simulator":
                value = (len(value.markets), len(value.agents))
            elif key == "session":
                value = (value.session_id, value.name, value.iteration_steps)
            elif key == "market":
                value = (value.market_id, value.name, value.get_time(), value.get_market_price(),
                         value.get_mid_price(), value.get_executed_volume())
            out.append((key, value))
        return (type(log).__name__, out)

    class RecordingLogger(base.Logger):
        def __init__(self):
            super().__init__()
            self.records = []

        def process_order_log(self, log):
            self.records.append(fields(log))

        def process_cancel_log(self, log):
            self.records.append(fields(log))

        def process_expiration_log(self, log):
            self.records.append(fields(log))

        def process_execution_log(self, log):
            self.records.append(fields(log))

        def process_simulation_begin_log(self, log):
            self.records.append(fields(log))

        def process_simulation_end_log(self, log):
            self.records.append(fields(log))

        def process_session_begin_log(self, log):
            self.records.append(fields(log))

        def process_session_end_log(self, log):
            self.records.append(fields(log))

        def process_market_step_begin_log(self, log):
            self.records.append(fields(log))

        def process_market_step_end_log(self, log):
            self.records.append(fields(log))

    class StepEndLogger(base.Logger):
        def __init__(self):
            super().__init__()
            self.records = []

        def process_market_step_end_log(self, log):
            self.records.append(fields(log))

    class ProcessLogger(base.Logger):
        def __init__(self):
            super().__init__()
            self.records = []

        def process(self, logs):
            self.records.append([fields(log) for log in logs])

    class DirectWriteLogger(StepEndLogger):
        """Overrides how market step logs are handed over: the engine must
        call write_and_direct_process, not the process method at once."""

        def write_and_direct_process(self, log):
            self.records.append(("write_and_direct_process", type(log).__name__,
                                 log.session is self.__dict__.setdefault("session", log.session)))
            super().write_and_direct_process(log)

    return {cls.__name__: cls
            for cls in (RecordingLogger, StepEndLogger, ProcessLogger, DirectWriteLogger)}


def define_events(pkg):
    """Events of users: one that changes some orders before they are
    processed, one that records what every hook it registers is given."""
    events = importlib.import_module(pkg.__name__ + ".events")
    order_module = importlib.import_module(pkg.__name__ + ".order")
    EventABC, EventHook = events.EventABC, events.EventHook
    LIMIT_ORDER = order_module.LIMIT_ORDER

    class PriceNudge(EventABC):
        def setup(self, settings, *args, **kwargs):
            self.rate = float(settings.get("rate", 0.1))
            self.start = self.session.session_start_time
            self.nudged = 0

        def hook_registration(self):
            return [EventHook(event=self, hook_type="order", is_before=True)]

        def hooked_before_order(self, simulator, order):
            if order.kind == LIMIT_ORDER and self.prng.random() < self.rate:
                order.price = order.price * (1.001 if order.is_buy else 0.999)
                order.volume += 1
                self.nudged += 1

        def state(self):
            return (self.rate, self.start, self.nudged)

    class Recorder(EventABC):
        def setup(self, settings, *args, **kwargs):
            self.every = int(settings["every"])
            self.seen = []

        def hook_registration(self):
            first = self.simulator.markets[0]
            times = list(range(self.session.session_start_time, 700, self.every))
            return [
                EventHook(event=self, hook_type="session", is_before=True),
                EventHook(event=self, hook_type="session", is_before=False),
                EventHook(event=self, hook_type="market", is_before=True, time=times,
                          specific_instance=first),
                EventHook(event=self, hook_type="market", is_before=False, time=times),
                EventHook(event=self, hook_type="order", is_before=False, time=times),
                EventHook(event=self, hook_type="cancel", is_before=True),
                EventHook(event=self, hook_type="cancel", is_before=False),
                EventHook(event=self, hook_type="execution", is_before=False, time=times),
            ]

        def hooked_before_session(self, simulator, session):
            self.seen.append(("before_session", session.session_id, len(simulator.markets)))

        def hooked_after_session(self, simulator, session):
            self.seen.append(("after_session", session.session_id))

        def hooked_before_step_for_market(self, simulator, market):
            self.seen.append(("before_step", market.market_id, market.get_time(),
                              market.get_market_price()))

        def hooked_after_step_for_market(self, simulator, market):
            self.seen.append(("after_step", market.market_id, market.get_time(),
                              market.get_market_price(), market.get_executed_volume()))

        def hooked_after_order(self, simulator, order_log):
            self.seen.append(("after_order", order_log.order_id, order_log.price,
                              order_log.volume, order_log.agent_id))

        def hooked_before_cancel(self, simulator, cancel):
            self.seen.append(("before_cancel", cancel.order.order_id, cancel.order.volume))

        def hooked_after_cancel(self, simulator, cancel_log):
            self.seen.append(("after_cancel", cancel_log.order_id, cancel_log.volume))

        def hooked_after_execution(self, simulator, execution_log):
            self.seen.append(("execution", execution_log.buy_order_id,
                              execution_log.sell_order_id, execution_log.price,
                              execution_log.volume))

        def state(self):
            return (self.every, self.seen)

    class LoggedShock(events.FundamentalPriceShock):
        """Records the fundamental price around the built-in shock."""

        def setup(self, settings, *args, **kwargs):
            super().setup(settings=settings)
            self.seen = [("setup", self.target_market.name, self.trigger_time,
                          self.price_change_rate, self.is_enabled, self.shock_time_length)]

        def hooked_before_step_for_market(self, simulator, market):
            before = market.get_fundamental_price()
            super().hooked_before_step_for_market(simulator=simulator, market=market)
            if market.get_fundamental_price() != before:
                self.seen.append(("shock", market.get_time(), before,
                                  market.get_fundamental_price()))

        def state(self):
            return self.seen

    class CountingLimit(events.PriceLimitRule):
        """The built-in rule, its hooks as PAMS's EventHooks, and what it
        changes, also for orders this class nudges first."""

        def hook_registration(self):
            hooks = super().hook_registration()
            self.hooks = [(h.hook_type, h.is_before, h.time, h.event is self) for h in hooks]
            return hooks

        def hooked_before_order(self, simulator, order):
            if order.kind == LIMIT_ORDER and order.volume == 1 and order.is_buy:
                order.price = order.price * 1.08
            before = order.price
            super().hooked_before_order(simulator, order)
            if order.price != before:
                self.moved = getattr(self, "moved", []) + [(order.agent_id, before, order.price)]

        def state(self):
            return (self.hooks, getattr(self, "moved", []), sorted(self.target_markets),
                    self.trigger_change_rate)

    class NoisyHalt(events.TradingHaltRule):
        """Records when the built-in rule halts and resumes."""

        def hooked_after_execution(self, simulator, execution_log):
            was = self.is_halting
            super().hooked_after_execution(simulator, execution_log)
            if self.is_halting != was:
                self.seen = getattr(self, "seen", []) + [
                    ("halt", execution_log.time, execution_log.price,
                     [m.name for m in self.halted_markets])]

        def hooked_before_step_for_market(self, simulator, market):
            was = self.is_halting
            super().hooked_before_step_for_market(simulator, market)
            if self.is_halting != was:
                self.seen = getattr(self, "seen", []) + [("resume", market.get_time())]

        def state(self):
            return getattr(self, "seen", [])

    return {cls.__name__: cls for cls in (PriceNudge, Recorder, LoggedShock, CountingLimit,
                                          NoisyHalt)}


def define(pkg):
    agents = importlib.import_module(pkg.__name__ + ".agents")
    order_module = importlib.import_module(pkg.__name__ + ".order")
    json_random = importlib.import_module(pkg.__name__ + ".utils.json_random")
    Agent = agents.Agent
    FCNAgent = agents.FCNAgent
    HighFrequencyAgent = agents.HighFrequencyAgent
    Order, Cancel = order_module.Order, order_module.Cancel
    LIMIT_ORDER, MARKET_ORDER = order_module.LIMIT_ORDER, order_module.MARKET_ORDER
    JsonRandom = json_random.JsonRandom

    class UserDefinedFCNAgent(FCNAgent):
        pass

    class CancelFCNAgent(FCNAgent):
        def setup(self, settings, accessible_markets_ids, *args, **kwargs):
            super().setup(settings=settings, accessible_markets_ids=accessible_markets_ids)
            self.cancel_rate = (JsonRandom(prng=self.prng).random(settings["cancelRate"])
                                if "cancelRate" in settings else 0.3)

        def submit_orders_by_market(self, market):
            orders = super().submit_orders_by_market(market=market)
            cancels = [Cancel(order=o) for o in orders
                       if isinstance(o, Order) and self.prng.random() < self.cancel_rate]
            return orders + cancels

    class InvestDivFCNAgent(FCNAgent):
        def __init__(self, agent_id, prng, simulator, name, logger=None):
            super().__init__(agent_id=agent_id, prng=prng, simulator=simulator, name=name,
                             logger=logger)
            self.leverage_ratio = 1.0
            self.diversity_ratio = 1.0

        def setup(self, settings, accessible_markets_ids, *args, **kwargs):
            super().setup(settings, accessible_markets_ids, *args, **kwargs)
            self.leverage_ratio = float(settings["leverageRatio"])
            self.diversity_ratio = float(settings["diversityRatio"])

        def value(self, market):
            return market.get_market_price() * self.get_asset_volume(market_id=market.market_id)

        def submit_orders(self, markets):
            mine = [m for m in markets if self.is_market_accessible(market_id=m.market_id)]
            net = self.get_cash_amount() + sum(self.value(m) for m in mine)
            if sum(abs(self.value(m)) for m in mine) > self.leverage_ratio * net:
                return []
            by_id = {m.market_id: m for m in mine}
            out = []
            for order in super().submit_orders(markets=mine):
                market = by_id[order.market_id]
                if abs(self.value(market)) <= self.diversity_ratio * net:
                    out.append(order)
                elif self.get_asset_volume(market_id=market.market_id) != 0:
                    out.append(Order(agent_id=self.agent_id, market_id=market.market_id,
                                     is_buy=self.get_asset_volume(market.market_id) < 0,
                                     kind=MARKET_ORDER, volume=1, ttl=10))
            return out

    class KeeperAgent(Agent):
        """Keeps its orders, cancels those older than maxAge, records every
        callback with every field."""

        def setup(self, settings, accessible_markets_ids, *args, **kwargs):
            super().setup(settings, accessible_markets_ids)
            self.max_age = int(settings.get("maxAge", 5))
            self.spread = JsonRandom(prng=self.prng).random(settings.get("spread", [0.001, 0.01]))
            self.kept = []
            self.history = []
            self.n_calls = 0

        def submit_orders(self, markets):
            self.n_calls += 1
            mine = [m for m in markets if self.is_market_accessible(m.market_id)]
            market = self.prng.choice(mine)
            t = market.get_time()
            actions = []
            open_orders = []
            for o in self.kept:
                if o.volume > 0 and not o.is_canceled:
                    if t - o.placed_at >= self.max_age:
                        actions.append(Cancel(order=o))
                    else:
                        open_orders.append(o)
            self.kept = open_orders
            prices = market.get_market_prices(times=list(range(max(0, t - 5), t + 1)))
            reference = sum(prices) / len(prices)
            self.history.append(("look", t, market.get_mid_price(), market.get_vwap(),
                                 market.get_best_buy_price(), market.get_best_sell_price(),
                                 market.get_executed_volume(), market.get_fundamental_price(),
                                 self.get_cash_amount(), dict(self.asset_volumes)))
            is_buy = self.prng.random() < 0.5
            volume = self.prng.randint(1, 3)
            if self.prng.random() < 0.1:
                order = Order(agent_id=self.agent_id, market_id=market.market_id,
                              is_buy=is_buy, kind=MARKET_ORDER, volume=volume)
            else:
                shift = self.prng.gauss(0.0, 0.5) + self.prng.uniform(-0.1, 0.1)
                price = reference * (1 - self.spread if is_buy else 1 + self.spread) + shift
                order = Order(agent_id=self.agent_id, market_id=market.market_id,
                              is_buy=is_buy, kind=LIMIT_ORDER, volume=volume, price=price,
                              ttl=self.prng.choice([None, 3, 10]))
            actions.append(order)
            self.kept.append(order)
            if self.prng.random() < 0.05:
                actions.append(Cancel(order=order))  # cancels it at once
            deck = list(range(6))
            self.prng.shuffle(deck)
            self.history.append(("draw", deck, self.prng.sample(range(100), 2),
                                 self.prng.getrandbits(70), self.prng.expovariate(2.0)))
            return actions

        def submitted_order(self, log):
            self.history.append(("submitted", log.order_id, log.market_id, log.time,
                                 log.agent_id, log.is_buy, log.kind.kind_id, log.volume,
                                 log.price, log.ttl))

        def executed_order(self, log):
            self.history.append(("executed", log.market_id, log.time, log.buy_agent_id,
                                 log.sell_agent_id, log.buy_order_id, log.sell_order_id,
                                 log.price, log.volume))

        def canceled_order(self, log):
            self.history.append(("canceled", log.order_id, log.market_id, log.cancel_time,
                                 log.order_time, log.agent_id, log.is_buy, log.kind.kind_id,
                                 log.volume, log.price, log.ttl))

        def state(self):
            return (self.n_calls, self.max_age, self.spread, self.history,
                    [(o.order_id, o.placed_at, o.volume, o.price, o.ttl, o.is_canceled,
                      o.is_buy, o.kind.kind_id) for o in self.kept])

    class QuoterAgent(HighFrequencyAgent):
        """A high-frequency agent quoting around the mid price, canceling its
        previous quote each time."""

        def setup(self, settings, accessible_markets_ids, *args, **kwargs):
            super().setup(settings, accessible_markets_ids)
            self.last = None
            self.quotes = 0

        def submit_orders(self, markets):
            market = markets[0]
            mid = market.get_mid_price()
            if mid is None:
                return []
            actions = []
            if self.last is not None and self.last.volume > 0 and not self.last.is_canceled:
                actions.append(Cancel(order=self.last))
            is_buy = self.prng.random() < 0.5
            self.last = Order(agent_id=self.agent_id, market_id=market.market_id, is_buy=is_buy,
                              kind=LIMIT_ORDER, volume=1,
                              price=mid * (0.999 if is_buy else 1.001))
            self.quotes += 1
            actions.append(self.last)
            return actions

        def state(self):
            last = self.last
            return (self.quotes, None if last is None else
                    (last.order_id, last.placed_at, last.volume, last.price, last.is_canceled))

    class ExtendedMarket(pkg.Market):
        """PAMS's market_share sample: tradeVolume presets the executed volume
        of step 0, so that MarketShareFCNAgents start with those shares."""

        def setup(self, settings, *args, **kwargs):
            super(ExtendedMarket, self).setup(settings, *args, **kwargs)
            if "tradeVolume" in settings:
                if not isinstance(settings["tradeVolume"], int):
                    raise ValueError("tradeVolume must be int")
                self._executed_volumes = [int(settings["tradeVolume"])]

    return {cls.__name__: cls for cls in (UserDefinedFCNAgent, CancelFCNAgent,
                                          InvestDivFCNAgent, KeeperAgent, QuoterAgent,
                                          ExtendedMarket)}
