"""install_as_pams(): makes ``import pams`` give pams_cpp, so that code
written for PAMS runs on pams-cpp unchanged."""
import importlib
import os
import sys

_ALIAS = "pams"
# Set by install_as_pams(): processes started from this one (workers)
# install the alias as soon as they import pams_cpp.
_ENV = "PAMS_CPP_AS_PAMS"


class _MissingModule:
    """Says which ``pams.*`` module pams_cpp does not have (yet), instead
    of letting the real PAMS, if installed, be half imported. A finder of
    sys.meta_path (what it needs is find_spec; importlib.abc's base class
    would cost every ``import pams_cpp`` importing importlib.abc)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == _ALIAS or fullname.startswith(_ALIAS + "."):
            raise ModuleNotFoundError(
                f"pams_cpp has no module {fullname} (pams_cpp.install_as_pams() maps "
                f"'{_ALIAS}' to pams_cpp; see docs/python.md for what pams_cpp has)",
                name=fullname)
        return None


def install_as_pams() -> None:
    """Makes code written for PAMS run on pams_cpp unchanged: after it,
    ``import pams`` and ``from pams.x import y`` import pams_cpp and
    pams_cpp.x (every public module, under PAMS's names) in this
    interpreter.

    Call it before anything imports pams. Worker processes started later
    by this one install the alias themselves (an environment variable says
    so), so that pickles naming ``pams.*`` classes load there too. Calling
    it again does nothing.

    Raises:
        RuntimeError: the real PAMS was imported already (objects of both
            would mix).

    Note:
        A ``pams.*`` module pams_cpp does not have raises
        ModuleNotFoundError naming it, rather than importing the real PAMS
        half way.
    """
    import pams_cpp

    loaded = sys.modules.get(_ALIAS)
    if loaded is pams_cpp:
        return
    if loaded is not None:
        raise RuntimeError(
            "pams is imported already (the real PAMS): call pams_cpp.install_as_pams() "
            "before anything imports pams")
    import pkgutil  # here: `import pams_cpp` need not pay for it

    modules = {"": pams_cpp}
    for info in pkgutil.walk_packages(pams_cpp.__path__, "pams_cpp."):
        short = info.name[len("pams_cpp"):]
        if short.split(".")[-1].startswith("_"):
            continue  # private modules (the extension, helpers) keep one name
        modules[short] = importlib.import_module(info.name)
    for short, module in modules.items():
        sys.modules[_ALIAS + short] = module
    if not any(isinstance(f, _MissingModule) for f in sys.meta_path):
        sys.meta_path.insert(0, _MissingModule())
    # Names and reprs read pams.* where PAMS's do: pams_cpp's classes are
    # PAMS's classes now (pickles name them pams.*, which worker processes,
    # started with this variable set, import as pams_cpp too).
    for short, module in modules.items():
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ == "pams_cpp" + short:
                value.__module__ = _ALIAS + short
    os.environ[_ENV] = "1"


__all__ = ["install_as_pams"]
