"""Simulator: the container of one simulation, as PAMS's runners expose it
(``runner.simulator``): its markets, agents and sessions, by id and by name.

The lists are the engine's own objects (read-only here), filled once the
runner is set up.
"""
from typing import Dict
from typing import List
from typing import Optional

from . import _core
from . import agents
from . import events
from ._random import EngineRandom
from .agents.base import _EngineAgent
from .events.base import _EngineEvent


class Simulator:
    """The simulation a runner builds (PAMS's ``Simulator``)."""

    def __init__(self, core: "_core.Simulator") -> None:
        self._core = core
        self._sizes = None
        self._lists: Dict[str, object] = {}

    def _cached(self, name: str, make):
        # The engine adds markets, agents, sessions and events during setup
        # (a Python agent or event may look meanwhile): the lists are made
        # again whenever the engine holds more.
        sizes = self._core.sizes
        if sizes != self._sizes:
            self._sizes = sizes
            old_agents = self._lists.get("agents")
            self._lists = {}
            if old_agents is not None:
                self._lists["_agent_objects"] = {a.agent_id: a for a in old_agents}
        if name not in self._lists:
            self._lists[name] = make()
        return self._lists[name]

    @property
    def markets(self) -> List[_core.Market]:
        """The markets, by id."""
        return self._cached("markets", lambda: self._core.markets)

    @property
    def sessions(self) -> List[_core.Session]:
        """The sessions, in order."""
        return self._cached("sessions", lambda: self._core.sessions)

    @property
    def id2market(self) -> Dict[int, _core.Market]:
        """The markets by id."""
        return self._cached("id2market", lambda: {m.market_id: m for m in self.markets})

    @property
    def name2market(self) -> Dict[str, _core.Market]:
        """The markets by name."""
        return self._cached("name2market", lambda: {m.name: m for m in self.markets})

    @property
    def id2session(self) -> Dict[int, _core.Session]:
        """The sessions by id."""
        return self._cached("id2session", lambda: {s.session_id: s for s in self.sessions})

    @property
    def name2session(self) -> Dict[str, _core.Session]:
        """The sessions by name."""
        return self._cached("name2session", lambda: {s.name: s for s in self.sessions})

    # The agents: a Python object per engine agent, made on first use (a run
    # that never looks pays nothing) and kept (the same objects each time).
    @property
    def agents(self) -> List:
        """The agents, by id (Python agents are the objects the run made)."""
        def make():
            known = self._lists.get("_agent_objects", {})
            return [known.get(a.agent_id) or self._agent_object(a) for a in self._core.agents]
        return self._cached("agents", make)

    @property
    def id2agent(self) -> Dict[int, object]:
        """The agents by id."""
        return self._cached("id2agent", lambda: {a.agent_id: a for a in self.agents})

    @property
    def name2agent(self) -> Dict[str, object]:
        """The agents by name."""
        return self._cached("name2agent", lambda: {a.name: a for a in self.agents})

    @property
    def normal_frequency_agents(self) -> List:
        """The agents that are not high-frequency agents."""
        return self._cached("normal", lambda: [a for a in self.agents
                                               if not a._engine.is_high_frequency])

    @property
    def high_frequency_agents(self) -> List:
        """The high-frequency agents."""
        return self._cached("high", lambda: [a for a in self.agents
                                             if a._engine.is_high_frequency])

    @property
    def events(self) -> List:
        """The events (Python events are the objects the run made)."""
        return self._cached("events", lambda: [self._event_object(e) for e in self._core.events])

    @property
    def id2event(self) -> Dict[int, object]:
        """The events by id."""
        return self._cached("id2event", lambda: {e.event_id: e for e in self.events})

    @property
    def name2event(self) -> Dict[str, object]:
        """The events by name."""
        return self._cached("name2event", lambda: {e.name: e for e in self.events})

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
        obj.prng = EngineRandom(_generator=engine_event.prng)
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
        obj._engine = engine_agent
        obj.agent_id = engine_agent.agent_id
        obj.name = engine_agent.name
        obj.prng = EngineRandom(_generator=engine_agent.prng)
        obj.simulator = self
        obj.logger = None
        return obj

    @property
    def current_session(self) -> Optional[_core.Session]:
        """The session running now (None before the run)."""
        return self._core.current_session

    @property
    def fundamentals(self) -> _core.Fundamentals:
        """The fundamental price processes (PAMS's Fundamentals)."""
        return self._core.fundamentals

    @property
    def prng(self):
        """The simulator's own generator."""
        from ._random import EngineRandom

        return EngineRandom(_generator=self._core.prng)

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__module__}.{self.__class__.__name__} | "
            f"markets={len(self.markets)}, agents={len(self.agents)}, "
            f"sessions={len(self.sessions)}>"
        )


__all__ = ["Simulator"]
