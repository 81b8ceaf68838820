"""What a program assigns or changes on PAMS's objects after they were made
(PAMS's plain attributes: generators, volumes, loggers, lists, fields),
done the same way on PAMS 0.3.0 and on pams_cpp: each assignment takes
effect as in PAMS (the same results, bit for bit), or pams_cpp refuses it
with an error naming the attribute and what to do instead. Nothing is
silently ignored. docs/python.md's "Assigning attributes" lists them.
"""
import copy
import json
import os
import pickle
import random
import subprocess
import sys
import warnings

import pams
import pytest

import pams_cpp
import user_classes
from conftest import ROOT

CLASSES = {pams: user_classes.define(pams), pams_cpp: user_classes.define(pams_cpp)}


def ci2002(steps=40, **groups):
    """CI2002 (its second session cut to `steps`) with extra agent groups:
    name -> (class, count, extra keys)."""
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        config = json.load(f)
    config["simulation"]["sessions"][1]["iterationSteps"] = steps
    for name, (cls, count, extra) in groups.items():
        group = copy.deepcopy(config["FCNAgents"])
        group.update({"class": cls, "numAgents": count}, **extra)
        config[name] = group
        config["simulation"]["agents"].append(name)
    return config


def shock_transfer(steps=20):
    """PAMS's shock_transfer sample (markets, an index, arbitrageurs, a
    shock) with a market maker and a trading halt added, cut short."""
    with open(os.path.join(ROOT, "samples/shock_transfer/config.json")) as f:
        config = json.load(f)
    config["simulation"]["sessions"][0]["iterationSteps"] = 5
    config["simulation"]["sessions"][1]["iterationSteps"] = steps
    config["simulation"]["agents"].append("MarketMakers")
    config["MarketMakers"] = {"class": "MarketMakerAgent", "markets": ["SpotMarket-1"],
                              "targetMarket": "SpotMarket-1", "netInterestSpread": 0.02,
                              "orderTimeLength": 3, "assetVolume": 50, "cashAmount": 10000}
    config["simulation"]["sessions"][1]["events"].append("Halt")
    config["Halt"] = {"class": "TradingHaltRule", "targetMarkets": ["SpotMarket-1"],
                      "triggerChangeRate": 0.05, "haltingTimeLength": 1}
    return config


MIXED = ci2002(CancelFCNAgents=("CancelFCNAgent", 20, {"cancelRate": 0.4}),
               KeeperAgents=("KeeperAgent", 5, {"maxAge": 4}))
MIXED["simulation"]["sessions"][1]["maxNormalOrders"] = 3


