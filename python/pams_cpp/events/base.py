"""EventABC and EventHook: events written in Python (PAMS's
``pams.events.base``).

Subclass EventABC as in PAMS, return EventHooks from ``hook_registration``
and register the class with ``runner.class_register(cls)``: the engine calls
``setup``, then ``hook_registration`` once, then the ``hooked_*`` methods of
the hooks registered. A hook before an order may change the order it is
given; the engine takes the change.
"""
import random
from abc import ABC
from abc import abstractmethod
from typing import Any
from typing import Dict
from typing import List
from typing import Optional
from typing import Type

from ..market import Market

_HOOK_TYPES = ("order", "cancel", "execution", "session", "market")


class EventHook:
    """When an event wants to be called: before or after orders, cancels,
    executions (after only), sessions or markets' steps; at some steps only
    (`time`), and, for market hooks, for one market or class of markets."""

    def __init__(
        self,
        event: "EventABC",
        hook_type: str,
        is_before: bool,
        time: Optional[List[int]] = None,
        specific_class: Optional[Type] = None,
        specific_instance: Optional[object] = None,
    ):
        if hook_type not in _HOOK_TYPES:
            raise ValueError(
                "hook type must be one of order, cancel, execution, session, or market"
            )
        if hook_type == "execution" and is_before:
            raise ValueError("execution can be hooked only after it")
        if specific_class is not None or specific_instance is not None:
            if hook_type != "market":
                raise ValueError(
                    "specific_class and specific_instance are not supported except for market"
                )
            if specific_class is not None and not issubclass(specific_class, Market):
                raise ValueError("specific_class and hook_type is incompatible")
            if specific_instance is not None and not isinstance(specific_instance, Market):
                raise ValueError("specific_instance and hook_type is incompatible")
        self.event = event
        self.hook_type = hook_type
        self.is_before = is_before
        self.time = time
        self.specific_class = specific_class
        self.specific_instance = specific_instance

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__module__}.{self.__class__.__name__} | "
            f"hook_type={self.hook_type}, is_before={self.is_before}, time={self.time}, "
            f"specific_class={self.specific_class}, "
            f"specific_instance={self.specific_instance}, event={self.event}>"
        )


class EventABC(ABC):
    """An event (see the module's doc)."""

    # The engine's class this class's events are made of (subclasses of the
    # built-in events name theirs).
    _engine_base = "Event"
    # The engine event (set by the runner before __init__).
    _engine: Any = None

    def __init__(
        self,
        event_id: int,
        prng: random.Random,
        session: "Session",  # noqa: F821
        simulator: "Simulator",  # noqa: F821
        name: str,
    ) -> None:
        if vars(self).get("_engine") is None:
            _build_engine_event(self, event_id, prng, session, simulator, name)
        self.event_id: int = event_id
        self.prng: random.Random = prng
        self.simulator = simulator
        self.name: str = name
        self.session = session

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__module__}.{self.__class__.__name__} | id={self.event_id}, "
            f"name={self.name}, session={self.session}>"
        )

    def setup(self, settings: Dict[str, Any], *args, **kwargs) -> None:  # noqa: B027
        """Reads the event's config keys."""

    @abstractmethod
    def hook_registration(self) -> List[EventHook]:
        """When to call this event."""

    def hooked_before_order(self, simulator, order) -> None:  # noqa: B027
        """Before an order is processed (it may be changed)."""

    def hooked_after_order(self, simulator, order_log) -> None:  # noqa: B027
        """After an order was accepted."""

    def hooked_before_cancel(self, simulator, cancel) -> None:  # noqa: B027
        """Before a cancel is processed."""

    def hooked_after_cancel(self, simulator, cancel_log) -> None:  # noqa: B027
        """After a cancel was accepted."""

    def hooked_after_execution(self, simulator, execution_log) -> None:  # noqa: B027
        """After two orders were executed."""

    def hooked_before_session(self, simulator, session) -> None:  # noqa: B027
        """Before a session."""

    def hooked_after_session(self, simulator, session) -> None:  # noqa: B027
        """After a session."""

    def hooked_before_step_for_market(self, simulator, market) -> None:  # noqa: B027
        """Before a market's step."""

    def hooked_after_step_for_market(self, simulator, market) -> None:  # noqa: B027
        """After a market's step."""


def _build_engine_event(event: EventABC, event_id: int, prng, session, simulator,
                        name: str) -> None:
    """The engine event of an event a program builds by hand (PAMS's
    FundamentalPriceShock(event_id=..., ...)): an engine event of its nearest
    built-in class in the simulation of `simulator`."""
    context = getattr(simulator, "_context", None)
    if context is None:
        return  # no pams_cpp simulation: a plain Python object
    if not isinstance(prng, random.Random):
        raise TypeError(f"{type(event).__name__}: prng must be a random.Random, got "
                        f"{type(prng).__name__}")
    from .. import _core
    from .._random import state_of
    from ..runners.base import _event_class

    if not isinstance(session, _core.Session):
        raise TypeError(f"{type(event).__name__}: session must be a pams_cpp Session, got "
                        f"{type(session).__name__}")
    event._engine = context.new_event(event, _event_class(type(event), None), int(event_id),
                                      *state_of(prng), session, str(name))


class _EngineEvent(EventABC):
    """An event of a class the engine runs in C++ (a plugin's)."""

    def hook_registration(self) -> List[EventHook]:
        """The engine registered its hooks already."""
        return []


# The hooked_* methods, and what an overriding class may call through
# super(): the built-in classes' methods run in C++.
HOOK_METHODS = (
    "hooked_before_order",
    "hooked_after_order",
    "hooked_before_cancel",
    "hooked_after_cancel",
    "hooked_after_execution",
    "hooked_before_session",
    "hooked_after_session",
    "hooked_before_step_for_market",
    "hooked_after_step_for_market",
)
EVENT_METHODS = ("setup", "hook_registration") + HOOK_METHODS


def engine_attribute(key: str, doc: str = "") -> property:
    """A PAMS attribute of a built-in event, read from the engine's event."""
    return property(lambda self: self._engine._state[key], doc=doc)


class BuiltinEvent(EventABC):
    """The base of the built-in events (FundamentalPriceShock, ...): their
    methods run the engine's code, which subclasses reach with super(), and
    their PAMS attributes read the engine's event."""

    # Methods the engine's class calls from its own C++ code: a subclass
    # cannot override them (class_register says so).
    _engine_calls: tuple = ()

    def setup(self, settings: Dict[str, Any], *args, **kwargs) -> None:
        """Reads the event's config keys (the engine's code)."""
        self._engine._base_setup(settings)

    def hook_registration(self) -> List[EventHook]:
        """The hooks of the built-in class (EventHooks of this event)."""
        return self._engine._base_hook_registration(self)

    def _state(self, key: str) -> Any:
        return self._engine._state[key]

    def _market(self, market_id: Optional[int]) -> Optional[Market]:
        return None if market_id is None else self.simulator.id2market[market_id]

    def _markets(self, market_ids: List[int]) -> Dict[str, Market]:
        markets = [self.simulator.id2market[i] for i in market_ids]
        return {m.name: m for m in markets}


__all__ = ["EventABC", "EventHook"]
