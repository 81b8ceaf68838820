"""EngineRandom: a random.Random whose state is one of the engine's
generators (an agent's, a market's, an event's, or its own).

Every random.Random method works on it (isinstance(x, random.Random) holds):
the ones that hold state (random, getrandbits, gauss with its cached second
value, getstate, setstate, seed) draw from or set the engine's generator,
and CPython's own methods build everything else (randint, choice, sample,
shuffle, uniform, ...) on random() and getrandbits(). So Python code and the
engine's C++ code draw from one stream, interleaved exactly as in PAMS,
bit for bit.

A user's random.Random given to an engine object after it was made
(``agent.prng = random.Random(5)``, ``runner._prng = ...``) becomes that
object's view with ``adopt``: its state is copied into the engine's
generator and the object itself is rebound to it, so the object stays the
user's, live; the view the owner had before is ``release``d into a
generator of its own, as the old object is in PAMS.
"""
import random
from typing import Dict

from . import _core

_VERSION = 3  # random.Random's state version


class EngineRandom(random.Random):
    """A random.Random backed by an engine generator."""

    def __new__(cls, *args, **kwargs):
        # random.Random's own state is never used: seed it with 0 (cheap)
        # rather than from os.urandom.
        return super().__new__(cls, 0)

    def __init__(self, x=None, *, _generator=None, _owner="a pams_cpp object"):  # noqa: D107
        # Not random.Random.__init__, which would seed: an engine generator
        # already has its state.
        self._generator = _generator if _generator is not None else _core.Generator()
        # The engine object that draws from _generator besides this object
        # (named in messages); None: no other draws from it (the generator
        # is this object's own, or one the engine never draws from: a
        # session's, an event's, the simulator's), so that the object may be
        # given to another engine object as PAMS's may.
        self._owner = None if _generator is None else _owner
        if _generator is None:
            self.seed(x)

    def seed(self, a=None, version=2):
        """As random.Random.seed (the same seeds give the same draws)."""
        # CPython seeds a generator of its own: the result is exactly what
        # this Python makes of `a` (an int, a str, bytes, None, ...).
        reference = random.Random()
        reference.seed(a, version)
        self.setstate(reference.getstate())

    def random(self):
        """The next float in [0, 1)."""
        return self._generator.random()

    def getrandbits(self, k):
        """An int with k random bits."""
        return self._generator.getrandbits(k)

    def gauss(self, mu=0.0, sigma=1.0):
        """As random.Random.gauss, with its cached second value in the engine."""
        return self._generator.gauss(mu, sigma)

    def getstate(self):
        """random.Random's state tuple (version, internal state, gauss_next)."""
        words, index, gauss_next = self._generator.state()
        return (_VERSION, tuple(words) + (index,), gauss_next)

    def setstate(self, state):
        """Sets the state from random.Random.getstate()'s tuple."""
        # CPython checks the tuple and says what is wrong with it.
        reference = random.Random()
        reference.setstate(state)
        _, internal, gauss_next = reference.getstate()
        self._generator.set_state(list(internal[:-1]), internal[-1], gauss_next)


def bind_to_engine(prng: random.Random, generator, owner: str = "the runner") -> bool:
    """Makes prng, a random.Random in the state of the engine's `generator`,
    a view of it (an EngineRandom: the same object, drawing the same
    numbers from the engine's state), so that the engine and Python code
    share one generator without copying its state back and forth. Only a
    plain random.Random is changed (a subclass may draw its own way);
    returns whether prng is now generator's view."""
    if type(prng) is not random.Random:
        return isinstance(prng, EngineRandom) and prng._generator is generator
    prng.__class__ = EngineRandom
    prng._generator = generator
    prng._owner = owner
    return True


# random.Random's methods whose numbers the engine's C++ code computes itself
# from the Mersenne Twister state (the built-in agents' and the runner's
# draws): a subclass overriding one would make PAMS draw what the engine
# does not.
_ENGINE_DRAWS = ("random", "getrandbits", "gauss", "randint", "randrange", "_randbelow",
                 "choice", "choices", "sample", "shuffle")


