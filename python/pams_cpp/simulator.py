"""Simulator: the container of one simulation (PAMS's ``pams.Simulator``):
its markets, agents, sessions, events and their hooks, and the
Fundamentals.

Build one by hand as in PAMS, ``Simulator(prng=random.Random(42))``, and
add the markets, agents, sessions and event hooks you built
(``_add_market``, ``_add_agent``, ``_add_session``, ``_add_event``), or
take a runner's (``runner.simulator``). Either way it is the engine's
simulator: its ``_update_times_on_markets``, ``_trigger_event_*`` and
``_update_agents_for_execution`` run the engine's code, the code a
runner's loop runs.

The lists and dicts (``markets``, ``id2agent``, ``events_dict``, ...) are
read from the engine (a ``list`` and a ``dict`` whose copies are plain):
add objects through the ``_add_*`` methods; changing a list or assigning
one raises, saying so, since the engine would not see the change.
"""
import random
from typing import Dict
from typing import List
from typing import Optional
from typing import Type

from . import _core
from . import agents
from . import events
from ._random import EngineRandom
from ._random import set_state_of
from ._random import state_of
from ._attributes import EngineDict
from ._attributes import EngineList
from ._attributes import refuse_assignments
from .agents.base import _EngineAgent
from .agents.base import _attach_engine
from .events.base import EventHook
from .events.base import _EngineEvent
from .fundamentals import Fundamentals
from .order import Cancel
from .order import Order

_HOOK_SLOTS = ("order_before", "order_after", "cancel_before", "cancel_after",
               "execution_after", "session_before", "session_after", "market_before",
               "market_after")


