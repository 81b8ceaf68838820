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
import io
import pickle
from typing import Any
from typing import Callable
from typing import List
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


class _Pickler(pickle.Pickler):
    def __init__(self, file, by_id: bool) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._by_id = by_id

    def persistent_id(self, obj: Any):
        if self._by_id and type(obj) is Order and obj.order_id is not None:
            return ("order", obj.market_id, obj.order_id, dict(vars(obj)))
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, find_order: Callable[[int, int], Any]) -> None:
        super().__init__(file)
        self._find_order = find_order

    def persistent_load(self, pid: Any) -> Any:
        _, market_id, order_id, fields = pid
        order = self._find_order(market_id, order_id)
        if order is None:  # no longer in a book: a copy does
            order = Order.__new__(Order)
            vars(order).update(fields)
        return order


def dumps(agent: Any, actions: List[Any], in_worker: bool) -> bytes:
    """The agent's fields and, from a worker, its actions."""
    out = io.BytesIO()
    _Pickler(out, by_id=in_worker).dump((list(actions), _own_state(agent)))
    return out.getvalue()


def loads(agent: Any, blob: bytes, find_order: Callable[[int, int], Any]) -> List[Any]:
    """Sets the agent's fields from `blob`; returns the actions that came
    with them."""
    actions, state = _Unpickler(io.BytesIO(blob), find_order).load()
    _set_own_state(agent, state)
    return actions
