"""Attributes of engine-backed objects that a program may assign as PAMS's
plain attributes, where the engine must hear of the assignment (or refuse
it, saying what to do instead), and lists the engine owns.

``Assigned`` is a data descriptor without ``__get__``: reading the
attribute finds the value in the instance's ``__dict__`` as a plain
attribute's would (no Python call: agents read ``self.prng`` and
``self.agent_id`` at every step), and only assignments run Python code.
"""
import functools
from typing import Any
from typing import Callable
from typing import Optional


class Assigned:
    """An attribute kept in the instance's ``__dict__`` whose assignments
    go through ``adopt(obj, value)``, which returns what to keep (or raises).

    Args:
        adopt: called as adopt(obj, name, value) on each assignment.
        doc: the attribute's documentation.
        deleted: what deleting the attribute says (AttributeError); None:
            deleting is allowed (the instance's entry goes).
    """

    def __init__(self, adopt: Callable[[Any, str, Any], Any], doc: str,
                 deleted: Optional[str] = None) -> None:
        self.name = ""
        self._adopt = adopt
        self._deleted = deleted
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.name] = self._adopt(obj, self.name, value)

    def __delete__(self, obj: Any) -> None:
        if self._deleted is not None:
            raise AttributeError(f"{type(obj).__name__}.{self.name} cannot be deleted: "
                                 f"{self._deleted}")
        try:
            del obj.__dict__[self.name]
        except KeyError:
            raise AttributeError(self.name) from None


def fixed(why: str, engine: str = "_engine") -> Callable[[Any, str, Any], Any]:
    """An adopt for Assigned: on an object with an engine part (its
    attribute `engine` in its __dict__, not None) the first value stays;
    assigning it again is allowed, another value raises AttributeError
    saying `why` (formatted with the object's class as {cls} and the
    attribute as {name}). An object without one keeps any value."""
    def adopt(obj: Any, name: str, value: Any) -> Any:
        fields = obj.__dict__
        if (name not in fields or fields.get(engine) is None or fields[name] is value
                or _same_value(fields[name], value)):
            return value
        raise AttributeError(why.format(cls=type(obj).__name__, name=name))
    return adopt


def _same_value(a: Any, b: Any) -> bool:
    """Whether a and b are equal ints or strs (an id or a name given again as
    an equal value, not the same object)."""
    return type(a) is type(b) and isinstance(a, (int, str)) and a == b


_ADD_INSTEAD = ("Add objects with the simulator's _add_* methods (pams_cpp cannot remove "
                "them: make a new runner or simulator)")


class RefusingList(list):
    """A list copied from the engine that refuses changes, which would change
    nothing in the simulation: every mutator raises TypeError with the
    subclass's _refusal(). Copies and pickles of it are plain lists."""

    __slots__ = ()

    def _refusal(self) -> str:
        raise NotImplementedError

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(self._refusal())

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __reduce__(self):
        return (list, (list(self),))


class EngineList(RefusingList):
    """A list of the engine's objects (the simulator's agents, markets, ...):
    reading is a list's; changing it raises TypeError naming what to call
    instead, since the engine would not see the change."""

    __slots__ = ("_what", "_instead")

    def __init__(self, items: Any = (), what: str = "", instead: str = _ADD_INSTEAD) -> None:
        super().__init__(items)
        self._what = what
        self._instead = instead

    def _refusal(self) -> str:
        return (f"{self._what} is the engine's, which reads its own: changing this "
                f"copy would change nothing in the simulation. {self._instead}")

    def copy(self) -> list:
        """A list with the same items (PAMS's list.copy())."""
        return list(self)

    def __copy__(self) -> list:
        return list(self)

    def __deepcopy__(self, memo: dict) -> list:
        import copy

        return [copy.deepcopy(x, memo) for x in self]


class EngineDict(dict):
    """A dict of the engine's objects by id or name (the simulator's
    id2agent, ...): reading is a dict's; changing it raises TypeError, as
    EngineList."""

    __slots__ = ("_what", "_instead")

    def __init__(self, items: Any = (), what: str = "", instead: str = _ADD_INSTEAD) -> None:
        super().__init__(items)
        self._what = what
        self._instead = instead

    _refusal = EngineList._refusal
    _refuse = RefusingList._refuse
    __setitem__ = __delitem__ = __ior__ = pop = popitem = clear = _refuse
    update = setdefault = _refuse

    def __reduce__(self):
        return (dict, (dict(self),))

    def copy(self) -> dict:
        """A dict with the same items (PAMS's dict.copy())."""
        return dict(self)

    def __copy__(self) -> dict:
        return dict(self)

    def __deepcopy__(self, memo: dict) -> dict:
        import copy

        return {copy.deepcopy(k, memo): copy.deepcopy(v, memo) for k, v in self.items()}


def refuse_assignments(cls: type, why: str) -> None:
    """Gives each property of cls (its own, without a setter) a setter and a
    deleter raising AttributeError with `why` (formatted with {cls} and
    {name}): PAMS's plain attribute is the engine's value here, which the
    assignment would not change."""
    for name, value in list(vars(cls).items()):
        if isinstance(value, property) and value.fset is None:
            setattr(cls, name, property(value.fget, _refusal(name, why), _refusal(name, why),
                                        value.__doc__))


def _refusal(name: str, why: str) -> Callable[..., None]:
    def refuse(obj: Any, *value: Any) -> None:
        raise AttributeError(why.format(cls=type(obj).__name__, name=name))
    refuse.__name__ = name
    return refuse


class EngineMethod:
    """A method of a built-in class that the engine runs in C++ for objects
    of classes not overriding it: reading it is the function's (bound as
    usual), and assigning it on an engine-backed object raises
    AttributeError, since the engine would not call the object's own (PAMS
    calls it). A subclass overriding the method is called by the engine,
    and so is a function assigned on such a subclass's object."""

    def __init__(self, func: Callable[..., Any]) -> None:
        functools.update_wrapper(self, func)
        self.__func__ = func
        self.name = func.__name__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @property
    def __isabstractmethod__(self) -> bool:
        return getattr(self.__func__, "__isabstractmethod__", False)

    def __get__(self, obj: Any, cls: Optional[type] = None) -> Any:
        if obj is None:
            return self.__func__
        own = obj.__dict__.get(self.name)  # an object without an engine may have its own
        return own if own is not None else self.__func__.__get__(obj, cls)

    def __set__(self, obj: Any, value: Any) -> None:
        if obj.__dict__.get("_engine") is not None:
            cls = type(obj).__name__
            raise AttributeError(
                f"{cls}.{self.name} assigned on one object: {cls} does not override "
                f"{self.name}, so the engine runs the built-in one in C++ and would not call "
                f"this object's. Override {self.name} in a subclass (registered with the "
                "runner) instead")
        obj.__dict__[self.name] = value

    def __delete__(self, obj: Any) -> None:
        if obj.__dict__.pop(self.name, None) is None:
            raise AttributeError(self.name)


def engine_methods(cls: type, names: Any) -> None:
    """Makes each of `names` that cls defines an EngineMethod."""
    for name in names:
        func = vars(cls).get(name)
        if func is not None and not isinstance(func, EngineMethod):
            setattr(cls, name, EngineMethod(func))