class Simulator:
    """The container of one simulation (PAMS's ``pams.Simulator``): its
    markets, agents, sessions, events and fundamental prices.

    A runner makes one (``runner.simulator``); a program driving the
    simulation by hand builds one with ``Simulator(prng=random.Random(42))``
    and adds what it built with the ``_add_*`` methods. The attributes
    (``markets``, ``id2agent``, ``events_dict``, ...) are read from the
    engine: lists and dicts that refuse changes (TypeError) and assignment
    (AttributeError), naming the ``_add_*`` methods.

    Note:
        Only the engine's Fundamentals generate fundamental prices: another
        ``fundamental_class`` raises NotImplementedError (PAMS accepts any).
    """

    def __init__(
        self,
        prng: random.Random,
        logger=None,
        fundamental_class: Type[Fundamentals] = Fundamentals,
    ) -> None:
        """Initialize.

        Args:
            prng (random.Random): the simulator's generator; the Fundamentals
                draw their seed from it, as in PAMS.
            logger (Logger, Optional): the logger (its ``_set_simulator`` is
                called with this simulator).
            fundamental_class: PAMS's argument; Fundamentals only (the
                engine's fundamental prices are its own).

        Raises:
            TypeError: prng is not a random.Random.
            NotImplementedError: another fundamental_class.
        """
        if fundamental_class is not Fundamentals:
            raise NotImplementedError(
                f"fundamental_class={getattr(fundamental_class, '__name__', fundamental_class)}: "
                "pams_cpp's simulators generate fundamental prices with the engine's "
                "Fundamentals only (see docs/python.md)")
        if "_context" not in vars(self):
            # Built by hand: an engine simulator of its own, whose Fundamentals
            # draw their seed from prng (as PAMS's).
            if not isinstance(prng, random.Random):
                raise TypeError(f"prng must be a random.Random, got {type(prng).__name__}")
            context = _core.SimulationContext(*state_of(prng))
            set_state_of(prng, *context.prng_state())
            self._attach(context)
        self._prng = prng
        self.logger = logger
        if logger is not None:
            logger._set_simulator(simulator=self)

    # --- the engine's simulation behind this object

    def _attach(self, context) -> None:
        self._context = context
        self._core = context.simulator
        # The engine objects Python gets from this simulator find the
        # context through it (their _owner).
        self._core._context = context
        self._sizes = None
        self._markets_handed = False
        self._lists: Dict[str, object] = {}
        self._kept: List[object] = []  # objects built by hand, kept alive
        self._hook_objects: Dict[int, EventHook] = {}
        context._python_simulator = self
        context.set_python_objects([], self)

    @classmethod
    def _for_runner(cls, runner_core, **kwargs) -> "Simulator":
        """The Python simulator of a runner's engine simulation: an object of
        cls (a Simulator subclass) whose __init__ gets PAMS's arguments."""
        simulator = cls.__new__(cls)
        context = _core._runner_context(runner_core)
        simulator._attach(context)
        simulator.__init__(prng=EngineRandom(_generator=context.simulator.prng, _owner=None),
                           **kwargs)
        return simulator

    def _cached(self, name: str, make):
        # The engine adds objects during a runner's setup (a Python agent or
        # event may look meanwhile), and _add_* add them: the lists are made
        # again whenever the engine holds more.
        sizes = self._context.objects_key()
        if sizes != self._sizes:
            self._sizes = sizes
            self._markets_handed = False
            old_agents = self._lists.get("agents")
            old_events = self._lists.get("events")
            self._lists = {}
            if old_agents is not None:
                self._lists["_agent_objects"] = {a.agent_id: a for a in old_agents}
            if old_events is not None:
                self._lists["_event_objects"] = {id(e._engine): e for e in old_events
                                                 if e._engine is not None}
        if name not in self._lists:
            self._lists[name] = make()
        return self._lists[name]

    # --- PAMS's attributes

    @property
    def markets(self) -> List:
        """The markets, in the order they were added."""
        # _cached's hit inlined: a hand-driven loop reads this at every step.
        if self._markets_handed and self._context.objects_key() == self._sizes:
            markets = self._lists.get("markets")
            if markets is not None:
                return markets
        markets = self._cached("markets",
                               lambda: EngineList(self._core.markets, "simulator.markets"))
        if not self._markets_handed:
            # What the engine hands Python agents as their markets.
            self._markets_handed = True
            self._context.set_python_objects(markets, self)
        return markets

    @property
    def sessions(self) -> List:
        """List[Session]: the sessions, in the order they run."""
        return self._cached("sessions",
                            lambda: EngineList(self._core.sessions, "simulator.sessions"))

    @property
    def id2market(self) -> Dict[int, object]:
        """Dict[int, Market]: the markets by market id."""
        return self._cached("id2market", lambda: EngineDict(
            {m.market_id: m for m in self.markets}, "simulator.id2market"))

    @property
    def name2market(self) -> Dict[str, object]:
        """Dict[str, Market]: the markets by name (a read-only view)."""
        return self._cached("name2market", lambda: EngineDict(
            {m.name: m for m in self.markets}, "simulator.name2market"))

    @property
    def markets_group_name2market(self) -> Dict[str, List]:
        """The markets of each group (PAMS's config group names)."""
        def make():
            groups: Dict[str, List] = {}
            for market in self.markets:
                group = self._core.market_group_of(market)
                if group:
                    groups.setdefault(group, []).append(market)
            return _engine_groups(groups, "simulator.markets_group_name2market")
        return self._cached("market_groups", make)

    @property
    def n_markets(self) -> int:
        """int: how many markets the simulator holds."""
        return len(self.markets)

    @property
    def id2session(self) -> Dict[int, object]:
        """Dict[int, Session]: the sessions by session id."""
        return self._cached("id2session", lambda: EngineDict(
            {s.session_id: s for s in self.sessions}, "simulator.id2session"))

    @property
    def name2session(self) -> Dict[str, object]:
        """Dict[str, Session]: the sessions by name."""
        return self._cached("name2session", lambda: EngineDict(
            {s.name: s for s in self.sessions}, "simulator.name2session"))

    @property
    def n_sessions(self) -> int:
        """int: how many sessions the simulator holds."""
        return len(self.sessions)

    # The agents: a Python object per engine agent, made on first use (a run
    # that never looks pays nothing) and kept (the same objects each time).
    @property
    def agents(self) -> List:
        """The agents, in the order they were added."""
        def make():
            known = self._lists.get("_agent_objects", {})
            return EngineList([known.get(a.agent_id) or self._agent_object(a)
                               for a in self._core.agents], "simulator.agents")
        return self._cached("agents", make)

    @property
    def id2agent(self) -> Dict[int, object]:
        """Dict[int, Agent]: the agents by agent id (a read-only view)."""
        return self._cached("id2agent", lambda: EngineDict(
            {a.agent_id: a for a in self.agents}, "simulator.id2agent"))

    @property
    def name2agent(self) -> Dict[str, object]:
        """Dict[str, Agent]: the agents by name (a read-only view)."""
        return self._cached("name2agent", lambda: EngineDict(
            {a.name: a for a in self.agents}, "simulator.name2agent"))

    @property
    def agents_group_name2agent(self) -> Dict[str, List]:
        """The agents of each group (PAMS's config group names)."""
        def make():
            groups: Dict[str, List] = {}
            for agent in self.agents:
                group = self._core.agent_group_of(agent._engine)
                if group:
                    groups.setdefault(group, []).append(agent)
            return _engine_groups(groups, "simulator.agents_group_name2agent")
        return self._cached("agent_groups", make)

    @property
    def n_agents(self) -> int:
        """int: how many agents the simulator holds."""
        return len(self.agents)

    @property
    def normal_frequency_agents(self) -> List:
        """The agents that are not high-frequency agents."""
        return self._cached("normal", lambda: EngineList(
            [a for a in self.agents if not a._engine.is_high_frequency],
            "simulator.normal_frequency_agents"))

    @property
    def high_frequency_agents(self) -> List:
        """List[Agent]: the high-frequency agents (HighFrequencyAgent
        subclasses), in the order added."""
        return self._cached("high", lambda: EngineList(
            [a for a in self.agents if a._engine.is_high_frequency],
            "simulator.high_frequency_agents"))

    @property
    def events(self) -> List:
        """The events, in the order their first hook was added."""
        def make():
            known = self._lists.get("_event_objects", {})
            return EngineList([known.get(id(e)) or self._event_object(e)
                               for e in self._core.events], "simulator.events")
        return self._cached("events", make)

    @property
    def id2event(self) -> Dict[int, object]:
        """Dict[int, EventABC]: the events by event id."""
        return self._cached("id2event", lambda: EngineDict(
            {e.event_id: e for e in self.events}, "simulator.id2event"))

    @property
    def name2event(self) -> Dict[str, object]:
        """Dict[str, EventABC]: the events by name."""
        return self._cached("name2event", lambda: EngineDict(
            {e.name: e for e in self.events}, "simulator.name2event"))

    @property
    def n_events(self) -> int:
        """How many event hooks were added (PAMS counts hooks)."""
        return len(self.event_hooks)

    @property
    def event_hooks(self) -> List[EventHook]:
        """The event hooks, in the order they were added."""
        return self._cached("event_hooks", lambda: EngineList([
            self._hook_object(i) for i in range(self._context.event_hook_count())],
            "simulator.event_hooks"))

    @property
    def events_dict(self) -> Dict[str, Dict[Optional[int], List[EventHook]]]:
        """The hooks by kind ("order_before", ...) and step (None: every
        step), as PAMS keeps them."""
        def make():
            out: Dict[str, Dict[Optional[int], List[EventHook]]] = {s: {} for s in _HOOK_SLOTS}
            for hook in self.event_hooks:
                slot = out[hook.hook_type + ("_before" if hook.is_before else "_after")]
                for time in hook.time if hook.time is not None else [None]:
                    slot.setdefault(time, []).append(hook)
            return EngineDict({kind: _engine_groups(slot, f"simulator.events_dict[{kind!r}]")
                               for kind, slot in out.items()}, "simulator.events_dict")
        return self._cached("events_dict", make)

    def _hook_object(self, index: int) -> EventHook:
        hook = self._hook_objects.get(index)
        if hook is None:
            engine_event, hook_type, is_before, time, cls, instance = self._context.event_hook(index)
            from . import IndexMarket, Market

            hook = EventHook.__new__(EventHook)
            hook.event = self._event_of(engine_event)
            hook.hook_type = hook_type
            hook.is_before = is_before
            hook.time = time
            hook.specific_class = {"Market": Market, "IndexMarket": IndexMarket}.get(cls)
            hook.specific_instance = instance
            hook._in_engine = True  # changes refused (EventHook.__setattr__)
            self._hook_objects[index] = hook
        return hook

    def _event_of(self, engine_event):
        for event in self.events:
            if event._engine is engine_event or (
                    event._engine is not None and event._engine.event_id == engine_event.event_id
                    and event.name == engine_event.name):
                return event
        return self._event_object(engine_event)

    def _event_object(self, engine_event):
        obj = engine_event.python_object
        if obj is not None:
            return obj
        cls = getattr(events, engine_event.class_name, None)
        if not isinstance(cls, type) or "_engine_base" not in vars(cls):
            cls = _EngineEvent
        obj = cls.__new__(cls)
        obj._engine = engine_event
        obj.event_id = engine_event.event_id
        obj.name = engine_event.name
        obj.prng = EngineRandom(_generator=engine_event.prng, _owner=None)  # draws nothing
        obj.session = engine_event.session
        obj.simulator = self
        return obj

    def _agent_object(self, engine_agent):
        """The Python agent of an engine agent: the object of a Python class,
        or a pams_cpp.agents object of its built-in class."""
        obj = engine_agent.python_object
        if obj is not None:
            return obj
        cls = getattr(agents, engine_agent.class_name, None)
        if not isinstance(cls, type) or "_engine_base" not in vars(cls):
            # A sample's class (its face, once its module is imported).
            from .agents.base import _FACES

            cls = _FACES.get(_core._sample_agent_class(engine_agent), _EngineAgent)
        obj = cls.__new__(cls)
        _attach_engine(obj, engine_agent)
        obj.agent_id = engine_agent.agent_id
        obj.name = engine_agent.name
        obj.prng = EngineRandom(_generator=engine_agent.prng, _owner=f"agent {obj.name}")
        obj.simulator = self
        obj.logger = self.logger  # PAMS's runner gives its agents its logger
        return obj

    def _python_agent(self, engine_agent):
        """The Python agent of an engine agent of this simulation."""
        return self.id2agent.get(engine_agent.agent_id) or self._agent_object(engine_agent)

    @property
    def current_session(self):
        """The session running now (None before the run)."""
        return self._core.current_session

    @current_session.setter
    def current_session(self, session) -> None:
        if session is not None:
            _require(session, _core.Session, "Simulator.current_session",
                     "one of the simulator's sessions (or None)")
        self._context.set_current_session(session)

    @property
    def fundamentals(self) -> Fundamentals:
        """The fundamental price processes (PAMS's Fundamentals)."""
        return self._core.fundamentals

    # --- PAMS's methods (a runner's loop calls the same code in C++)

    def _add_event(self, event_hook: EventHook) -> None:
        """Adds an event hook (and its event, the first time).

        Raises:
            ValueError: the hook was added already.
        """
        if not isinstance(event_hook, EventHook):
            raise TypeError(f"_add_event takes an EventHook, got {type(event_hook).__name__}")
        if any(h is event_hook for h in self.event_hooks):
            raise ValueError("event_hook is already registered")
        event = event_hook.event
        if getattr(event, "_engine", None) is None:
            raise TypeError(
                f"the hook's event {event!r} belongs to no pams_cpp simulation (build it "
                "with simulator=<a pams_cpp Simulator>)")
        index = self._context.event_hook_count()
        # Kept alive before the engine refers to it (the engine borrows it).
        if all(e is not event for e in self._kept):
            self._kept.append(event)
        self._context.add_event_hook(event_hook)  # adds the event the first time
        self._hook_objects[index] = event_hook

    def _add_market(self, market, group_name: Optional[str] = None) -> None:
        """Adds a market.

        Raises:
            ValueError: the market, its id or its name is there already.
        """
        _require_engine(market, _core.Market, "Simulator._add_market: market", "a Market")
        _require_group(group_name, "Simulator._add_market")
        if any(m is market for m in self.markets):
            raise ValueError("market is already registered")
        if market.market_id in self.id2market:
            raise ValueError(f"market_id {market.market_id} is duplicated")
        if market.name in self.name2market:
            raise ValueError(f"market name {market.name} is duplicate")
        self._kept.append(market)  # alive before the engine borrows it
        self._context.add_market(market, group_name or "")
        self.markets  # noqa: B018  (hands the engine the new list)

    def _add_agent(self, agent, group_name: Optional[str] = None) -> None:
        """Adds an agent.

        Raises:
            ValueError: the agent, its id or its name is there already.
        """
        _require_engine(agent, _core.Agent, "Simulator._add_agent: agent",
                        "an Agent built with a pams_cpp Simulator")
        _require_group(group_name, "Simulator._add_agent")
        if any(a is agent for a in self.agents):
            raise ValueError("agent is already registered")
        if agent.agent_id in self.id2agent:
            raise ValueError(f"agent_id {agent.agent_id} is duplicated")
        if agent.name in self.name2agent:
            raise ValueError(f"agent name {agent.name} is duplicate")
        self._kept.append(agent)  # alive before the engine borrows it
        self._context.add_agent(agent, group_name or "")

    def _add_session(self, session) -> None:
        """Adds a session.

        Raises:
            ValueError: the session, its id or its name is there already.
        """
        _require(session, _core.Session, "Simulator._add_session: session", "a Session")
        if any(s is session for s in self.sessions):
            raise ValueError("session is already registered")
        if session.session_id in self.id2session:
            raise ValueError(f"session_id {session.session_id} is duplicated")
        if session.name in self.name2session:
            raise ValueError(f"session name {session.name} is duplicate")
        self._kept.append(session)  # alive before the engine borrows it
        self._context.add_session(session)

    def _update_time_on_market(self, market) -> None:
        """Moves a market to its next step (its fundamental price of that
        step; an index market's: its components' fundamental index)."""
        self._context.update_time_on_market(market)

    # Moves markets to their next step (the markets that are not index
    # markets first, then the index markets), and calls the hooks before and
    # after a market's step: C++ methods (hand_built_simulation.cc), as a
    # hand-driven loop calls them at every step.
    _update_times_on_markets = _core._update_times_on_markets
    _trigger_event_before_step_for_market = _core._trigger_event_before_step_for_market
    _trigger_event_after_step_for_market = _core._trigger_event_after_step_for_market

    def _update_agents_for_execution(self, execution_logs: List) -> None:
        """Moves cash and assets between the agents of each execution."""
        if not isinstance(execution_logs, (list, tuple)):
            raise TypeError("Simulator._update_agents_for_execution: execution_logs must be a "
                            f"list of ExecutionLogs, got {execution_logs!r:.60}")
        self._context.update_agents_for_execution(execution_logs)

    def _check_event_class_and_instance(
        self,
        check_object: object,
        class_requirement: Optional[Type] = None,
        instance_requirement: Optional[object] = None,
    ) -> bool:
        """Whether check_object is of class_requirement and is
        instance_requirement (each when given)."""
        if class_requirement is not None and not isinstance(check_object, class_requirement):
            return False
        if instance_requirement is not None and instance_requirement != check_object:
            return False
        return True

    def _trigger_event_before_order(self, order) -> None:
        """Calls the hooks before an order (they may change it)."""
        _require(order, Order, "Simulator._trigger_event_before_order: order", "an Order")
        self._context.trigger_before_order(order)

    def _trigger_event_after_order(self, order_log) -> None:
        """Calls the hooks after an order."""
        self._context.trigger_after_order(order_log)

    def _trigger_event_before_cancel(self, cancel) -> None:
        """Calls the hooks before a cancel."""
        _require(cancel, Cancel, "Simulator._trigger_event_before_cancel: cancel", "a Cancel")
        _require(cancel.order, Order, "Simulator._trigger_event_before_cancel: the cancel's "
                                      "order", "an Order")
        self._context.trigger_before_cancel(cancel)

    def _trigger_event_after_cancel(self, cancel_log) -> None:
        """Calls the hooks after a cancel."""
        self._context.trigger_after_cancel(cancel_log)

    def _trigger_event_after_execution(self, execution_log) -> None:
        """Calls the hooks after an execution."""
        self._context.trigger_after_execution(execution_log)

    def _trigger_event_before_session(self, session) -> None:
        """Calls the hooks before a session."""
        _require(session, _core.Session, "Simulator._trigger_event_before_session: session",
                 "a Session")
        self._context.trigger_session(session, True)

    def _trigger_event_after_session(self, session) -> None:
        """Calls the hooks after a session."""
        _require(session, _core.Session, "Simulator._trigger_event_after_session: session",
                 "a Session")
        self._context.trigger_session(session, False)

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__module__}.{self.__class__.__name__} | "
            f"markets={len(self.markets)}, agents={len(self.agents)}, "
            f"sessions={len(self.sessions)}>"
        )


