"""Errors raised in a worker process of MultiProcessAgentParallelRunner,
raised again in the main process as what they were, as
``concurrent.futures`` does: the exception itself (pickled in the worker,
so ``except ValueError`` catches an agent's ValueError), with the worker's
traceback as its ``__cause__``. The traceback's frames travel as (file,
line number, function) and their source lines are looked up in the main
process first, which has what the worker may lack (a notebook's cells, a
script given on stdin), then taken from the worker.

The engine carries the bytes unread (its HostError), from ``dumps`` in
the worker to ``loads`` in the main process.
"""
import pickle
import traceback
from typing import Any
from typing import Dict
from typing import List
from typing import Optional
from typing import Tuple


class RemoteTraceback(Exception):
    """The traceback of an error raised in a worker process (the
    ``__cause__`` of the exception raised again in the main process)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return self.text


def dumps(error: BaseException) -> bytes:
    """The worker's side: error, its traceback's frames and a description
    that holds even when the error itself cannot travel."""
    frames: List[Tuple[str, int, str, Optional[str]]] = []
    for frame in traceback.extract_tb(error.__traceback__):
        frames.append((frame.filename, frame.lineno or 0, frame.name, frame.line))
    try:
        import cloudpickle

        pickled: Optional[bytes] = cloudpickle.dumps(error)
    except Exception:  # an exception holding what cannot be pickled
        pickled = None
    info: Dict[str, Any] = {
        "error": pickled,
        "type": f"{type(error).__module__}.{type(error).__qualname__}",
        "summary": traceback.format_exception_only(type(error), error),
        "frames": frames,
    }
    return pickle.dumps(info)


def loads(payload: bytes, message: str) -> BaseException:
    """The main process's side: the worker's exception (a SimulationError
    with `message` when it cannot be rebuilt here), its cause the worker's
    traceback."""
    from .. import _core

    info = pickle.loads(payload)
    error: Optional[BaseException] = None
    why = "it could not be pickled"
    if info.get("error") is not None:
        try:
            error = pickle.loads(info["error"])
        except Exception as e:
            why = f"unpickling it failed: {type(e).__name__}: {e}"
            error = None
    if not isinstance(error, BaseException):
        error = _core.SimulationError(
            f"{message} (a {info['type']} that could not be rebuilt in the main process: "
            f"{why})")
    summary = traceback.StackSummary.from_list(
        [traceback.FrameSummary(filename, lineno, name, line=_source_line(filename, lineno, line))
         for filename, lineno, name, line in info["frames"]])
    text = "".join(["Traceback (most recent call last):\n", *summary.format(),
                    *info["summary"]])
    error.__cause__ = RemoteTraceback(f'\n"""\n{text}"""')
    return error


def _source_line(filename: str, lineno: int, worker_line: Optional[str]) -> str:
    import linecache

    line = linecache.getline(filename, lineno).strip()
    return line or (worker_line or "")


__all__ = ["RemoteTraceback", "dumps", "loads"]
