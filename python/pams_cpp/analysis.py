"""Analysis of a run's steps, as the ``pams`` command's ``stats`` and
``plot`` give it: stylized facts per market (return moments, fat tails,
volatility clustering, volume, distance from the fundamental price) and
charts of prices, sessions and volume, computed in C++.

``steps`` is what ``pams run --steps-csv`` (or ``pams_cpp.logs.StepsCsvLogger``)
wrote, as a path, or a run's steps kept by ``pams_cpp.logs.TableLogger``
(the logger or its ``steps`` table)::

    logger = TableLogger()
    SequentialRunner(settings=config, prng=random.Random(42), logger=logger).main()
    analysis.stylized_facts(logger)               # [{"market_id": 0, "return_std": ...}, ...]
    print(analysis.stylized_facts_text(logger))  # what `pams stats` prints
    analysis.plot(logger, "prices.png")          # what `pams plot` draws
"""
import os
import tempfile
from typing import Any
from typing import Dict
from typing import Iterable
from typing import List
from typing import Optional

from . import _core
from .table import Table


def stylized_facts(steps: Any, sessions: Optional[Iterable[int]] = None) -> List[Dict]:
    """The stylized facts of each market of a run: return moments, fat
    tails (kurtosis, Hill tail index), volatility clustering
    (autocorrelations of returns and absolute returns), volume, distance
    from the fundamental price.

    Args:
        steps (str | os.PathLike | TableLogger | Table): the steps of a run:
            a path to the CSV file of ``pams run --steps-csv`` (or
            StepsCsvLogger), a TableLogger, or its ``steps`` table.
        sessions (Iterable[int] | None): only the steps of these session
            ids (e.g. ``[1]`` to leave out a warm-up session 0; None: all).

    Returns:
        List[Dict]: one dict per market, with the fields of ``pams stats
        --json`` (autocorrelations as lists, element 0 for lag 1; None where
        a value is undefined, e.g. too few steps).

    Raises:
        ConfigError: steps cannot be read (no such file, not a steps CSV).
        TypeError: steps is of another type.
    """
    return _core.stylized_facts(_source(steps), _sessions(sessions))["markets"]


def stylized_facts_text(steps: Any, sessions: Optional[Iterable[int]] = None) -> str:
    """The stylized facts of each market of a run, as the table ``pams
    stats`` prints (see stylized_facts).

    Args:
        steps (str | os.PathLike | TableLogger | Table): the steps of a run:
            a path to the CSV file of ``pams run --steps-csv`` (or
            StepsCsvLogger), a TableLogger, or its ``steps`` table.
        sessions (Iterable[int] | None): only the steps of these session
            ids (e.g. ``[1]`` to leave out a warm-up session 0; None: all).

    Returns:
        str: the table's text.

    Raises:
        ConfigError: steps cannot be read.
        TypeError: steps is of another type.
    """
    return _core.stylized_facts_text(_source(steps), _sessions(sessions))


def plot(steps: Any, path: Optional[Any] = None, *, width: int = 1200, height: int = 800,
         title: str = ""):
    """Draws the chart of ``pams plot``: per market, the market and
    fundamental prices with the sessions marked, and the executed volume.

    Args:
        steps (str | os.PathLike | TableLogger | Table): the steps of a run
            (see stylized_facts).
        path (str | os.PathLike | None): where to write the chart (``.png``
            or ``.svg``); None returns it instead.
        width (int): the chart's width in pixels.
        height (int): the chart's height in pixels.
        title (str): a title above the chart ("" for none).

    Returns:
        IPython.display.Image | bytes | None: None when written to path;
        otherwise the PNG, as an Image a notebook shows when IPython is
        installed, else its bytes.

    Raises:
        TypeError: width or height is not an int, or title not a str.
        ConfigError: steps cannot be read or path cannot be written.
    """
    for name, value in (("width", width), ("height", height)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{name} must be an int (pixels), got {value!r}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {title!r}")
    if path is not None:
        _core.write_chart(_source(steps), os.fspath(path), width, height, title)
        return None
    with tempfile.TemporaryDirectory() as directory:
        file = os.path.join(directory, "chart.png")
        _core.write_chart(_source(steps), file, width, height, title)
        with open(file, "rb") as f:
            png = f.read()
    try:
        from IPython.display import Image
    except ImportError:
        return png
    return Image(data=png, format="png")


def _source(steps: Any):
    from .logs.table_logger import TableLogger

    if isinstance(steps, TableLogger):
        if steps.steps is None:
            raise ValueError("the TableLogger keeps no steps (made with steps=False)")
        steps = steps.steps
    if isinstance(steps, Table):
        return steps._core
    if isinstance(steps, (str, os.PathLike)):
        return os.fspath(steps)
    raise TypeError("steps must be a steps CSV's path, a TableLogger or its steps table, got "
                    f"{type(steps).__name__}")


def _sessions(sessions: Optional[Iterable[int]]) -> List[int]:
    if sessions is None:
        return []
    if isinstance(sessions, int):
        sessions = [sessions]
    out = list(sessions)
    for s in out:
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"sessions must be session ids (int), got {s!r}")
    return out


__all__ = ["plot", "stylized_facts", "stylized_facts_text"]
