"""PAMS's market step loggers: MarketStepPrintLogger prints one line per
market and step, MarketStepSaver keeps the same values
(``market_step_logs``, a list of dicts with PAMS's keys and types).
Both run in the engine; the printer writes through ``sys.stdout``.

A subclass of MarketStepSaver that overrides how logs are processed (as
PAMS's market_share notebook does, to keep more values per step) runs as a
Python logger instead: its methods are called as PAMS calls them, and
MarketStepSaver's own ``process_market_step_end_log`` appends PAMS's dict
to ``market_step_logs``.
"""
from typing import Dict
from typing import List

from .. import _core
from .base import Logger
from .base import MarketStepEndLog
from .base import overrides_logging

# The keys of market_step_logs' dicts, in order: the log schema's
# (src/logs/log_schema.h), which the engine's records follow.
_KEYS = _core.log_columns("market_step_logs")


class MarketStepPrintLogger(Logger):
    """Prints a line per market at the end of every step (PAMS's
    ``MarketStepPrintLogger``): "session_id time market_id market_name
    market_price fundamental_price", through ``sys.stdout``.

    Note:
        It runs in the engine; a subclass overriding its methods is refused
        when a runner takes it (subclass Logger instead).
    """

    def __init__(self) -> None:
        super().__init__()
        self._engine = _core.StdoutStepPrinter()

    _feeds_engine = True

    def process(self, logs) -> None:
        """Prints the lines of the market step end logs among logs (a
        simulation driven by hand writes its logs here).

        Args:
            logs (List[Log]): the logs; others than MarketStepEndLog are
                ignored.
        """
        super().process(logs)
        _core._flush_logger(self._engine)

    def _engine_logger(self):
        if overrides_logging(type(self), MarketStepPrintLogger):
            raise NotImplementedError(
                f"{type(self).__name__} overrides methods of MarketStepPrintLogger, which "
                "runs in the engine: subclass pams_cpp.logs.Logger to process logs in Python")
        return self._engine


_OWN_WAY = {}


def _processes_own_way(cls) -> bool:
    """Whether a MarketStepSaver class overrides how logs are processed
    (once per class)."""
    own = _OWN_WAY.get(cls)
    if own is None:
        own = _OWN_WAY[cls] = overrides_logging(cls, MarketStepSaver)
    return own


class _OwnWayLogs:
    """market_step_logs of a subclass that processes logs its own way: a
    plain instance attribute, as PAMS's. Its records are appended from
    Python at every step (``self.market_step_logs.append(...)``), where
    MarketStepSaver's property would cost each append a call (about 0.25
    us; 8400 of them in PAMS's market_share notebook). A non-data
    descriptor: the instance's own attribute, once set, is found first."""

    def __get__(self, saver, cls=None):
        if saver is None:
            return MarketStepSaver.market_step_logs
        return saver.__dict__.setdefault("market_step_logs", saver._logs)


class MarketStepSaver(Logger):
    """Keeps, for every market and step, PAMS's dict of the market's values
    (PAMS's ``MarketStepSaver``): read them from ``market_step_logs``.

    Each dict has PAMS's keys and types: ``session_id``, ``market_time``,
    ``market_id``, ``market_name``, ``market_price``,
    ``fundamental_price``. The engine records them (no Python call per
    step) unless a subclass overrides how logs are processed, in which case
    it runs as a Python logger, as PAMS's market_share notebook's does.
    """

    def __init__(self) -> None:
        super().__init__()
        self._engine = _core.MarketStepSaver()
        self._logs: List[Dict] = []
        if not self._feeds_engine:
            self.__dict__["market_step_logs"] = self._logs

    # Logs written to it (a simulation driven by hand) go to the engine's
    # saver, unless a subclass processes them its own way.
    _feeds_engine = True

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._feeds_engine = not _processes_own_way(cls)
        # Where market_step_logs comes from: MarketStepSaver's property is
        # replaced for such a subclass; a parent's _OwnWayLogs or the
        # user's own definition is kept.
        owner = next(c for c in cls.__mro__ if "market_step_logs" in c.__dict__)
        if not cls._feeds_engine and owner is MarketStepSaver:
            cls.market_step_logs = _OwnWayLogs()

    def _engine_logger(self):
        # A subclass that processes logs its own way is a Python logger.
        return None if _processes_own_way(type(self)) else self._engine

    @property
    def market_step_logs(self) -> List[Dict]:
        """List[Dict]: the records so far, one dict per market and step, in
        the order they happened (settable, as PAMS's list)."""
        logs = self._logs
        # A subclass processing logs its own way (its _feeds_engine is
        # False) appends here at every step: its engine saver records nothing.
        if self._feeds_engine and len(logs) < len(self._engine):
            logs.extend(dict(zip(_KEYS, r)) for r in self._engine.records(len(logs)))
        return logs

    @market_step_logs.setter
    def market_step_logs(self, logs: List[Dict]) -> None:
        self._logs = logs

    def process_market_step_end_log(self, log: MarketStepEndLog) -> None:
        """Appends PAMS's dict of the market's values at this step to
        market_step_logs (a subclass's path; the engine's saver records
        them itself).

        Args:
            log (MarketStepEndLog): the log of the market's step.
        """
        self.market_step_logs.append({
            "session_id": log.session.session_id,
            "market_time": log.market.get_time(),
            "market_id": log.market.market_id,
            "market_name": log.market.name,
            "market_price": log.market.get_market_price(),
            "fundamental_price": log.market.get_fundamental_price(),
        })


__all__ = ["MarketStepPrintLogger", "MarketStepSaver"]
