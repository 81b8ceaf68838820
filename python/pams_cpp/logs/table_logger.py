"""TableLogger: a run's steps, agents and events as Tables (the columns of
``pams run --steps-csv``, ``--agents-csv`` and ``--events-csv``, typed),
kept by the engine: no Python call per log and no Python object per row.

    logger = TableLogger()
    SequentialRunner(settings=config, prng=random.Random(42), logger=logger).main()
    steps = logger.steps.to_pandas()      # or pyarrow.table(logger.steps), polars...

The agents table has a column ``asset_volume_<market_id>`` per market (null
where the agent cannot trade). The events table can be large (a row per
order, cancel, execution and expiration): it is kept only when asked for.
"""
from typing import Optional

from .. import _core
from ..table import Table
from .base import Logger
from .base import overrides_logging


class TableLogger(Logger):
    """Keeps a run's records as Tables, in the engine: the steps, the
    agents at the end and, if asked for, every order, cancel, execution and
    expiration (see the module's doc).

    Args:
        steps (bool): keep the steps table (one row per market and step).
        agents (bool): keep the agents table (one row per agent at the end).
        events (bool): keep the events table (a row per order, cancel,
            execution and expiration: large).

    Note:
        It runs in the engine; a subclass overriding its methods is refused
        when a runner takes it (subclass Logger instead).
    """

    def __init__(self, steps: bool = True, agents: bool = True, events: bool = False) -> None:
        super().__init__()
        self._engine = _core.TableLogger(steps=steps, agents=agents, events=events)

    _feeds_engine = True

    def _engine_logger(self):
        if overrides_logging(type(self), TableLogger):
            raise NotImplementedError(
                f"{type(self).__name__} overrides methods of TableLogger, which runs in the "
                "engine: subclass pams_cpp.logs.Logger to process logs in Python")
        return self._engine

    @property
    def steps(self) -> Optional[Table]:
        """Table | None: one row per market at the end of every step, the
        columns of ``--steps-csv`` (None if not kept)."""
        return _table(self._engine.steps)

    @property
    def agents(self) -> Optional[Table]:
        """Table | None: one row per agent at the end of the run, the columns
        of ``--agents-csv`` (None if not kept)."""
        return _table(self._engine.agents)

    @property
    def events(self) -> Optional[Table]:
        """One row per order, cancel, execution and expiration, in the order
        they happened (None if not kept)."""
        return _table(self._engine.events)


def _table(core) -> Optional[Table]:
    return None if core is None else Table(core)


__all__ = ["TableLogger"]
