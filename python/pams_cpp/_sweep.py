"""pams_cpp.sweep: many runs of one config, seeds times a grid of parameters,
on any ``concurrent.futures.Executor``.

The same sweep as ``pams sweep CONFIG --seeds ... --grid KEY=[...]``: the
same runs, and a summary whose text is the CLI's ``summary.csv`` byte for
byte. Each run is a task for the executor, so that a Dask cluster
(``distributed.Client(...).get_executor()``), Ray's executor or a local
``ProcessPoolExecutor`` runs the sweep; the task carries the config as JSON
text and returns its summary rows, so nothing else travels. Without an
executor the runs go one after another in this process.

The plan (the seeds, the grid's points, the sets, their rules and
messages) and each run are the engine's sweep core, the code ``pams sweep``
uses (``_core._sweep_plan``, ``_core._sweep_run``): this module only turns
Python's arguments into its input and hands the runs to the executor.
"""
import os

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
    text, is_path, directory = _config(config)
    # The engine makes the plan as pams sweep makes it (the same rules and
    # messages, naming these arguments) and sets up each grid point once:
    # every bad input is refused here, before any run.
    base, seed_list, keys, points, warnings = _core._sweep_plan(
        text, is_path, directory, _seeds_text(seeds), _pairs(grid, "grid"),
        _pairs(sets, "sets"), runner)
    for message in warnings:
        _warnings.warn(message)
    tasks = [(base, directory, seed, runner, list(sessions or []), keys, values)
             for values in points for seed in seed_list]
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
    import io

    import pandas
    # The grid's columns as JSON values (a list stays a JSON text).
    return pandas.read_csv(io.StringIO(summary), keep_default_na=False,
                           na_values=["nan"])


def _run_task(task):
    """One run (a task of sweep), in the process the executor chose."""
    text, directory, seed, runner, sessions, keys, values = task
    import tempfile

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


def _progress(results, total):
    try:
        from tqdm import tqdm
    except ImportError:
        raise ImportError("progress=True needs tqdm: pip install tqdm") from None
    return tqdm(results, total=total, unit="runs")


def _config(config):
    """(JSON text or a path, whether it is a path, the config's directory):
    a file is read by the engine, as pams sweep reads it."""
    if isinstance(config, dict):
        import json  # here: `import pams_cpp` need not pay for it

        try:
            return json.dumps(config), False, os.getcwd()
        except (TypeError, ValueError) as error:
            raise TypeError(f"config: a dict of JSON values is needed: {error}") from None
    if isinstance(config, (str, os.PathLike)):
        path = os.fspath(config)
        return path, True, os.path.dirname(os.path.abspath(path))
    raise TypeError(f"config must be a path or a dict, got {type(config).__name__}")


def _seeds_text(seeds):
    """The seeds as pams sweep's --seeds text, which the engine reads: a
    text as it is, ints joined by commas (a seed given twice, a negative
    one or too many are the engine's to refuse, as the CLI's)."""
    if isinstance(seeds, str):
        return seeds
    try:
        items = list(seeds)
    except TypeError:
        raise TypeError(f"seeds must be ints or a text such as '1-100', got "
                        f"{type(seeds).__name__}") from None
    for seed in items:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ConfigError(f"seeds: expected non-negative ints, got {seed!r}")
    return ",".join(str(seed) for seed in items)


def _pairs(assignments, name):
    """A dict {KEY: value} as (KEY, JSON text) pairs, pams sweep's KEY=JSON
    (--grid, --set) with the key apart, so that a key may hold '='."""
    if assignments is None:
        return []
    if not isinstance(assignments, dict):
        shape = "{KEY: [values]}" if name == "grid" else "{KEY: value}"
        raise TypeError(f"{name} must be a dict {shape}, got {type(assignments).__name__}")
    import json

    pairs = []
    for key, value in assignments.items():
        if not isinstance(key, str):
            raise TypeError(f"{name}: keys must be str (config keys such as "
                            f"'FCNAgents.fundamentalWeight'), got {key!r}")
        try:
            pairs.append((key, json.dumps(value)))
        except (TypeError, ValueError) as error:
            raise TypeError(f"{name}[{key!r}]: not a JSON value: {error}") from None
    return pairs
