"""pams_cpp.sweep: many runs of one config, seeds times a grid of parameters,
on any ``concurrent.futures.Executor``.

The same sweep as ``pams sweep CONFIG --seeds ... --grid KEY=[...]``: the
same runs, and a summary whose text is the CLI's ``summary.csv`` byte for
byte. Each run is a task for the executor, so that a Dask cluster
(``distributed.Client(...).get_executor()``), Ray's executor or a local
``ProcessPoolExecutor`` runs the sweep; the task carries the config as JSON
text and returns its summary rows, so nothing else travels. Without an
executor the runs go one after another in this process.
"""
import io
import itertools
import json
import os
import re
import tempfile

from . import _core
from . import _warnings
from ._core import ConfigError

__all__ = ["sweep"]


def sweep(config, seeds, grid=None, *, sets=None, runner="SequentialRunner",
          sessions=None, executor=None, summary_csv=None, progress=False):
    """Runs a config for every seed at every point of a grid, as ``pams
    sweep`` does, and summarizes each run's markets.

    Args:
        config (str | dict): a path to a JSON config, or the config itself.
        seeds (Iterable[int] | str): non-negative ints, or the CLI's text
            ("1-100", "1,5,9").
        grid (Dict[str, list] | None): {KEY: [values]}; every combination of
            the values runs (the last key varies fastest). KEY is a dotted
            path as ``--set``'s ("FCNAgents.fundamentalWeight",
            "simulation.sessions[1].maxNormalOrders").
        sets (Dict[str, Any] | None): {KEY: value} applied to every run
            (``--set``).
        runner (str): the runner class of every run; built-in classes only
            (a run may happen in a fresh process, where Python classes are
            not registered).
        sessions (List[int] | None): summarize only these session ids
            (``--session``; None: all).
        executor (concurrent.futures.Executor | None): where the runs go
            (anything with submit(fn, arg) returning a future); None runs
            them in this process, one after another.
        summary_csv (str | None): a path to write the summary to, byte for
            byte ``pams sweep``'s summary.csv.
        progress (bool): draw a tqdm progress bar over the runs.

    Returns:
        pandas.DataFrame: one row per (grid point, seed, market), with the
        columns of summary.csv, the grid's keys first.

    Raises:
        ConfigError: the config, a grid key or value, a set or the seeds are
            bad (checked before any run).
        TypeError: an argument of the wrong type.
        RuntimeError: a run failed (the message names its seed and point).
        ImportError: progress=True without tqdm installed.
    """
    settings, directory = _load(config)
    seed_list = _seeds(seeds)
    axes = _grid(grid, sets)
    sets = sets or {}
    base = _assign(json.dumps(settings), list(sets), [json.dumps(v) for v in sets.values()],
                   "sets")
    keys = [key for key, _ in axes]
    points = list(itertools.product(*[values for _, values in axes])) or [()]
    tasks = []
    for point in points:
        values = [json.dumps(v) for v in point]
        text = _assign(base, keys, values, "grid")
        for seed in seed_list:
            tasks.append((text, directory, str(seed), runner, list(sessions or []), keys,
                          values))
    # The config's errors (a bad key, a bad value) before any run, here.
    _check(tasks, points)
    if executor is None:
        results = (_run_task(task) for task in tasks)
    else:
        if not callable(getattr(executor, "submit", None)):
            raise TypeError(f"executor must be a concurrent.futures.Executor, got "
                            f"{type(executor).__name__}")
        futures = [executor.submit(_run_task, task) for task in tasks]
        results = (_result(future, task) for future, task in zip(futures, tasks))
    if progress:
        results = _progress(results, len(tasks))
    header = None
    rows = []
    for text in results:
        first, _, body = text.partition("\n")
        header = header or first
        rows.append(body)
    summary = header + "\n" + "".join(rows)
    if summary_csv is not None:
        with open(summary_csv, "w", newline="") as f:
            f.write(summary)
    import pandas
    # The grid's columns as JSON values (a list stays a JSON text).
    return pandas.read_csv(io.StringIO(summary), keep_default_na=False,
                           na_values=["nan"])


