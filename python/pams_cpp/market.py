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
    market = context.new_market(cls, int(market_id), *state_of(prng), str(name), logger)
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


def _prng(self) -> Optional[random.Random]:
    """The market's generator (the one a market built by hand was given)."""
    return vars(self).get("_prng")


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


Market.setup = setup
Market.__repr__ = _repr
Market.__module__ = __name__
Market.chunk_size = 100
Market.simulator = property(_simulator)
Market.logger = property(_logger)
Market._prng = property(_prng)
Market._extract_sequential_data_by_time = _extract_sequential_data_by_time
Market._extract_data_by_time = _extract_data_by_time
_core.IndexMarket._add_markets = _add_markets
_core.IndexMarket._components = property(lambda self: self.get_components(),
                                         doc="The component markets.")

__all__ = ["Market"]
