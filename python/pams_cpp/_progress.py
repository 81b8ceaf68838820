"""Progress bars (``main(progress=True)``, ``sweep(progress=True)``): tqdm's
widget in a notebook that has ipywidgets, tqdm's text bar everywhere else
(a terminal, a script, a notebook without ipywidgets), and no warning in
any of them.

Not ``tqdm.auto``: in a notebook without ipywidgets it warns (TqdmWarning:
"IProgress not found") before falling back to text. Called from the
thread that runs the simulation (the main thread), holding the GIL.
"""
import sys
from typing import Any
from typing import Optional


def require_tqdm(what: str) -> None:
    """Raises ImportError, saying how to get tqdm, where it is missing.
    ``what`` names the call that needs it, e.g. "main(progress=True)"."""
    try:
        import tqdm  # noqa: F401
    except ImportError:
        raise ImportError(f"{what} draws its bar with tqdm, which is not installed: "
                          "pip install tqdm") from None


def in_notebook() -> bool:
    """Whether this is a Jupyter kernel (IPython's ZMQ shell): not a terminal
    IPython, not plain Python."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # an IPython too old or half imported: no notebook
        return False
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def progress_bar(total: Optional[int], unit: str, desc: Optional[str] = None,
                 iterable: Any = None) -> Any:
    """A tqdm bar of ``total`` items: the widget in a notebook with
    ipywidgets, else the text bar. REQUIRES: tqdm is installed
    (require_tqdm)."""
    kwargs = dict(total=total, unit=unit, desc=desc)
    if iterable is not None:
        kwargs["iterable"] = iterable
    if in_notebook():
        try:
            import ipywidgets  # noqa: F401
            from tqdm.notebook import tqdm as notebook_tqdm

            # Raises ImportError where ipywidgets is too old for the widget.
            return notebook_tqdm(**kwargs)
        except ImportError:
            pass
    from tqdm.std import tqdm as text_tqdm

    return text_tqdm(**kwargs)
