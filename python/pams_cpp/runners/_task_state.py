"""What a Python agent's task carries between the main process and a worker
of MultiProcessAgentParallelRunner, besides the engine's part (cash,
volumes, the generator): the agent's own fields, pickled.

To a worker: the fields (``__dict__`` without the engine's, or what the
class's ``__getstate__`` gives, which lets a class limit what travels) and
the names the agent lists in ``synced_attributes`` (read here, in the main
process, as PAMS's development branch reads them).
From a worker: the Order and Cancel objects its ``submit_orders``
returned and the fields, in one pickle, so that the orders the agent keeps
and those the main process's market updates stay the same objects: every
field when the agent lists no ``synced_attributes`` (None), else only the
listed ones, with the names of the fields the call changed but did not
list (their changes are lost; the main process warns once per class and
name). Orders already in a book travel by id and come back as the main
process's own objects.
"""
import contextvars
import copyreg
import io
import pickle
from typing import Any
from typing import Callable
from typing import Dict
from typing import List
from typing import Optional
from typing import Set
from typing import Tuple

from .._warnings import warn as warn_at_user_line
from ..order import Order

# The fields the engine gives every agent (the same objects in each process;
# the volumes' dict reads the engine's, whose volumes travel in C++).
_ENGINE_FIELDS = frozenset({"_engine", "prng", "simulator", "logger", "agent_id", "name",
                            "asset_volumes"})


# Names an agent cannot list in synced_attributes: the runner and the engine
# manage them, and "__dict__" would be every field.
UNSYNCABLE = ("simulator", "logger", "prng", "_engine", "__dict__")

# The first words of the warning about changes that did not come back (the
# branch's, so that filters written for it match).
UNSYNCED_CHANGES_WARNING = "Changes to attributes not listed in synced_attributes are lost"


class SyncedAttributesError(TypeError, ValueError):
    """A synced_attributes that is not a tuple or list of str: a TypeError,
    and a ValueError as PAMS's development branch raises for it."""


def check_synced_attributes(cls: type, value: Any) -> Optional[Tuple[str, ...]]:
    """The names `value` (an agent's synced_attributes, its class `cls`)
    lists, or None (every field travels).

    Raises:
        SyncedAttributesError: not None, a tuple or a list of str.
        ValueError: a name of UNSYNCABLE.
    """
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or not all(isinstance(n, str) for n in value):
        raise SyncedAttributesError(
            f"{cls.__name__}.synced_attributes must be None (every attribute comes back from "
            f"a worker process) or a tuple or list of attribute names (str), got {value!r}")
    for name in value:
        if name in UNSYNCABLE:
            why = ("it would be every attribute of the agent" if name == "__dict__" else
                   "the runner gives every process its own")
            raise ValueError(f"{cls.__name__}.synced_attributes must not list {name!r}: {why}")
    return tuple(value)


def synced_names(agent: Any) -> Optional[Tuple[str, ...]]:
    """What agent lists in synced_attributes, checked (see
    check_synced_attributes)."""
    return check_synced_attributes(type(agent), getattr(agent, "synced_attributes", None))


def _own_state(agent: Any) -> Tuple[str, Any]:
    if type(agent).__getstate__ is not object.__getstate__:
        return ("getstate", agent.__getstate__())
    return ("dict", {k: v for k, v in vars(agent).items() if k not in _ENGINE_FIELDS})


def _set_own_state(agent: Any, state: Tuple[str, Any]) -> None:
    kind, value = state
    if kind == "getstate" and hasattr(agent, "__setstate__"):
        fields = vars(agent)
        kept = {k: fields[k] for k in _ENGINE_FIELDS if k in fields}
        agent.__setstate__(value)
        fields.update(kept)  # what a __setstate__ set of them is this process's own
        return
    fields = vars(agent)
    for key in [k for k in fields if k not in _ENGINE_FIELDS and k not in value]:
        del fields[key]  # a field submit_orders deleted
    fields.update(value)


# While loads runs: the main process's lookup of its orders by id.
_find_order: contextvars.ContextVar[Optional[Callable[[int, int], Any]]] = (
    contextvars.ContextVar("pams_cpp_find_order", default=None))


def _order_by_id(market_id: int, order_id: int, fields: dict) -> Any:
    """Unpickles an order a worker sent by id: the main process's object, or
    a copy when it is no longer in a book."""
    find = _find_order.get()
    order = find(market_id, order_id) if find is not None else None
    if order is None:
        order = Order.__new__(Order)
        vars(order).update(fields)
    return order


def _reduce_order(order: Order) -> Any:
    if order.order_id is None:  # a new order: a copy is the object
        return order.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    return (_order_by_id, (order.market_id, order.order_id, dict(vars(order))))


