"""What a Python agent's task carries between the main process and a worker
of MultiProcessAgentParallelRunner, besides the engine's part (cash,
volumes, the generator): the agent's own fields, pickled.

To a worker: the fields (``__dict__`` without the engine's, or what the
class's ``__getstate__`` gives, which lets a class limit what travels).
From a worker: the fields and the Order and Cancel objects its
``submit_orders`` returned, in one pickle, so that the orders the agent
keeps and those the main process's market updates stay the same objects.
Orders already in a book travel by id and come back as the main process's
own objects.
"""
import contextvars
import copyreg
import io
import pickle
from typing import Any
from typing import Callable
from typing import List
from typing import Optional
from typing import Tuple

from ..order import Order

# The fields the engine gives every agent (the same objects in each process).
_ENGINE_FIELDS = frozenset({"_engine", "prng", "simulator", "logger", "agent_id", "name"})


def _own_state(agent: Any) -> Tuple[str, Any]:
    if type(agent).__getstate__ is not object.__getstate__:
        return ("getstate", agent.__getstate__())
    return ("dict", {k: v for k, v in vars(agent).items() if k not in _ENGINE_FIELDS})


def _set_own_state(agent: Any, state: Tuple[str, Any]) -> None:
    kind, value = state
    if kind == "getstate" and hasattr(agent, "__setstate__"):
        agent.__setstate__(value)
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


def dumps(agent: Any, actions: List[Any], in_worker: bool) -> bytes:
    """The agent's fields and, from a worker, its actions."""
    state = (list(actions), _own_state(agent))
    if not in_worker:
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _BY_ID
    pickler.dump(state)
    return out.getvalue()


def loads(agent: Any, blob: bytes, find_order: Callable[[int, int], Any]) -> List[Any]:
    """Sets the agent's fields from `blob`; returns the actions that came
    with them."""
    token = _find_order.set(find_order)
    try:
        actions, state = pickle.loads(blob)
    finally:
        _find_order.reset(token)
    _set_own_state(agent, state)
    return actions
