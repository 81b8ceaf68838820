"""Fundamentals: the fundamental price processes of a simulation's markets
(PAMS's ``pams.fundamentals.Fundamentals``), as ``simulator.fundamentals``
or built by hand, ``Fundamentals(prng=random.Random(42))``.

Geometric Brownian motions, correlated where the config says so, drawn in
chunks from their own numpy-compatible generator as PAMS draws them. Its
methods and attributes have PAMS's names (``get_fundamental_price(market_id,
time)``, ``change_drift(market_id, drift, time=0)``, ``prices``,
``correlation``, ...).
"""
import random
from collections.abc import MutableMapping

from . import _core
from ._random import EngineRandom
from ._random import set_state_of
from ._random import state_of

Fundamentals = _core.Fundamentals


class _Correlations(MutableMapping):
    """PAMS's correlation dict {(market_id1, market_id2): corr}, read from
    and written to the engine's (unchecked, as PAMS's dict)."""

    __slots__ = ("_f",)

    def __init__(self, fundamentals) -> None:
        self._f = fundamentals

    def _items(self):
        return [((a, b), c) for a, b, c in self._f._correlation_items()]

    def __getitem__(self, key):
        for k, c in self._items():
            if k == key:
                return c
        raise KeyError(key)

    def __setitem__(self, key, corr) -> None:
        a, b = key
        self._f._set_correlation_entry(int(a), int(b), float(corr))

    def __delitem__(self, key) -> None:
        a, b = key
        self._f._erase_correlation_entry(int(a), int(b))

    def __iter__(self):
        return iter([k for k, _ in self._items()])

    def __len__(self) -> int:
        return len(self._items())

    def __repr__(self) -> str:
        return repr(dict(self._items()))


class _NumpyGenerator:
    """The Fundamentals' numpy generator (PAMS's _np_prng): its uniform
    draws, as numpy.random.Generator.random."""

    __slots__ = ("_f",)

    def __init__(self, fundamentals) -> None:
        self._f = fundamentals

    def random(self, size=None):
        """size uniform draws in [0, 1) (one float when size is None)."""
        return self._f._np_random(size)


def _new(cls, prng: random.Random, *args, **kwargs):
    """Fundamentals built by hand: numpy's generator is seeded from
    prng.randint(0, 2**31), as in PAMS."""
    if not isinstance(prng, random.Random):
        raise TypeError(f"prng must be a random.Random, got {type(prng).__name__}")
    fundamentals = _core._new_fundamentals(cls, *state_of(prng))
    words, index, gauss = fundamentals._engine_prng().state()
    set_state_of(prng, words, index, gauss)
    fundamentals._prng = prng
    return fundamentals




def _prng(self) -> random.Random:
    """The Fundamentals' generator."""
    prng = vars(self).get("_prng")
    return prng if prng is not None else EngineRandom(_generator=self._engine_prng())


def _set_prng(self, prng) -> None:
    vars(self)["_prng"] = prng


Fundamentals.__module__ = __name__
Fundamentals._prng = property(_prng, _set_prng)
Fundamentals._np_prng = property(lambda self: _NumpyGenerator(self))
Fundamentals.correlation = property(lambda self: _Correlations(self),
                                    doc="Dict[Tuple[int, int], float]: the correlations set, by "
                                        "(market_id1, market_id2); a live mapping.")

__all__ = ["Fundamentals"]
