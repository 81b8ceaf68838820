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

from .._attributes import Assigned
from .._attributes import engine_methods
from .._attributes import fixed
from .._attributes import refuse_assignments
from ..market import Market

_HOOK_TYPES = ("order", "cancel", "execution", "session", "market")
_HOOK_FIELDS = ("event", "hook_type", "is_before", "time", "specific_class", "specific_instance")


class EventHook:
    """When an event wants to be called (PAMS's ``pams.events.EventHook``).

    An event's ``hook_registration`` returns these: each names a moment
    (before or after an order, a cancel, a session or a market's step; after
    an execution) and, optionally, the steps and markets it applies to.

    Args:
        event (EventABC): the event to call.
        hook_type (str): "order", "cancel", "execution", "session" or
            "market" (a market's step).
        is_before (bool): call the event before the moment (True) or after
            it (False); an "execution" hook is after only.
        time (List[int] | None): the steps at which the hook fires (None:
            every step).
        specific_class (Type[Market] | None): for a "market" hook, fire for
            markets of this class only.
        specific_instance (Market | None): for a "market" hook, fire for this
            market only.

    Raises:
        ValueError: an unknown hook_type, an "execution" hook before, or
            specific_class / specific_instance on a hook that is not a
            "market" one or that are not a Market class / instance.
    """

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

    def __setattr__(self, name: str, value: Any) -> None:
        # Once registered, the engine holds its own copy of the hook (PAMS's
        # triggers read event, specific_class and specific_instance from the
        # object, and its events_dict was filed by hook_type, is_before and
        # time): a change would not reach it.
        if name in _HOOK_FIELDS and self.__dict__.get("_in_engine"):
            raise AttributeError(
                f"EventHook.{name}: the hook is registered in a pams_cpp simulation, whose "
                "engine keeps its own copy of it, so a change would not reach it: register "
                "a new EventHook instead (from hook_registration, or with "
                "simulator._add_event)")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__module__}.{self.__class__.__name__} | "
            f"hook_type={self.hook_type}, is_before={self.is_before}, time={self.time}, "
            f"specific_class={self.specific_class}, "
            f"specific_instance={self.specific_instance}, event={self.event}>"
        )


_FIXED = ("{cls}.{name} is the engine's: the engine's event was made with it and reads its "
          "own, so a new one would not reach it. Make the event with the value instead")

# What assigning a built-in event's field says.
ENGINE_FIELD = (
    "{cls}.{name} is the engine's event's (set from the config when the event is set up, "
    "then kept by the engine's code), which would not see a new value: set it in the "
    "event's config, or override the event's hooked_* methods (calling super() where "
    "the built-in behaviour is wanted)")


