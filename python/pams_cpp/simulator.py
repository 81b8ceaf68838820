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
from ._random import EngineRandom
from .agents.base import _EngineAgent


class Simulator:
    """The simulation a runner builds (PAMS's ``Simulator``)."""

    def __init__(self, core: "_core.Simulator") -> None:
        self._core = core
        self._refresh()

    def _refresh(self) -> None:
        """Reads the markets and sessions again (after setup); the agents are
        read when first asked for."""
        core = self._core
        self.markets: List[_core.Market] = core.markets
        self.sessions: List[_core.Session] = core.sessions
        self.id2market: Dict[int, _core.Market] = {m.market_id: m for m in self.markets}
        self.name2market: Dict[str, _core.Market] = {m.name: m for m in self.markets}
        self.id2session: Dict[int, _core.Session] = {s.session_id: s for s in self.sessions}
        self.name2session: Dict[str, _core.Session] = {s.name: s for s in self.sessions}
        self._agents: Optional[List] = None

    # The agents, by id and by name, and split by frequency. Made on first
    # use: a Python object per engine agent costs a run that never looks.
    @property
    def agents(self) -> List:
        """The agents, by id (Python agents are the objects the run made)."""
        if self._agents is None:
            self._agents = [self._agent_object(a) for a in self._core.agents]
        return self._agents

    @property
    def id2agent(self) -> Dict[int, object]:
        """The agents by id."""
        return {a.agent_id: a for a in self.agents}

    @property
    def name2agent(self) -> Dict[str, object]:
        """The agents by name."""
        return {a.name: a for a in self.agents}

    @property
    def normal_frequency_agents(self) -> List:
        """The agents that are not high-frequency agents."""
        return [a for a in self.agents if not a._engine.is_high_frequency]

    @property
    def high_frequency_agents(self) -> List:
        """The high-frequency agents."""
        return [a for a in self.agents if a._engine.is_high_frequency]

    def _agent_object(self, engine_agent):
        """The Python agent of an engine agent: the object of a Python class,
        or a pams_cpp.agents object of its built-in class."""
        obj = engine_agent.python_object
        if obj is not None:
            return obj
        cls = getattr(agents, engine_agent.class_name, None)
        if not isinstance(cls, type) or "_engine_base" not in vars(cls):
            cls = _EngineAgent
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
