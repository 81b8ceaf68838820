"""PAMS's market step loggers: MarketStepPrintLogger prints one line per
market and step, MarketStepSaver keeps the same values
(``market_step_logs``, a list of dicts with PAMS's keys and types).
Both run in the engine; the printer writes through ``sys.stdout``.
"""
from typing import Dict
from typing import List

from .. import _core
from .base import Logger

_KEYS = ("session_id", "market_time", "market_id", "market_name", "market_price",
         "fundamental_price")


class MarketStepPrintLogger(Logger):
    """Prints "session_id time market_id market_name market_price
    fundamental_price" for every market at the end of every step."""

    def __init__(self) -> None:
        self._engine = _core.StdoutStepPrinter()

    def _engine_logger(self):
        return self._engine


class MarketStepSaver(Logger):
    """Keeps, for every market and step, PAMS's dict of the market's values."""

    def __init__(self) -> None:
        self._engine = _core.MarketStepSaver()
        self._logs: List[Dict] = []

    def _engine_logger(self):
        return self._engine

    @property
    def market_step_logs(self) -> List[Dict]:
        """The records so far, one dict per market and step."""
        if len(self._logs) < len(self._engine):
            self._logs.extend(dict(zip(_KEYS, r)) for r in self._engine.records(len(self._logs)))
        return self._logs


__all__ = ["MarketStepPrintLogger", "MarketStepSaver"]