class EventABC(ABC):
    """The base of events written in Python (PAMS's ``pams.events.EventABC``).

    An event changes the simulation at moments it chooses: subclass this,
    implement ``hook_registration`` (and the ``hooked_*`` methods of the
    moments it registers), and register the class with
    ``runner.class_register(cls)`` so that configs may name it. The runner
    builds each event of the config with these arguments, then calls
    ``setup(settings)`` and ``hook_registration()`` once.

    Args:
        event_id (int): the event's id, unique in its simulator.
        prng (random.Random): the event's own generator.
        session (Session): the session the event belongs to.
        simulator (Simulator): the simulator that runs it.
        name (str): the event's name.

    Raises:
        TypeError: built by hand in a pams_cpp simulation with a prng that
            is not a random.Random or a session that is not a pams_cpp
            Session.

    Note:
        The engine calls only the ``hooked_*`` methods a hook registered;
        a ``hooked_before_order`` may change the order it gets, and the
        engine takes the change, as PAMS's runner does.
    """

    # The engine's class this class's events are made of (subclasses of the
    # built-in events name theirs).
    _engine_base = "Event"
    # The engine event (set by the runner before __init__).
    _engine: Any = None

    # PAMS's plain attributes that the engine has too: fixed once the event
    # has its engine event (see _attributes.fixed). prng stays a plain
    # attribute: the engine's events draw nothing, as PAMS's.
    event_id = Assigned(fixed(_FIXED), "int: the event's id (fixed once the engine has it).",
                        deleted="the engine knows the event by it")
    name = Assigned(fixed(_FIXED), "str: the event's name (fixed once the engine has it).",
                    deleted="the engine knows the event by it")
    session = Assigned(fixed(_FIXED), "Session: the session the event belongs to.",
                       deleted="the engine's event belongs to it")
    simulator = Assigned(fixed(_FIXED), "Simulator: the simulator the event belongs to.",
                         deleted="the engine's event belongs to it")

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
        """Reads the event's config keys (called once, after construction).

        Args:
            settings (Dict[str, Any]): the event's object in the config.

        Note:
            The base reads nothing; subclasses read their keys here.
        """

    @abstractmethod
    def hook_registration(self) -> List[EventHook]:
        """The moments at which the simulation calls this event.

        Returns:
            List[EventHook]: the hooks (one per moment); called once, after
            setup.
        """

    def hooked_before_order(self, simulator, order) -> None:  # noqa: B027
        """Called before an order reaches its market (an "order" hook, before).

        Args:
            simulator (Simulator): the simulator.
            order (Order): the order; changing it (price, volume, ...)
                changes what the market gets.
        """

    def hooked_after_order(self, simulator, order_log) -> None:  # noqa: B027
        """Called after a market accepted an order (an "order" hook, after).

        Args:
            simulator (Simulator): the simulator.
            order_log (OrderLog): the record of the accepted order.
        """

    def hooked_before_cancel(self, simulator, cancel) -> None:  # noqa: B027
        """Called before a cancel reaches its market (a "cancel" hook, before).

        Args:
            simulator (Simulator): the simulator.
            cancel (Cancel): the cancel.
        """

    def hooked_after_cancel(self, simulator, cancel_log) -> None:  # noqa: B027
        """Called after a market accepted a cancel (a "cancel" hook, after).

        Args:
            simulator (Simulator): the simulator.
            cancel_log (CancelLog): the record of the cancel.
        """

    def hooked_after_execution(self, simulator, execution_log) -> None:  # noqa: B027
        """Called after a buy and a sell order executed (an "execution" hook).

        Args:
            simulator (Simulator): the simulator.
            execution_log (ExecutionLog): the record of the execution.
        """

    def hooked_before_session(self, simulator, session) -> None:  # noqa: B027
        """Called before a session's first step (a "session" hook, before).

        Args:
            simulator (Simulator): the simulator.
            session (Session): the session about to start.
        """

    def hooked_after_session(self, simulator, session) -> None:  # noqa: B027
        """Called after a session's last step (a "session" hook, after).

        Args:
            simulator (Simulator): the simulator.
            session (Session): the session that ended.
        """

    def hooked_before_step_for_market(self, simulator, market) -> None:  # noqa: B027
        """Called at the start of a step, for each market (a "market" hook,
        before).

        Args:
            simulator (Simulator): the simulator.
            market (Market): the market whose step begins.
        """

    def hooked_after_step_for_market(self, simulator, market) -> None:  # noqa: B027
        """Called at the end of a step, for each market (a "market" hook,
        after).

        Args:
            simulator (Simulator): the simulator.
            market (Market): the market whose step ended.
        """


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
    from .._arguments import id_of
    from .._arguments import str_of

    owner = type(event).__name__
    event._engine = context.new_event(event, _event_class(type(event), None),
                                      id_of(owner, "event_id", event_id), *state_of(prng),
                                      session, str_of(owner, "name", name))


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

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("pams_cpp."):
            refuse_assignments(cls, ENGINE_FIELD)  # the built-in classes' fields
            engine_methods(cls, EVENT_METHODS)  # their methods the engine runs

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


# The methods the engine runs in C++ for classes that do not override them:
# assigning one on an event is refused (see _attributes.EngineMethod).
engine_methods(EventABC, EVENT_METHODS)
engine_methods(BuiltinEvent, EVENT_METHODS)

__all__ = ["EventABC", "EventHook"]
