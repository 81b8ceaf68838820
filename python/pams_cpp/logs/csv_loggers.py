"""The CSV writers of ``pams run`` (``--steps-csv``, ``--agents-csv``,
``--events-csv``): the same columns and bytes, written by the engine."""
import os

from .. import _core
from .base import Logger
from .base import overrides_logging


# What the three loggers' docstrings say alike.
_SECTIONS = """
    Args:
        path (str | os.PathLike): the CSV file, created or truncated ("-":
            the standard output).

    Raises:
        TypeError: path is not a path.
        ConfigError: the file cannot be opened.

    Note:
        The logger runs in the engine (no Python call per log); a subclass
        that overrides its methods is refused when a runner takes it:
        subclass Logger to process logs in Python.
    """


class _CsvLogger(Logger):
    _engine_class = None

    def __init__(self, path) -> None:
        """Opens (creates or truncates) the file.

        Args:
            path (str or os.PathLike): the CSV file ("-": the standard output).
        """
        super().__init__()
        if not isinstance(path, (str, bytes, os.PathLike)):
            raise TypeError(f"{type(self).__name__}: path must be the CSV file's path (str or "
                            f"os.PathLike), got {type(path).__name__} {path!r:.60}")
        self.path = os.fsdecode(path)
        self._engine = self._engine_class(self.path)

    _feeds_engine = True

    def _engine_logger(self):
        if overrides_logging(type(self), _CsvLogger):
            raise NotImplementedError(
                f"{type(self).__name__} overrides methods of a CSV logger, which runs in the "
                "engine: subclass pams_cpp.logs.Logger to process logs in Python")
        return self._engine


class StepsCsvLogger(_CsvLogger):
    """Writes one row per market at the end of every step, the file of
    ``pams run --steps-csv`` (the same columns and bytes).
    """

    _engine_class = _core.StepsCsvLogger


class AgentsCsvLogger(_CsvLogger):
    """Writes every agent's cash and asset volumes at the end of the run, the
    file of ``pams run --agents-csv`` (the same columns and bytes).
    """

    _engine_class = _core.AgentsCsvLogger


class EventsCsvLogger(_CsvLogger):
    """Writes a row for every order, cancel, execution and expiration, the
    file of ``pams run --events-csv`` (the same columns and bytes).
    """

    _engine_class = _core.EventsCsvLogger


for _logger in (StepsCsvLogger, AgentsCsvLogger, EventsCsvLogger):
    _logger.__doc__ = _logger.__doc__.rstrip() + "\n" + _SECTIONS
del _logger

__all__ = ["AgentsCsvLogger", "EventsCsvLogger", "StepsCsvLogger"]
