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
from collections.abc import MutableSequence

from . import _core
from ._attributes import RefusingList
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
        self._f._set_correlation_entry(*_pair(key), corr)

    def __delitem__(self, key) -> None:
        self._f._erase_correlation_entry(*_pair(key))

    def __iter__(self):
        return iter([k for k, _ in self._items()])

    def __len__(self) -> int:
        return len(self._items())

    def __repr__(self) -> str:
        return repr(dict(self._items()))


def _pair(key):
    """A correlation's key: a pair of market ids (TypeError otherwise)."""
    if not isinstance(key, tuple) or len(key) != 2:
        raise TypeError(f"Fundamentals.correlation: a key is a pair of market ids "
                        f"(market_id1, market_id2), got {key!r:.60}")
    return key


class _PerMarket(MutableMapping):
    """One of PAMS's dicts by market id (``drifts``, ``volatilities``,
    ``initials``, ``start_at``), live: read from the engine's paths, and an
    assignment ``f.drifts[1] = 0.02`` takes effect as in PAMS (the prices
    drawn next use it; ``change_drift`` also draws again from a step). A
    market joins and leaves them through ``add_market`` and
    ``remove_market``."""

    __slots__ = ("_f", "_name")

    def __init__(self, fundamentals, name: str) -> None:
        self._f = fundamentals
        self._name = name

    def __getitem__(self, market_id):
        return self._f._values(self._name)[market_id]

    def __setitem__(self, market_id, value) -> None:
        if market_id not in self:
            raise KeyError(f"Fundamentals.{self._name}[{market_id!r:.60}]: no such market; "
                           "add it with add_market(market_id, initial, drift, volatility)")
        self._f._set_value(self._name, market_id, value)

    def __delitem__(self, market_id) -> None:
        raise TypeError(f"Fundamentals.{self._name}: a market's entries leave with "
                        f"remove_market(market_id={market_id!r:.60}), not del")

    def __iter__(self):
        return iter(self._f._values(self._name))

    def __len__(self) -> int:
        return len(self._f._market_id_list())

    def __repr__(self) -> str:
        return repr(self._f._values(self._name))


class _PricePath(MutableSequence):
    """A market's fundamental prices drawn so far (PAMS's
    ``fundamentals.prices[market_id]``), live: indexing and slicing read the
    engine's path, and a change (``prices[1][t] = p``, ``append``, ``del``,
    a slice) sets the path, as PAMS's list would: the next prices drawn go
    on from ``prices[_generated_until]`` (PAMS's Market.change_fundamental_price
    does that, and moves ``_generated_until``)."""

    __slots__ = ("_f", "_id")

    def __init__(self, fundamentals, market_id) -> None:
        self._f = fundamentals
        self._id = market_id

    def _list(self) -> list:
        return self._f._prices_of(self._id)

    def __getitem__(self, index):
        return self._list()[index]

    def __setitem__(self, index, value) -> None:
        prices = self._list()
        prices[index] = value
        self._f._set_prices(self._id, prices)

    def __delitem__(self, index) -> None:
        prices = self._list()
        del prices[index]
        self._f._set_prices(self._id, prices)

    def insert(self, index, value) -> None:
        prices = self._list()
        prices.insert(index, value)
        self._f._set_prices(self._id, prices)

    def __len__(self) -> int:
        return len(self._list())

    def __iter__(self):
        return iter(self._list())

    def __eq__(self, other) -> bool:
        return self._list() == (list(other) if isinstance(other, _PricePath) else other)

    def __repr__(self) -> str:
        return repr(self._list())


