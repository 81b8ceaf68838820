"""The arguments of PAMS's objects built by hand, checked in Python before
they reach the engine: each function returns the value as the engine keeps
it, or raises TypeError / ValueError naming the class, the argument and
what it must be (PAMS takes any value there, and fails later, if at all,
with an error of its own; the engine keeps ids in vectors indexed by id,
names as strings)."""
import operator

# The ids of objects built by hand: the engine indexes vectors by them
# (python/src/interop/arguments.h, kMaxHandBuiltId).
MAX_ID = 10 ** 8
# The steps such objects may be moved to (kMaxHandBuiltStep).
MAX_STEP = 10 ** 8


def describe(value) -> str:
    """'x' (str): a value as a message shows it."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001  (a repr that raises: the type says enough)
        text = "<unprintable>"
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def int_of(owner: str, name: str, value) -> int:
    """An int (a bool or a numpy integer too): TypeError otherwise."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{owner}: {name} must be an int, got {describe(value)}") from None


def id_of(owner: str, name: str, value) -> int:
    """An id in [0, 10**8): TypeError or ValueError otherwise."""
    out = int_of(owner, name, value)
    if not 0 <= out < MAX_ID:
        raise ValueError(f"{owner}: {name} must be an id in [0, 10**8), got {out}")
    return out


def step_of(owner: str, name: str, value, lowest: int = 0) -> int:
    """A step in [lowest, 10**8]: TypeError or ValueError otherwise."""
    out = int_of(owner, name, value)
    if not lowest <= out <= MAX_STEP:
        raise ValueError(f"{owner}: {name} must be a step in [{lowest}, 10**8], got {out}")
    return out


def str_of(owner: str, name: str, value) -> str:
    """A str: TypeError otherwise (the simulator finds objects by name)."""
    if not isinstance(value, str):
        raise TypeError(f"{owner}: {name} must be a str, got {describe(value)}")
    return value