def check_draws_as_random(cls: type, what: str) -> None:
    """Raises TypeError, naming `what` (e.g. "prng"), when the random.Random
    subclass cls overrides a method the engine draws with itself."""
    for name in _ENGINE_DRAWS:
        if getattr(cls, name, None) is not getattr(random.Random, name):
            raise TypeError(
                f"{what}: {cls.__name__} overrides {name}(), but the engine draws PAMS's "
                "numbers itself from the Mersenne Twister state getstate() gives, so it would "
                f"not draw what {cls.__name__} draws: use a random.Random (e.g. "
                "random.Random(seed))")


# The view class of each random.Random subclass adopted (see adopt): the
# subclass first, so that its own methods and attributes stay.
_VIEW_CLASSES: Dict[type, type] = {}


def _view_class(cls: type) -> type:
    """The EngineRandom class an object of cls becomes when adopted."""
    if cls is random.Random or issubclass(cls, EngineRandom):
        return EngineRandom if cls is random.Random else cls
    view = _VIEW_CLASSES.get(cls)
    if view is None:
        def __reduce__(self):  # noqa: N807  (pickles and copies as cls, as in PAMS)
            return (cls, (), self.getstate())

        view = type(cls.__name__, (cls, EngineRandom),
                    {"__module__": cls.__module__, "__qualname__": cls.__qualname__,
                     "__reduce__": __reduce__})
        _VIEW_CLASSES[cls] = view
    return view


def adopt(prng, generator, owner: str):
    """Makes `prng`, given to an engine object as its generator after the
    object was made, the view of that object's engine `generator`: the
    engine generator takes prng's state, and prng (the same object) draws
    from it from now on. `owner` names the attribute for messages
    ("agent FCNAgents-3's prng"). Returns prng.

    A random.SystemRandom stays as it is (it has no state: the engine's
    generator is seeded from it, a random run as in PAMS).

    Raises:
        TypeError: prng is not a random.Random, or a subclass drawing its own
            way (see check_draws_as_random).
        ValueError: prng is the generator of another engine object already:
            pams_cpp's objects draw each from a generator of their own.
    """
    if isinstance(prng, EngineRandom):
        if prng._generator is generator:
            return prng
        if prng._owner is not None:
            raise ValueError(
                f"{owner}: this random.Random is already the generator of {prng._owner}, and "
                "in pams_cpp each agent, event and runner draws from a generator of its own "
                "(its numbers are drawn in C++): give each its own, e.g. random.Random(seed), "
                "or a copy: copy.copy(prng)")
        state = prng._generator.state()
    elif not isinstance(prng, random.Random):
        raise TypeError(f"{owner} must be a random.Random (e.g. random.Random(seed)), got "
                        f"{type(prng).__module__}.{type(prng).__qualname__}")
    elif isinstance(prng, random.SystemRandom):
        generator.set_state(*state_of(random.Random(prng.getrandbits(128))))
        return prng
    else:
        check_draws_as_random(type(prng), owner)
        state = state_of(prng)
        prng.__class__ = _view_class(type(prng))
    generator.set_state(*state)
    prng._generator = generator
    prng._owner = owner
    return prng


def release(prng) -> None:
    """Makes prng, if it is the view of an engine generator, a generator of
    its own in the same state (what the object an owner gave up is: PAMS's
    old generator goes on from where it was, apart from the owner's)."""
    if isinstance(prng, EngineRandom) and prng._owner is not None:
        generator = _core.Generator()
        generator.set_state(*prng._generator.state())
        prng._generator = generator
        prng._owner = None


def state_of(prng: random.Random):
    """(words, index, gauss_next) of any random.Random."""
    _, internal, gauss_next = prng.getstate()
    return list(internal[:-1]), internal[-1], gauss_next


def set_state_of(prng: random.Random, words, index, gauss_next) -> None:
    """Sets any random.Random to the state (words, index, gauss_next)."""
    prng.setstate((_VERSION, tuple(words) + (index,), gauss_next))