class _Prices(MutableMapping):
    """PAMS's ``fundamentals.prices``: {market_id: that market's prices drawn
    so far}, each a live list (see _PricePath); ``prices[id] = [...]``
    replaces a market's path. A market joins and leaves through
    ``add_market`` and ``remove_market``."""

    __slots__ = ("_f",)

    def __init__(self, fundamentals) -> None:
        self._f = fundamentals

    def __getitem__(self, market_id) -> _PricePath:
        self._f._prices_of(market_id)  # KeyError for a market not added
        return _PricePath(self._f, market_id)

    def __setitem__(self, market_id, prices) -> None:
        if market_id not in self._f._market_id_list():
            raise KeyError(f"Fundamentals.prices[{market_id!r:.60}]: no such market; add it "
                           "with add_market(market_id, initial, drift, volatility)")
        self._f._set_prices(market_id, prices)

    def __delitem__(self, market_id) -> None:
        raise TypeError(f"Fundamentals.prices: a market's path leaves with "
                        f"remove_market(market_id={market_id!r:.60}), not del")

    def __iter__(self):
        return iter(self._f._market_id_list())

    def __len__(self) -> int:
        return len(self._f._market_id_list())

    def __repr__(self) -> str:
        return repr({i: self._f._prices_of(i) for i in self._f._market_id_list()})


class _MarketIds(RefusingList):
    """PAMS's ``fundamentals.market_ids`` (the markets in the order added),
    a copy that refuses changes: markets join and leave through
    ``add_market`` and ``remove_market``, which PAMS's list follows."""

    __slots__ = ()

    def _refusal(self) -> str:
        return ("Fundamentals.market_ids cannot be changed in place: add a market with "
                "add_market(...), remove one with remove_market(market_id)")


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


def _refusing(message: str):
    """A setter that raises AttributeError(message): what cannot be set,
    and what to do instead."""
    def refuse(self, value) -> None:
        raise AttributeError(message)
    return refuse


def _per_market(name: str, what: str) -> property:
    return property(
        lambda self: _PerMarket(self, name),
        _refusing(f"Fundamentals.{name} cannot be replaced as a whole in pams_cpp: set its "
                  f"entries (fundamentals.{name}[market_id] = value), or add markets with "
                  "add_market"),
        doc=f"Dict[int, float]: {what}, by market id; a live mapping (an entry set takes "
            "effect as in PAMS: the prices drawn next use it).")


Fundamentals.__module__ = __name__
Fundamentals._prng = property(_prng, _set_prng)
Fundamentals._np_prng = property(
    lambda self: _NumpyGenerator(self),
    _refusing("Fundamentals._np_prng cannot be replaced in pams_cpp: the engine draws from "
              "its own numpy-compatible generator, seeded from prng as PAMS seeds its; seed "
              "it with Fundamentals(prng=random.Random(seed))"),
    doc="numpy.random.Generator-like: the fundamentals' generator (random(size)).")
Fundamentals.correlation = property(
    lambda self: _Correlations(self),
    _refusing("Fundamentals.correlation cannot be replaced as a whole in pams_cpp: set its "
              "entries (fundamentals.correlation[(id1, id2)] = corr) or call "
              "set_correlation"),
    doc="Dict[Tuple[int, int], float]: the correlations set, by (market_id1, market_id2); "
        "a live mapping.")
Fundamentals.drifts = _per_market("drifts", "each market's drift per step")
Fundamentals.volatilities = _per_market("volatilities", "each market's volatility per step")
Fundamentals.initials = _per_market("initials", "each market's initial price")
Fundamentals.start_at = _per_market("start_at", "the step each market's process starts at")
Fundamentals.prices = property(
    lambda self: _Prices(self),
    _refusing("Fundamentals.prices cannot be replaced as a whole in pams_cpp: set a market's "
              "path (fundamentals.prices[market_id] = [...]) or its entries"),
    doc="Dict[int, List[float]]: each market's prices drawn so far, by id; live (a "
        "market's list or an entry set takes effect as in PAMS).")
Fundamentals.market_ids = property(
    lambda self: _MarketIds(self._market_id_list()),
    _refusing("Fundamentals.market_ids cannot be set in pams_cpp: add a market with "
              "add_market(...), remove one with remove_market(market_id)"),
    doc="List[int]: the ids of the markets added, in the order added (a copy that refuses "
        "changes: use add_market and remove_market).")
Fundamentals._generate_chunk_size = property(
    lambda self: 100,
    _refusing("Fundamentals._generate_chunk_size cannot be set in pams_cpp: the engine draws "
              "PAMS's chunks of 100 steps"),
    doc="int: the steps drawn at once (PAMS's 100).")

__all__ = ["Fundamentals"]
