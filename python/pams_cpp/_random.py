"""EngineRandom: a random.Random whose state is one of the engine's
generators (an agent's, a market's, an event's, or its own).

Every random.Random method works on it (isinstance(x, random.Random) holds):
the ones that hold state (random, getrandbits, gauss with its cached second
value, getstate, setstate, seed) draw from or set the engine's generator,
and CPython's own methods build everything else (randint, choice, sample,
shuffle, uniform, ...) on random() and getrandbits(). So Python code and the
engine's C++ code draw from one stream, interleaved exactly as in PAMS,
bit for bit.
"""
import random

from . import _core

_VERSION = 3  # random.Random's state version


class EngineRandom(random.Random):
    """A random.Random backed by an engine generator."""

    def __new__(cls, *args, **kwargs):
        # random.Random's own state is never used: seed it with 0 (cheap)
        # rather than from os.urandom.
        return super().__new__(cls, 0)

    def __init__(self, x=None, *, _generator=None):  # noqa: D107
        # Not random.Random.__init__, which would seed: an engine generator
        # already has its state.
        self._generator = _generator if _generator is not None else _core.Generator()
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


def bind_to_engine(prng: random.Random, generator) -> bool:
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
    return True


def state_of(prng: random.Random):
    """(words, index, gauss_next) of any random.Random."""
    _, internal, gauss_next = prng.getstate()
    return list(internal[:-1]), internal[-1], gauss_next


def set_state_of(prng: random.Random, words, index, gauss_next) -> None:
    """Sets any random.Random to the state (words, index, gauss_next)."""
    prng.setstate((_VERSION, tuple(words) + (index,), gauss_next))