def _run_task(task):
    """One run (a task of sweep), in the process the executor chose."""
    text, directory, seed, runner, sessions, keys, values = task
    with tempfile.TemporaryDirectory(prefix="pams-sweep-") as tmp:
        return _core._sweep_run(text, directory, seed, runner, sessions, keys, values,
                                os.path.join(tmp, "steps.csv"))


def _result(future, task):
    try:
        return future.result()
    except Exception as error:
        raise RuntimeError(f"the run of {_label(task)} failed: {error}") from error


def _label(task):
    _, _, seed, _, _, keys, values = task
    if not keys:
        return f"seed {seed}"
    return f"seed {seed} (" + ", ".join(f"{k}={v}" for k, v in zip(keys, values)) + ")"


def _check(tasks, points):
    """Sets up each point once (seed of its first run), as pams sweep does;
    the config's warnings go to the warnings module, each shown once."""
    per_point = len(tasks) // len(points)
    for p in range(len(points)):
        text, directory, seed, runner, _, keys, values = tasks[p * per_point]
        try:
            for message in _core._sweep_check(text, directory, seed, runner):
                _warnings.warn(message)
        except ConfigError as error:
            if not keys:
                raise
            raise ConfigError(f"grid point {p} (" + ", ".join(
                f"{k}={v}" for k, v in zip(keys, values)) + f"): {error}") from None


def _progress(results, total):
    try:
        from tqdm import tqdm
    except ImportError:
        raise ImportError("progress=True needs tqdm: pip install tqdm") from None
    return tqdm(results, total=total, unit="runs")


def _load(config):
    if isinstance(config, dict):
        return json.loads(json.dumps(config)), os.getcwd()
    if isinstance(config, (str, os.PathLike)):
        path = os.fspath(config)
        try:
            with open(path) as f:
                return json.load(f), os.path.dirname(os.path.abspath(path))
        except OSError as error:
            raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
        except json.JSONDecodeError as error:
            raise ConfigError(f"{path}: not JSON: {error}") from None
    raise TypeError(f"config must be a path or a dict, got {type(config).__name__}")


def _seeds(seeds):
    if isinstance(seeds, str):
        out = []
        for item in seeds.split(","):
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", item)
            if not m or (m.group(2) and int(m.group(2)) < int(m.group(1))):
                raise ConfigError(f"seeds: expected seeds such as 1-100 or 1,5,9, got "
                                  f"{seeds!r}")
            first = int(m.group(1))
            out.extend(range(first, int(m.group(2) or first) + 1))
    else:
        try:
            out = list(seeds)
        except TypeError:
            raise TypeError(f"seeds must be ints or a text such as '1-100', got "
                            f"{type(seeds).__name__}") from None
    for seed in out:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ConfigError(f"seeds: expected non-negative ints, got {seed!r}")
    if not out:
        raise ConfigError("seeds: no seed given")
    if len(set(out)) != len(out):
        raise ConfigError("seeds: a seed is given twice")
    return out


def _grid(grid, sets):
    if grid is None:
        return []
    if not isinstance(grid, dict):
        raise TypeError(f"grid must be a dict {{KEY: [values]}}, got {type(grid).__name__}")
    axes = []
    for key, values in grid.items():
        if not isinstance(values, (list, tuple)) or not values:
            raise ConfigError(f"grid {key}: expected a non-empty list of values, got "
                              f"{values!r}")
        texts = [json.dumps(v, sort_keys=True) for v in values]
        if len(set(texts)) != len(texts):
            raise ConfigError(f"grid {key}: a value is given twice")
        if key in (sets or {}):
            raise ConfigError(f"grid {key}: the key is also in sets; give it to one of them")
        axes.append((key, list(values)))
    return axes


def _assign(text, keys, values, what):
    """The config (JSON text) with each value (JSON text) at its dotted key
    with [i] for list elements, set by the engine's code for pams sweep's
    --set (only the last key of a path may be new)."""
    return _core._assign_keys(text, keys, values, what)