def _describe(value) -> str:
    return f"{value!r:.60} ({type(value).__name__})"


def _require(value, cls, what: str, expected: str) -> None:
    """value is a cls: TypeError naming the argument otherwise."""
    if not isinstance(value, cls):
        raise TypeError(f"{what} must be {expected}, got {_describe(value)}")


def _require_engine(value, cls, what: str, expected: str) -> None:
    """value is a cls or has one as its engine object (_engine)."""
    if not isinstance(value, cls) and not isinstance(getattr(value, "_engine", None), cls):
        raise TypeError(f"{what} must be {expected}, got {_describe(value)}")


def _require_group(group_name, method: str) -> None:
    if group_name is not None and not isinstance(group_name, str):
        raise TypeError(f"{method}: group_name must be a str or None, got "
                        f"{_describe(group_name)}")


def _engine_groups(groups: Dict, what: str) -> "EngineDict":
    """`groups` (name to a list of objects) as the engine's dict of lists."""
    return EngineDict({name: EngineList(members, f"{what}[{name!r}]")
                       for name, members in groups.items()}, what)


refuse_assignments(Simulator, (
    "{cls}.{name} is read from the engine's simulation, which a new value would not "
    "change: add markets, agents, sessions and event hooks with the simulator's _add_* "
    "methods (pams_cpp cannot remove them: make a new runner or simulator)"))


