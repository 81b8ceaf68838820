"""Market: one traded asset with its order books and histories (PAMS's
``pams.Market``).

A market's getters read as PAMS's do (``get_market_price(time=None)``,
``get_mid_price()`` returning None before both books have orders, an
AssertionError for a future time, ...), with PAMS's Python types.

Build one by hand as in PAMS, ``Market(market_id=0, prng=random.Random(42),
simulator=simulator, name="market")``: it is an engine market (of the
simulation of ``simulator``), and its underscore methods (``_update_time``,
``_add_order``, ``_cancel_order``, ``_execution``, ...) run the engine's
code, updating the Order objects given as PAMS's market does. Subclass it
as in PAMS (e.g. a ``setup`` that presets ``_executed_volumes``).
"""
import random
from typing import Iterable
from typing import List
from typing import Optional
from typing import TypeVar
from typing import Union

from . import _core
from ._arguments import id_of
from ._attributes import RefusingList
from ._arguments import str_of
from ._random import state_of

T = TypeVar("T")

Market = _core.Market


def _new(cls, market_id: int, prng: random.Random, simulator, name: str, logger=None,
         *args, **kwargs):
    """A market built by hand (PAMS's constructor arguments)."""
    context = getattr(simulator, "_context", None)
    if context is None:
        raise TypeError(
            f"{cls.__name__}: simulator must be a pams_cpp Simulator, got "
            f"{type(simulator).__name__}")
    if not isinstance(prng, random.Random):
        raise TypeError(f"{cls.__name__}: prng must be a random.Random, got "
                        f"{type(prng).__name__}")
    if logger is not None and not hasattr(logger, "_engine_logger"):
        raise TypeError(f"{cls.__name__}: logger must be a pams_cpp Logger, got "
                        f"{type(logger).__name__}")
    market = context.new_market(cls, id_of(cls.__name__, "market_id", market_id),
                                *state_of(prng), str_of(cls.__name__, "name", name), logger)
    vars(market).update(_prng=prng, _logger=logger, _simulator=simulator)
    return market


def _context(obj):
    context = vars(obj).get("_context")
    owner = getattr(obj, "_owner", None)
    if context is None:
        context = getattr(owner, "_context", None)
    if context is None:
        context = getattr(getattr(owner, "simulator", None), "_context", None)
    return context


def _simulator(self):
    """Simulator: the simulator this market belongs to (PAMS's attribute)."""
    simulator = vars(self).get("_simulator")
    if simulator is None:
        context = _context(self)
        simulator = getattr(context, "_python_simulator", None)
    return simulator


def _logger(self):
    """Logger | None: where the market's logs go (None: no logger)."""
    if "_logger" in vars(self):
        return vars(self)["_logger"]
    simulator = _simulator(self)
    return getattr(simulator, "logger", None)


def _assign_logger(self, logger) -> None:
    if "_logger" not in vars(self):
        raise AttributeError(
            f"Market.logger of {self.name} cannot be set in pams_cpp: a runner's market logs "
            "to the runner's logger; give the runner the logger "
            "(SequentialRunner(settings, prng, logger=...))")
    if logger is not None and not hasattr(logger, "_engine_logger"):
        raise TypeError(f"Market.logger must be a pams_cpp Logger or None, got {logger!r:.60}")
    self._set_logger(logger)
    vars(self)["_logger"] = logger


def _prng(self) -> Optional[random.Random]:
    """The market's generator (the one a market built by hand was given;
    settable, as PAMS's attribute, which PAMS's market code does not draw
    from either)."""
    return vars(self).get("_prng")


def _set_prng(self, prng) -> None:
    vars(self)["_prng"] = prng


def _refusing(message: str):
    """A setter that raises AttributeError(message): what cannot be set in
    pams_cpp, and what to do instead."""
    def refuse(self, value) -> None:
        raise AttributeError(message)
    return refuse


class _History(RefusingList):
    """One of PAMS's history lists of a market (``_market_prices``, ...): a
    copy of the engine's history that refuses changes, which would change
    nothing."""

    __slots__ = ("_name",)

    def __init__(self, entries, name: str) -> None:
        super().__init__(entries)
        self._name = name

    def _refusal(self) -> str:
        return (f"Market.{self._name} cannot be changed in place in pams_cpp: a market's "
                "histories are the engine's and change through its methods (_update_time, "
                "_set_time, _add_order, _execution, change_fundamental_price); a market of a "
                f"Python class may assign the whole list in its setup (self.{self._name} = [...])")