# A worker's pickler: Orders in a book by id, everything else as usual. A
# dispatch table (looked up by the C pickler for Orders only) rather than
# persistent_id, which the pickler calls in Python for every object: a
# task's state took three times as long.
_BY_ID = copyreg.dispatch_table.copy()
_BY_ID[Order] = _reduce_order


# In a worker, for each agent whose task is running: the names it lists and
# its fields as the task began (to find what the call changed but does not
# list), by id(agent), from loads to dumps.
_task_names: Dict[int, Tuple[Tuple[str, ...], Dict[str, Any]]] = {}

# In the main process: the (class, name) pairs warned about, for this run
# (see reset_warnings).
_warned: Set[Tuple[type, str]] = set()

# In the main process, while a runner runs: its
# _receive_synced_attributes_from_worker (see receiving).
_receiver: contextvars.ContextVar[Optional[Callable[[Any, Dict[str, Any]], None]]] = (
    contextvars.ContextVar("pams_cpp_synced_receiver", default=None))


def reset_warnings() -> None:
    """Forgets the pairs warned about (a new run warns again)."""
    _warned.clear()


class receiving:
    """While in effect, listed attributes that come back from workers are
    given to `receive(agent, attributes)` (a runner's
    _receive_synced_attributes_from_worker) instead of set directly."""

    def __init__(self, receive: Callable[[Any, Dict[str, Any]], None]) -> None:
        self._receive = receive

    def __enter__(self) -> "receiving":
        self._token = _receiver.set(self._receive)
        return self

    def __exit__(self, *exc: Any) -> None:
        _receiver.reset(self._token)


def set_synced_attributes(agent: Any, attributes: Dict[str, Any]) -> None:
    """Sets each name agent lists to its value in `attributes`, and deletes
    the listed names `attributes` lacks (the call deleted them; one only
    the class has stays)."""
    for name in synced_names(agent) or ():
        if name in _ENGINE_FIELDS:
            continue  # the same in every process
        if name in attributes:
            setattr(agent, name, attributes[name])
            continue
        try:
            delattr(agent, name)
        except AttributeError:
            pass


def _unsynced_changes(before: Dict[str, Any], after: Dict[str, Any],
                      names: Tuple[str, ...]) -> Tuple[str, ...]:
    """The fields assigned (another object), added or deleted between
    `before` and `after` that `names` does not list, sorted."""
    changed = [k for k, v in after.items() if k not in before or before[k] is not v]
    changed += [k for k in before if k not in after]
    return tuple(sorted(k for k in changed
                        if k not in names and k not in _ENGINE_FIELDS))


def dumps(agent: Any, actions: List[Any], in_worker: bool) -> bytes:
    """The agent's fields and, from a worker, its actions (see the module's
    doc)."""
    if not in_worker:
        state = (list(actions), _own_state(agent), synced_names(agent))
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    task = _task_names.pop(id(agent), None)
    if task is None:
        state = (list(actions), _own_state(agent))
    else:
        names, before = task
        fields = vars(agent)
        listed = {n: fields[n] for n in names if n in fields and n not in _ENGINE_FIELDS}
        state = (list(actions), ("synced", listed, _unsynced_changes(before, fields, names)))
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _BY_ID
    pickler.dump(state)
    return out.getvalue()


def loads(agent: Any, blob: bytes, find_order: Callable[[int, int], Any]) -> List[Any]:
    """Sets the agent's fields from `blob` (all of them, or in the main
    process only the listed ones); returns the actions that came with
    them."""
    token = _find_order.set(find_order)
    try:
        loaded = pickle.loads(blob)
    finally:
        _find_order.reset(token)
    actions, state = loaded[0], loaded[1]
    if len(loaded) > 2:  # in a worker: the main process's fields and names
        _set_own_state(agent, state)
        names = loaded[2]
        if names is None:
            _task_names.pop(id(agent), None)
        else:
            _task_names[id(agent)] = (names, dict(vars(agent)))
        return actions
    if state[0] == "synced":
        _, listed, unsynced = state
        if unsynced:
            _warn_unsynced(agent, unsynced)
        receive = _receiver.get()
        if receive is not None:
            receive(agent, listed)
        else:
            set_synced_attributes(agent, listed)
        return actions
    _set_own_state(agent, state)
    return actions


def _warn_unsynced(agent: Any, names: Tuple[str, ...]) -> None:
    cls = type(agent)
    new = [n for n in names if (cls, n) not in _warned]
    if not new:
        return
    _warned.update((cls, n) for n in new)
    # At the user's line (the runner's main()), as the engine's warnings are.
    warn_at_user_line(
        f"{UNSYNCED_CHANGES_WARNING}: {cls.__name__} assigned or deleted "
        f"{', '.join(repr(n) for n in new)} in submit_orders in a worker process, which "
        f"{cls.__name__}.synced_attributes does not list, so the main process keeps the old "
        f"values: list them in {cls.__name__}.synced_attributes to keep the changes",
        UserWarning)