# The methods a runner's engine loop runs in C++: a Simulator subclass that
# overrides one is refused (the loop would not call the override).
ENGINE_METHODS = (
    "_add_event", "_add_market", "_add_agent", "_add_session", "_update_time_on_market",
    "_update_times_on_markets", "_update_agents_for_execution",
    "_check_event_class_and_instance", "_trigger_event_before_order",
    "_trigger_event_after_order", "_trigger_event_before_cancel", "_trigger_event_after_cancel",
    "_trigger_event_after_execution", "_trigger_event_before_session",
    "_trigger_event_after_session", "_trigger_event_before_step_for_market",
    "_trigger_event_after_step_for_market",
)


def check_simulator_class(cls) -> None:
    """Refuses, naming the method, a Simulator subclass that overrides a
    method the engine's loop runs in C++, or a class that is no Simulator."""
    if not isinstance(cls, type) or not issubclass(cls, Simulator):
        raise TypeError(f"simulator_class must be a subclass of pams_cpp.Simulator, got {cls!r}")
    for name in ENGINE_METHODS:
        if getattr(cls, name) is not getattr(Simulator, name):
            raise NotImplementedError(
                f"{cls.__name__} overrides Simulator.{name}, which a runner's loop runs in the "
                "engine and would not call: override it only in simulators driven by hand, or "
                "give agents, markets and events the behaviour")


__all__ = ["Simulator"]