def set_up(pkg, config, seed=42, runner="SequentialRunner", logger=None):
    """A runner of pkg with the user classes registered, set up (its
    warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner = getattr(pkg.runners, runner)(settings=copy.deepcopy(config),
                                              prng=random.Random(seed), logger=logger)
        for cls in CLASSES[pkg].values():
            runner.class_register(cls)
        runner._setup()
    return runner


def run_with(pkg, change, config=MIXED, seed=42, runner="SequentialRunner"):
    """Sets up a runner of pkg, calls change(pkg, runner), runs it; returns
    the market prices, each agent's cash and volumes, the next draws of the
    runner's and of each agent's generator (values with their types)."""
    saver = pkg.logs.market_step_loggers.MarketStepSaver()
    r = set_up(pkg, config, seed, runner, logger=saver)
    change(pkg, r)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r._run()
    agents = [(a.name, repr(float(a.cash_amount)), dict(a.asset_volumes), a.prng.random())
              for a in r.simulator.agents]
    return ([repr(log["market_price"]) for log in saver.market_step_logs], agents,
            r._prng.random())


def same_on_both(change, config=MIXED, seed=42):
    theirs = run_with(pams, change, config, seed)
    ours = run_with(pams_cpp, change, config, seed)
    assert ours == theirs
    return ours


def raises(f):
    """The built-in type of what f raises, and its message (None: nothing)."""
    try:
        f()
    except Exception as e:  # noqa: BLE001  (the type is what is compared)
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        return builtin.__name__, str(e)
    return None


# ------------------------------------------------------------- generators


class OwnRandom(random.Random):
    """A generator of the program's own class (methods of its own, PAMS's
    draws)."""

    def coin(self):
        return self.random() < 0.5


def each_agent_its_own(pkg, runner):
    for i, agent in enumerate(runner.simulator.agents):
        agent.prng = random.Random(1000 + i)


def one_seed_for_all(pkg, runner):
    # pamsenvs's SimulatorGivenRunner.set_seed: every generator reseeded
    # with new objects of one seed.
    runner._prng = random.Random(5)
    runner.simulator._prng = random.Random(5)
    for agent in runner.simulator.agents:
        agent.prng = random.Random(5)
    for session in runner.simulator.sessions:
        session.prng = random.Random(5)


def of_own_class(pkg, runner):
    for i, agent in enumerate(runner.simulator.agents):
        agent.prng = OwnRandom(i)
    assert all(isinstance(a.prng, OwnRandom) and a.prng.coin() in (True, False)
               for a in runner.simulator.agents)


def replaced_then_old_one_drawn(pkg, runner):
    # The generator replaced goes on by itself: drawing from it changes
    # nothing of the agent's, and seeding the new one does.
    agent = runner.simulator.agents[7]
    old, new = agent.prng, random.Random(3)
    agent.prng = new
    assert agent.prng is new and agent.get_prng() is new
    old.random(), old.gauss(0.0, 1.0)
    new.seed(8)
    runner.simulator.agents[8].prng.seed(9)


def seeded_in_place(pkg, runner):
    for i, agent in enumerate(runner.simulator.agents):
        agent.prng.seed(i)


def taken_from_objects_that_draw_nothing(pkg, runner):
    # A session's and the simulator's generators: nothing else draws from
    # them, so an agent may have them (then they are the agent's stream).
    sim = runner.simulator
    sim.agents[0].prng = sim.sessions[0].prng
    sim.agents[1].prng = sim._prng
    assert sim.agents[0].prng is sim.sessions[0].prng


@pytest.mark.parametrize("change", [each_agent_its_own, one_seed_for_all, of_own_class,
                                    replaced_then_old_one_drawn, seeded_in_place,
                                    taken_from_objects_that_draw_nothing],
                         ids=lambda f: f.__name__)
def test_assigned_generators_draw_as_in_pams(change):
    """Built-in FCNAgents (the engine's code), CancelFCNAgents (Python draws
    between the engine's through super()) and KeeperAgents (Python only)."""
    same_on_both(change)


def test_the_runners_generator_assigned_draws_as_in_pams():
    def plain(pkg, runner):
        old = runner._prng
        runner._prng = random.Random(77)
        old.random()  # the old one goes on by itself

    def own_class(pkg, runner):
        runner._prng = OwnRandom(78)  # copied in and out around each step

    same_on_both(plain)
    same_on_both(own_class)


def test_a_generator_assigned_after_each_step_of_a_hand_driven_loop():
    def scenario(pkg):
        r = set_up(pkg, MIXED, seed=3)
        sim = r.simulator
        sim._update_times_on_markets(sim.markets)
        session = sim.sessions[1]
        for m in sim.markets:
            m._is_running = True
        out = []
        for step in range(15):
            sim.agents[step].prng = random.Random(step)
            if step % 5 == 0:
                r._prng = random.Random(step)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                local = r._collect_orders_from_normal_agents(session=session)
                r._handle_orders(session=session, local_orders=local)
            sim._update_times_on_markets(sim.markets)
            out.append(repr(sim.markets[0].get_market_price()))
        return out + [r._prng.random(), [a.prng.random() for a in sim.agents]]

    assert scenario(pams_cpp) == scenario(pams)


def test_hand_built_agents_draw_from_the_generator_assigned_even_shared():
    # An agent built by hand draws from whatever random.Random it has (as
    # PAMS's): one shared by two agents is one stream.
    def scenario(pkg):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = pkg.Simulator(prng=random.Random(4))
            market = pkg.Market(market_id=0, prng=random.Random(1), simulator=sim, name="m",
                                logger=pkg.logs.Logger())
            market.setup(settings={"tickSize": 0.01, "marketPrice": 300.0})
            sim._add_market(market=market)
            market._update_time(next_fundamental_price=300.0)
            settings = {"assetVolume": 50, "cashAmount": 10000, "fundamentalWeight": 1.0,
                        "chartWeight": 0.0, "noiseWeight": 1.0, "noiseScale": 0.001,
                        "timeWindowSize": 10, "orderMargin": 0.05}
            agents = [pkg.agents.FCNAgent(agent_id=i, prng=random.Random(i), simulator=sim,
                                          name=f"a{i}") for i in range(2)]
            shared = random.Random(9)
            for agent in agents:
                agent.prng = shared
                agent.setup(settings=settings, accessible_markets_ids=[0])
            out = []
            for _ in range(5):
                for agent in agents:
                    out += [(o.price, o.is_buy) for o in agent.submit_orders(markets=[market])]
                    out.append(shared.random())
            return out + [agents[0].prng is shared]

    assert scenario(pams_cpp) == scenario(pams)


def reseeding_class(pkg):
    """A FCNAgent subclass that gives itself a generator of its own seed in
    setup (its Python draws and the built-in code's then come from it)."""
    class ReseedingFCNAgent(pkg.agents.FCNAgent):
        def setup(self, settings, accessible_markets_ids, *args, **kwargs):
            self.prng = random.Random(self.agent_id * 7)
            super().setup(settings=settings, accessible_markets_ids=accessible_markets_ids)
            self.skip = self.prng.random() / 2

        def submit_orders(self, markets):
            if self.prng.random() < self.skip:
                return []
            return super().submit_orders(markets)

    return ReseedingFCNAgent


def test_a_class_assigning_its_generator_in_setup_draws_as_in_pams(capsys):
    config = ci2002(ReseedingFCNAgents=("ReseedingFCNAgent", 20, {}))
    for session in config["simulation"]["sessions"]:
        session["maxNormalOrders"] = 3

    def run(pkg, runner="SequentialRunner", simulation=None):
        c = copy.deepcopy(config)
        c["simulation"].update(simulation or {})
        saver = pkg.logs.market_step_loggers.MarketStepSaver()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(pkg.runners, runner)(settings=c, prng=random.Random(4), logger=saver)
            r.class_register(reseeding_class(pkg))
            r.main()
        return ([repr(log["market_price"]) for log in saver.market_step_logs],
                [a.prng.random() for a in r.simulator.agents])

    ours = run(pams_cpp)
    assert ours == run(pams)
    assert run(pams_cpp, "MultiProcessAgentParallelRunner",
               {"numParallel": 2, "startMethod": "fork",
                "runRoundsWhileWorkersStart": False}) == ours


def test_generators_assigned_reach_the_parallel_runners_workers(capsys):
    config = copy.deepcopy(MIXED)
    for session in config["simulation"]["sessions"]:
        session["maxNormalOrders"] = 4
    config["simulation"].update(numParallel=2, startMethod="fork",
                                runRoundsWhileWorkersStart=False)
    sequential = run_with(pams_cpp, each_agent_its_own, config)
    for runner in ("MultiThreadAgentParallelRunner", "MultiProcessAgentParallelRunner"):
        assert run_with(pams_cpp, each_agent_its_own, config, runner=runner) == sequential
    assert run_with(pams, each_agent_its_own, config)[0] == sequential[0]


def test_generators_pams_cpp_cannot_honour_are_refused_by_name():
    """PAMS takes each of these and fails later (a non-Random) or draws
    what the engine cannot draw (a shared stream, a class drawing its own
    way); pams_cpp says so when it is assigned."""
    class OwnDraws(random.Random):
        def random(self):
            return 0.5

    for pkg in (pams, pams_cpp):
        r = set_up(pkg, MIXED)
        agents = r.simulator.agents
        shared = random.Random(1)
        cases = [
            lambda: setattr(agents[0], "prng", 42),
            lambda: setattr(agents[0], "prng", OwnDraws()),
            lambda: (setattr(agents[1], "prng", shared), setattr(agents[2], "prng", shared)),
            lambda: setattr(r, "_prng", agents[3].prng),
            lambda: setattr(r, "_prng", "seed"),
        ]
        outcomes = [raises(case) for case in cases]
        if pkg is pams:
            assert outcomes == [None] * len(cases)
            continue
        assert outcomes[0][0] == "TypeError" and "must be a random.Random" in outcomes[0][1]
        assert outcomes[1][0] == "TypeError" and "overrides random()" in outcomes[1][1]
        assert outcomes[2][0] == "ValueError" and "give each its own" in outcomes[2][1]
        assert "agent FCNAgents-1" in outcomes[2][1]  # whose generator it is
        assert outcomes[3][0] == "ValueError"
        assert outcomes[4][0] == "TypeError"
        assert raises(lambda: delattr(agents[0], "prng"))[0] == "AttributeError"
        # What was refused changed nothing: agent 2 keeps its own generator.
        assert agents[2].prng is not shared


def test_events_and_sessions_keep_the_generator_assigned():
    # Neither PAMS's nor the engine's sessions and built-in events draw:
    # what is assigned reads back, for the program's own use.
    def scenario(pkg):
        r = set_up(pkg, shock_transfer())
        out = []
        for obj in (r.simulator.sessions[0], r.simulator.events[0]):
            before = obj.prng
            assert obj.prng is before  # the same object each time
            mine = random.Random(6)
            obj.prng = mine
            out.append((obj.prng is mine, obj.prng.random()))
        r.simulator._prng = random.Random(2)
        out.append(r.simulator._prng.random())
        return out

    assert scenario(pams_cpp) == scenario(pams)


# ------------------------------------------------------------- asset volumes


def test_asset_volumes_are_a_dict_kept_in_step_with_the_engine():
    def scenario(pkg):
        r = set_up(pkg, MIXED)
        agent = r.simulator.agents[3]
        volumes = agent.asset_volumes
        snapshots = [copy.copy(volumes), volumes.copy(), copy.deepcopy(volumes),
                     pickle.loads(pickle.dumps(volumes)), dict(volumes), {**volumes}]
        out = [isinstance(volumes, dict), type(snapshots[0]).__name__, json.dumps(volumes),
               volumes == {0: 50}, {0: 50} == volumes, volumes != {0: 1}, repr(volumes),
               str(volumes), len(volumes), list(volumes), list(volumes.items()),
               list(volumes.keys()), list(volumes.values()), 0 in volumes, 1 in volumes,
               "x" in volumes, volumes.get(1, "none"), volumes | {1: 2}, {1: 2} | volumes,
               raises(lambda: volumes[1])[0], agent.get_asset_volume(0)]
        volumes[0] += 5  # in place: the agent's
        out += [agent.get_asset_volume(0), agent.asset_volumes is volumes]
        held = [a.asset_volumes for a in r.simulator.agents]
        before = [copy.copy(v) for v in held]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r._run()
        # After the run's executions: the dicts read the agents' volumes, the
        # copies are what they were.
        after = [dict(a.asset_volumes) for a in r.simulator.agents]
        out += [held == after, [json.dumps(v) for v in held], [sum(v.values()) for v in held],
                snapshots, before, sum(h != b for h, b in zip(held, before))]
        return out

    ours, theirs = scenario(pams_cpp), scenario(pams)
    assert ours == theirs
    assert ours[-1] > 0  # the run traded: dicts held since moved on with it


def test_markets_removed_and_added_through_asset_volumes_as_pams():
    # pamsenvs's _re_setup_agents: del agent.asset_volumes[id], then setup
    # again; and volumes set, updated, popped and cleared by hand.
    def change(pkg, runner):
        settings = {k: v for k, v in runner.settings["FCNAgents"].items()
                    if k not in ("class", "numAgents", "markets")}
        for agent in runner.simulator.agents[:10]:
            for market_id in [0]:
                del agent.asset_volumes[market_id]
            agent.setup(settings=settings, accessible_markets_ids=[0])
        volumes = runner.simulator.agents[10].asset_volumes
        volumes.update({0: 70})
        volumes.setdefault(0, 3)
        agent = runner.simulator.agents[11]
        assert agent.asset_volumes.pop(0) == 50 and not agent.is_market_accessible(0)
        agent.asset_volumes[0] = 40
        runner.simulator.agents[12].asset_volumes = {0: 60}
        runner.simulator.agents[13].asset_volumes.clear()
        runner.simulator.agents[13].set_market_accessible(0)

    same_on_both(change)


def test_a_volume_the_engine_cannot_hold_is_refused():
    r = set_up(pams_cpp, MIXED)
    volumes = r.simulator.agents[0].asset_volumes
    for bad in (1.5, "3", None):
        with pytest.raises(TypeError, match="volumes are ints"):
            volumes[0] = bad
    with pytest.raises(TypeError, match="market ids are ints"):
        volumes["0"] = 3
    with pytest.raises(AttributeError, match="cannot be deleted"):
        del r.simulator.agents[0].asset_volumes
    assert volumes == {0: 50}  # unchanged
    r2 = set_up(pams, MIXED)
    r2.simulator.agents[0].asset_volumes[0] = 1.5  # PAMS keeps it (and trades with it)


# ------------------------------------------------------------- runner, simulator, sessions


def test_the_runners_logger_and_simulator_are_fixed_once_made():
    for pkg in (pams, pams_cpp):
        saver = pkg.logs.market_step_loggers.MarketStepSaver()
        r = set_up(pkg, MIXED, logger=saver)
        r.logger = saver  # the same one: fine
        r.simulator = r.simulator
        other = pkg.logs.market_step_loggers.MarketStepSaver()
        outcomes = [raises(lambda: setattr(r, "logger", other)),
                    raises(lambda: setattr(r, "logger", None)),
                    raises(lambda: setattr(r, "simulator", pkg.Simulator(prng=random.Random(1))))]
        if pkg is pams:
            assert outcomes == [None, None, None]
        else:
            assert [o[0] for o in outcomes] == ["AttributeError"] * 3
            assert "pass logger= to the runner's constructor" in outcomes[0][1]
            assert "make a new runner" in outcomes[2][1]
            assert r.logger is saver


def test_classes_appended_to_registered_classes_are_registered_as_pams():
    def scenario(pkg):
        saver = pkg.logs.market_step_loggers.MarketStepSaver()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = pkg.runners.SequentialRunner(settings=copy.deepcopy(MIXED),
                                             prng=random.Random(8), logger=saver)
            r.registered_classes.append(CLASSES[pkg]["CancelFCNAgent"])
            r.registered_classes += [CLASSES[pkg]["KeeperAgent"]]
            r.main()
        return [repr(log["market_price"]) for log in saver.market_step_logs]

    assert scenario(pams_cpp) == scenario(pams)
    r = pams_cpp.runners.SequentialRunner(settings=copy.deepcopy(MIXED))
    r.class_register(CLASSES[pams_cpp]["KeeperAgent"])
    r.registered_classes = []
    with pytest.raises(ValueError, match="no longer lists KeeperAgent"):
        r._setup()


def test_pending_setups_are_the_engines_list():
    for pkg in (pams, pams_cpp):
        r = set_up(pkg, MIXED)
        r._pending_setups = []  # pamsenvs, after _setup(): nothing is left
        assert r._pending_setups == []
    r = pams_cpp.runners.SequentialRunner(settings=copy.deepcopy(MIXED))
    r._generate_markets(["Market"])
    pending = r._pending_setups
    assert isinstance(pending, list) and len(pending) == 1
    with pytest.raises(TypeError, match="run one by calling it"):
        pending.append(pending[0])
    with pytest.raises(AttributeError, match="run one by calling it"):
        r._pending_setups = []


SIMULATOR_LISTS = ("markets", "agents", "normal_frequency_agents", "high_frequency_agents",
                   "sessions", "events", "event_hooks")
SIMULATOR_DICTS = ("id2market", "name2market", "id2agent", "name2agent", "id2session",
                   "name2session", "id2event", "name2event", "markets_group_name2market",
                   "agents_group_name2agent", "events_dict")


def test_the_simulators_lists_are_lists_that_refuse_changes():
    """PAMS's lists may be changed (and its runner then runs what they hold);
    pams_cpp's are the engine's: a change raises TypeError, an assignment
    AttributeError, both saying to use the _add_* methods."""
    shapes = {}
    for pkg in (pams, pams_cpp):
        sim = set_up(pkg, shock_transfer()).simulator
        shapes[pkg] = [(name, type(getattr(sim, name)).__mro__[-2].__name__,
                        len(getattr(sim, name))) for name in SIMULATOR_LISTS + SIMULATOR_DICTS]
        changes = [lambda: sim.agents.append(sim.agents[0]), lambda: sim.markets.reverse(),
                   lambda: sim.agents.pop(), lambda: sim.id2agent.pop(0),
                   lambda: sim.markets_group_name2market["SpotMarket-1"].clear(),
                   lambda: sim.events_dict["market_before"].clear()]
        assignments = [lambda n=name: setattr(sim, n, []) for name in
                       SIMULATOR_LISTS + SIMULATOR_DICTS + ("n_agents", "fundamentals")]
        if pkg is pams:
            assert [raises(c) for c in changes + assignments] == [None] * (
                len(changes) + len(assignments))
            continue
        for change in changes:
            kind, message = raises(change)
            assert kind == "TypeError" and "_add_* methods" in message
        for assignment in assignments:
            kind, message = raises(assignment)
            assert kind == "AttributeError" and "_add_* methods" in message
        copies = [list(sim.agents), sim.agents.copy(), copy.copy(sim.agents)]
        assert all(type(c) is list and c == sim.agents for c in copies)
        assert type(copy.copy(sim.id2agent)) is dict and sim.id2agent.copy() == sim.id2agent
        assert raises(lambda: setattr(sim, "current_session", "x"))[0] == "TypeError"
        sim.logger = None  # PAMS's simulator keeps it and reads it no more
        sim._prng = random.Random(1)
    assert shapes[pams_cpp] == shapes[pams]


def test_session_attributes_as_pams():
    def scenario(pkg):
        r = set_up(pkg, MIXED)
        session = r.simulator.sessions[1]
        logger = pkg.logs.Logger()
        session.logger = logger
        session.simulator = r.simulator
        session.max_normal_orders = 2  # the engine's: the run hears it
        session.with_print = False
        out = [session.logger is logger, session.simulator is r.simulator]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r._run()
        return out + [repr(m.get_market_price()) for m in r.simulator.markets]

    assert scenario(pams_cpp) == scenario(pams)
    session = set_up(pams_cpp, MIXED).simulator.sessions[1]
    for name in ("session_id", "name", "session_start_time"):
        with pytest.raises(AttributeError, match=f"Session.{name} "):
            setattr(session, name, 3)


# ------------------------------------------------------------- agents' and events' fields


def test_agents_ids_names_and_simulators_are_fixed():
    for pkg in (pams, pams_cpp):
        agent = set_up(pkg, MIXED).simulator.agents[5]
        agent.agent_id, agent.name = 5, agent.name  # the same values: fine
        agent.logger = None  # read by nothing, in both
        outcomes = [raises(lambda: setattr(agent, "agent_id", 99)),
                    raises(lambda: setattr(agent, "name", "other")),
                    raises(lambda: setattr(agent, "simulator", None))]
        if pkg is pams:
            assert outcomes == [None] * 3
        else:
            assert [o[0] for o in outcomes] == ["AttributeError"] * 3
            assert all("Make the agent with the value" in o[1] for o in outcomes)


BUILT_IN_PARAMETERS = {
    "FCNAgent": ("fundamental_weight", "chart_weight", "noise_weight", "noise_scale",
                 "time_window_size", "order_margin", "margin_type", "mean_reversion_time",
                 "is_chart_following"),
    "ArbitrageAgent": ("order_volume", "order_threshold_price", "order_time_length"),
    "MarketMakerAgent": ("net_interest_spread", "order_time_length"),
}
BUILT_IN_EVENT_FIELDS = {
    "FundamentalPriceShock": ("target_market", "trigger_time", "price_change_rate",
                              "is_enabled", "shock_time_length"),
    "TradingHaltRule": ("target_markets", "trigger_change_rate", "halting_time_length",
                        "is_enabled", "is_halting", "activation_count"),
}


def first_of_each_class(objects):
    out = {}
    for obj in objects:
        out.setdefault(type(obj).__name__, obj)
    return out


def test_built_in_agents_and_events_fields_read_as_pams_and_refuse_assignment():
    values = {}
    for pkg in (pams, pams_cpp):
        sim = set_up(pkg, shock_transfer()).simulator
        agents, events = first_of_each_class(sim.agents), first_of_each_class(sim.events)
        values[pkg] = [(cls, name, repr(getattr(agents[cls], name)))
                       for cls, names in BUILT_IN_PARAMETERS.items() for name in names]
        values[pkg] += [agents["MarketMakerAgent"].target_market.name]
        values[pkg] += [(cls, name, repr(getattr(events[cls], name)).split(" object at")[0])
                        for cls, names in BUILT_IN_EVENT_FIELDS.items() for name in names
                        if name not in ("target_market", "target_markets")]
        fields = [(agents[cls], name) for cls, names in BUILT_IN_PARAMETERS.items()
                  for name in names]
        fields += [(events[cls], name) for cls, names in BUILT_IN_EVENT_FIELDS.items()
                   for name in names]
        fields += [(agents["MarketMakerAgent"], "target_market")]
        fields += [(events["FundamentalPriceShock"], name)
                   for name in ("event_id", "name", "session", "simulator")]
        outcomes = [raises(lambda o=obj, n=name: setattr(o, n, 1)) for obj, name in fields]
        if pkg is pams:
            assert outcomes == [None] * len(fields)
            continue
        for (obj, name), outcome in zip(fields, outcomes):
            assert outcome is not None and outcome[0] == "AttributeError", (name, outcome)
            assert f"{type(obj).__name__}.{name}" in outcome[1]
            assert "config" in outcome[1] or "Make the event with the value" in outcome[1]
    assert values[pams_cpp] == values[pams]


def test_registered_hooks_refuse_changes():
    for pkg in (pams, pams_cpp):
        sim = set_up(pkg, shock_transfer()).simulator
        hook = sim.event_hooks[0]
        outcomes = [raises(lambda n=name: setattr(hook, n, getattr(hook, n))) for name in
                    ("event", "hook_type", "is_before", "time", "specific_class",
                     "specific_instance")]
        fresh = pkg.events.EventHook(event=hook.event, hook_type="market", is_before=True)
        fresh.time = [3]  # not registered: a plain object
        if pkg is pams:
            assert outcomes == [None] * 6
        else:
            assert all(o[0] == "AttributeError" and "register a new EventHook" in o[1]
                       for o in outcomes)


def test_methods_assigned_on_an_agent_or_event():
    """A function assigned in place of a method the engine runs in C++ for
    the object's class is refused (PAMS would call it); on a Python class
    overriding the method it is called, as PAMS calls it."""
    def refused(pkg):
        agents = first_of_each_class(set_up(pkg, MIXED).simulator.agents)
        return [raises(lambda: setattr(agents["FCNAgent"], "submit_orders", lambda m: [])),
                raises(lambda: setattr(agents["CancelFCNAgent"], "executed_order", print))]

    def called(pkg, runner):
        # KeeperAgent overrides submit_orders: the engine calls the object's
        # (were it not called, this keeper's orders would change the run).
        keeper = first_of_each_class(runner.simulator.agents)["KeeperAgent"]
        keeper.submit_orders = lambda markets: []

    assert refused(pams) == [None, None]
    ours = refused(pams_cpp)
    assert [o[0] for o in ours] == ["AttributeError"] * 2
    assert "Override submit_orders in a subclass" in ours[0][1]
    same_on_both(called)
    event = set_up(pams_cpp, shock_transfer()).simulator.events[0]
    with pytest.raises(AttributeError, match="hooked_before_step_for_market"):
        event.hooked_before_step_for_market = print


def test_parallel_runners_attributes_as_pams(capsys):
    config = copy.deepcopy(MIXED)
    config["simulation"]["numParallel"] = 3
    for pkg in (pams, pams_cpp):
        r = set_up(pkg, config, runner="MultiThreadAgentParallelRunner")
        assert r.num_parallel == 3
        r._shutdown_executor() if pkg is pams else None
        assert r.executor is None
        r.executor = None
        if pkg is pams_cpp:
            with pytest.raises(AttributeError, match="simulation.numParallel"):
                r.num_parallel = 2
            with pytest.raises(AttributeError, match="engine starts, keeps and stops"):
                r.executor = object()
    r = pams_cpp.runners.MultiProcessAgentParallelRunner(settings=copy.deepcopy(MIXED))
    with pytest.raises(AttributeError, match="simulation.startMethod"):
        r.start_method = "spawn" if r.start_method != "spawn" else "fork"


# ------------------------------------------------------------- install_as_pams in workers


@pytest.mark.parametrize("start_method", ["spawn", "forkserver"])
@pytest.mark.parametrize("environment", ["inherited", "scrubbed"])
def test_workers_of_a_script_under_install_as_pams_run_pams_cpp(start_method, environment,
                                                                 tmp_path):
    """A script written for PAMS (its agent module imports pams; the real
    PAMS is installed here too) calls install_as_pams() under
    ``if __name__ == "__main__":``: its worker processes run pams_cpp, with
    SequentialRunner's results, also when install_as_pams()'s variable does
    not reach them."""
    out = tmp_path / "out.json"
    script = os.path.join(os.path.dirname(__file__), "as_pams_workers_runs.py")
    args = [sys.executable, script, start_method, str(out)]
    done = subprocess.run(args + (["scrubbed"] if environment == "scrubbed" else []),
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(out.read_text())
    prices, ran_on, elsewhere = results["processes"]
    assert ran_on == ["pams_cpp"] and elsewhere  # in worker processes, on pams_cpp
    assert results["sequential"] == [prices, ["pams_cpp"], False]