class _Components(_History):
    """An IndexMarket's ``_components``: a copy of its component markets
    that refuses changes (add components with ``_add_market``)."""

    __slots__ = ()

    def _refusal(self) -> str:
        return ("IndexMarket._components cannot be changed in place in pams_cpp: add "
                "a component with index._add_market(market=...)")


def _repr(self) -> str:
    return (
        f"<{self.__class__.__module__}.{self.__class__.__name__} | id={self.market_id}, "
        f"name={self.name}, tick_size={self.tick_size}, "
        f"outstanding_shares={self.outstanding_shares}>"
    )


def _extract_sequential_data_by_time(
    self, times: Union[Iterable[int], None], parameters: List[Optional[T]],
    allow_none: bool = False,
) -> List[Optional[T]]:
    """PAMS's helper: parameters at times (None: every step so far)."""
    if times is None:
        times = range(self.time + 1)
    times = list(times)
    if sum(t > self.time for t in times) > 0:
        raise AssertionError("Cannot refer the future parameters")
    result = [parameters[t] for t in times]
    if not allow_none and None in result:
        raise AssertionError
    return result


def _extract_data_by_time(
    self, time: Union[int, None], parameters: List[Optional[T]], allow_none: bool = False,
) -> Optional[T]:
    """PAMS's helper: parameters at time (None: now)."""
    if time is None:
        time = self.time
    if time > self.time:
        raise AssertionError("Cannot refer the future parameters")
    result = parameters[time]
    if not allow_none and result is None:
        raise AssertionError
    return result


def _add_markets(self, markets) -> None:
    """Adds component markets (PAMS's IndexMarket._add_markets)."""
    for market in markets:
        self._add_market(market=market)


_engine_setup = Market.setup


def setup(self, settings, *args, **kwargs) -> None:
    """Reads the market's config, as PAMS's Market.setup (the engine's
    code): tickSize, outstandingShares, and marketPrice (else
    fundamentalPrice), the initial price.

    Args:
        settings (Dict[str, Any]): the market's object in the config.
        *args: not used (PAMS's signature).
        **kwargs: not used (PAMS's signature).

    Raises:
        ValueError: a key is missing or has a bad value.
    """
    _engine_setup(self, settings)


def _fixed(name: str, advice: str):
    """Market.<name> (a read-only attribute of the engine's market) with a
    setter that says why it cannot be set and what to do instead."""
    old = vars(Market)[name]
    return property(old.fget, _refusing(f"Market.{name} cannot be set in pams_cpp: {advice}"),
                    doc=old.__doc__)


Market.setup = setup
Market.__repr__ = _repr
Market.__module__ = __name__
Market.chunk_size = property(
    lambda self: 100,
    _refusing("Market.chunk_size cannot be set in pams_cpp: the engine's histories grow in "
              "PAMS's chunks of 100 steps"),
    doc="int: the steps PAMS's history lists grow by (100).")
Market.simulator = property(
    _simulator,
    _refusing("Market.simulator cannot be set in pams_cpp: a market belongs to the simulator "
              "it was built with; build it with simulator=... (Market(market_id, prng, "
              "simulator, name))"),
    doc=_simulator.__doc__)
Market.logger = property(_logger, _assign_logger, doc=_logger.__doc__)
Market._prng = property(_prng, _set_prng, doc=_prng.__doc__)
Market.name = _fixed("name", "a market keeps the name it was built with (the simulator finds "
                             "it by that name); build it with name=...")
Market.market_id = _fixed("market_id", "a market keeps the id it was built with (the simulator "
                                       "and orders find it by id); build it with market_id=...")
Market.buy_order_book = _fixed("buy_order_book", "a market's books are the engine's; orders "
                                                 "reach them through _add_order and "
                                                 "_cancel_order")
Market.sell_order_book = _fixed("sell_order_book", "a market's books are the engine's; orders "
                                                   "reach them through _add_order and "
                                                   "_cancel_order")
Market._extract_sequential_data_by_time = _extract_sequential_data_by_time
Market._extract_data_by_time = _extract_data_by_time
_core.IndexMarket._add_markets = _add_markets
_core.IndexMarket._components = property(
    lambda self: _Components(self.get_components(), "_components"),
    _refusing("IndexMarket._components cannot be set in pams_cpp: add components with "
              "index._add_market(market=...) or _add_markets(markets=[...])"),
    doc="List[Market]: the component markets (a copy; add one with _add_market).")

__all__ = ["Market"]
