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


# How traceback words the link from an exception to the one before it.
_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


def _frames(error: BaseException) -> List[Tuple[str, int, str, Optional[str]]]:
    return [(frame.filename, frame.lineno or 0, frame.name, frame.line)
            for frame in traceback.extract_tb(error.__traceback__)]


def _chain(error: BaseException) -> List[Dict[str, Any]]:
    """The exceptions before `error` (its __cause__, or its __context__
    unless suppressed), innermost first, each with its frames, its summary
    and how it leads to the next: the worker's traceback as Python prints
    it."""
    links: List[Dict[str, Any]] = []
    seen = {id(error)}
    current = error
    while len(links) < 16:
        if current.__cause__ is not None:
            before, link = current.__cause__, _CAUSE
        elif current.__context__ is not None and not current.__suppress_context__:
            before, link = current.__context__, _CONTEXT
        else:
            break
        if id(before) in seen:
            break
        seen.add(id(before))
        links.append({"frames": _frames(before),
                      "summary": traceback.format_exception_only(type(before), before),
                      "link": link})
        current = before
    links.reverse()
    return links


def dumps(error: BaseException) -> bytes:
    """The worker's side: error, its traceback's frames (and those of the
    exceptions that led to it) and a description that holds even when the
    error itself cannot travel."""
    try:
        import cloudpickle

        pickled: Optional[bytes] = cloudpickle.dumps(error)
    except Exception:  # an exception holding what cannot be pickled
        pickled = None
    info: Dict[str, Any] = {
        "error": pickled,
        "type": f"{type(error).__module__}.{type(error).__qualname__}",
        "summary": traceback.format_exception_only(type(error), error),
        "frames": _frames(error),
        "chain": _chain(error),
    }
    return pickle.dumps(info)


def _format(frames: List[Tuple[str, int, str, Optional[str]]], summary: List[str]) -> List[str]:
    stack = traceback.StackSummary.from_list(
        [traceback.FrameSummary(filename, lineno, name, line=_source_line(filename, lineno, line))
         for filename, lineno, name, line in frames])
    return ["Traceback (most recent call last):\n", *stack.format(), *summary]


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
    parts: List[str] = []
    for link in info.get("chain", []):
        parts += _format(link["frames"], link["summary"])
        parts.append(link["link"])
    parts += _format(info["frames"], info["summary"])
    error.__cause__ = RemoteTraceback(f'\n"""\n{"".join(parts)}"""')
    return error


def _source_line(filename: str, lineno: int, worker_line: Optional[str]) -> str:
    import linecache

    line = linecache.getline(filename, lineno).strip()
    return line or (worker_line or "")


__all__ = ["RemoteTraceback", "dumps", "loads"]
