"""Simulator: the container of one simulation, as PAMS's runners expose it
(``runner.simulator``): its markets, agents and sessions, by id and by name.

The lists are the engine's own objects (read-only here), filled once the
runner is set up.
"""
from typing import Dict
from typing import List
from typing import Optional

from . import _core


class Simulator:
    """The simulation a runner builds (PAMS's ``Simulator``)."""

    def __init__(self, core: "_core.Simulator") -> None:
        self._core = core
        self._refresh()

    def _refresh(self) -> None:
        """Reads the markets, agents and sessions again (after setup)."""
        core = self._core
        self.markets: List[_core.Market] = core.markets
        self.agents: List[_core.Agent] = core.agents
        self.sessions: List[_core.Session] = core.sessions
        self.id2market: Dict[int, _core.Market] = {m.market_id: m for m in self.markets}
        self.name2market: Dict[str, _core.Market] = {m.name: m for m in self.markets}
        self.id2agent: Dict[int, _core.Agent] = {a.agent_id: a for a in self.agents}
        self.name2agent: Dict[str, _core.Agent] = {a.name: a for a in self.agents}
        self.id2session: Dict[int, _core.Session] = {s.session_id: s for s in self.sessions}
        self.name2session: Dict[str, _core.Session] = {s.name: s for s in self.sessions}
        self.normal_frequency_agents: List[_core.Agent] = [
            a for a in self.agents if not a.is_high_frequency
        ]
        self.high_frequency_agents: List[_core.Agent] = [
            a for a in self.agents if a.is_high_frequency
        ]

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
