"""Docstring coverage of pams_cpp's public API, on the installed package.

Every public module of pams_cpp (no part of its dotted name starting with
``_``), every public name it exports (``__all__``, else its own classes and
functions), and every public method and property of those classes (including
the nanobind classes of ``pams_cpp._core``, and members inherited from a base
class, checked once, on the class that defines them) must carry a docstring
of at least MIN_DOC characters, and every callable must show its real
parameters: not only ``(*args, **kwargs)``, and, for a nanobind function,
named arguments rather than nanobind's ``arg0, arg1`` placeholders.

Why: notebook users read ``help()`` and tab completion, and the API
reference is generated from these docstrings (make docs); a name that lacks
one is invisible there. Run as a script (``python test_docstrings.py``) to
print every failing name, grouped by module.

Type stubs: ``_core.pyi`` (made by nanobind's stubgen at build time) is
compared with the runtime signatures of the nanobind functions it declares.
"""
import importlib
import inspect
import os
import pkgutil
import re
import sys

import pytest

import pams_cpp
from pams_cpp._attributes import Assigned
from pams_cpp._attributes import EngineMethod

MIN_DOC = 40

# Names a nanobind function gets for an argument without nb::arg.
_PLACEHOLDER = re.compile(r"^arg\d*$")


def _is_nb_func(obj) -> bool:
    return hasattr(obj, "__nb_signature__")


def _nb_doc(obj) -> str:
    """The docstring of a nanobind function without its signature lines."""
    return "\n".join(doc for _, doc, _ in obj.__nb_signature__ if doc).strip()


def _split_params(text: str):
    """The top-level comma-separated parts of a parameter list."""
    parts, depth, current = [], 0, ""
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += c
    if current.strip():
        parts.append(current.strip())
    return parts


def _nb_params(signature: str):
    """Parameter names of one nanobind signature ``def f(a: int, b=...) -> r``."""
    start = signature.index("(")
    depth = 0
    for end in range(start, len(signature)):
        depth += signature[end] in "([{"
        depth -= signature[end] in ")]}"
        if depth == 0:
            break
    names = []
    for part in _split_params(signature[start + 1:end]):
        name = re.split(r"[:=]", part, maxsplit=1)[0].strip()
        if name not in ("/", "*"):
            names.append(name)
    return names


def _signature_problem(obj):
    """Why obj's signature does not show its real parameters (None: it does)."""
    if _is_nb_func(obj):
        for signature, _, _ in obj.__nb_signature__:
            names = [n for n in _nb_params(signature) if n not in ("self", "cls")]
            unnamed = [n for n in names if _PLACEHOLDER.match(n.lstrip("*"))]
            if unnamed:
                return f"unnamed arguments {unnamed} in {signature!r}"
            if names and all(n.startswith("*") for n in names):
                return f"only {', '.join(names)} in {signature!r}"
        return None
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError) as e:
        return f"no signature ({e})"
    params = [p for name, p in signature.parameters.items() if name not in ("self", "cls")]
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    if params and all(p.kind in variadic for p in params):
        return f"only {signature}"
    return None


def _own_doc(obj) -> str:
    if _is_nb_func(obj):
        return _nb_doc(obj)
    if isinstance(obj, property):
        # A nanobind getter's __doc__ (which property() copies) opens with
        # its signature: only the text after it counts.
        fget_doc = _nb_doc(obj.fget) if _is_nb_func(obj.fget) else ""
        own = obj.__doc__ if obj.__doc__ != getattr(obj.fget, "__doc__", None) else None
        if own is None and not _is_nb_func(obj.fget):
            own = getattr(obj.fget, "__doc__", None)
        return max((own or "").strip(), fget_doc, key=len)
    return (getattr(obj, "__doc__", None) or "").strip()


def _unwrap(member):
    """The function a class attribute stands for (None: not a documented kind)."""
    if isinstance(member, (staticmethod, classmethod, EngineMethod)):
        return member.__func__
    if isinstance(member, Assigned):
        return member  # an attribute whose assignments pams_cpp hears
    if isinstance(member, property) or inspect.isfunction(member) or _is_nb_func(member):
        return member
    return None


def _ours(cls) -> bool:
    # install_as_pams() (another test may have called it) renames the
    # classes' modules pams.*: those are pams_cpp's too.
    top = cls.__module__.split(".")[0]
    return top == "pams_cpp" or (top == "pams" and sys.modules.get("pams") is pams_cpp)


def public_modules():
    """pams_cpp and each of its modules without an underscore in their name."""
    modules = [pams_cpp]
    for info in pkgutil.walk_packages(pams_cpp.__path__, "pams_cpp."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        modules.append(importlib.import_module(info.name))
    return modules


def _exported(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items()
                 if (inspect.isclass(v) or inspect.isfunction(v))
                 and getattr(v, "__module__", None) == module.__name__]
    for name in names:
        if not name.startswith("_"):
            yield name, getattr(module, name)


def collect():
    """(number of public names checked, [(name, problem), ...])."""
    checked = {}  # key -> (display name, [problem, ...])
    walked = set()  # classes whose members are checked

    def check(key, display, obj, doc, signature=True):
        if key in checked:
            return
        problems = []
        if len(doc) < MIN_DOC:
            problems.append(f"docstring {len(doc)} characters (< {MIN_DOC})"
                            if doc else "no docstring")
        if signature:
            problem = _signature_problem(obj)
            if problem:
                problems.append(problem)
        checked[key] = (display, problems)

    def inherited_doc(cls, name):
        # An override without its own doc shows its base's (help(), autodoc).
        for base in cls.__mro__[1:]:
            member = _unwrap(vars(base).get(name))
            if member is not None and len(_own_doc(member)) >= MIN_DOC:
                return _own_doc(member)
        return ""

    def check_class(cls):
        for klass in cls.__mro__:
            if klass is object or not _ours(klass):
                continue
            qualname = f"{klass.__module__}.{klass.__qualname__}"
            if qualname in walked:
                continue
            walked.add(qualname)
            # A private base (_BuiltinAgent, _CsvLogger) is not a public name
            # itself, but its public members are its subclasses'.
            if not klass.__name__.startswith("_"):
                check(("class", qualname), qualname, klass,
                      (klass.__dict__.get("__doc__") or "").strip(), signature=False)
                init = vars(klass).get("__init__")
                if init is not None and (inspect.isfunction(init) or _is_nb_func(init)):
                    problem = _signature_problem(init)
                    if problem:
                        checked[("class", qualname)][1].append(f"constructor: {problem}")
            for name, member in vars(klass).items():
                if name.startswith("_"):
                    continue
                function = _unwrap(member)
                if function is None:
                    continue
                doc = _own_doc(function) or inherited_doc(klass, name)
                check(("member", qualname, name), f"{qualname}.{name}", function, doc,
                      signature=not isinstance(function, (property, Assigned)))

    for module in public_modules():
        check(("module", module.__name__), module.__name__, module,
              (module.__doc__ or "").strip(), signature=False)
        for name, obj in _exported(module):
            if inspect.ismodule(obj):
                continue  # checked as a module
            if inspect.isclass(obj):
                if _ours(obj):
                    check_class(obj)
            elif inspect.isfunction(obj) or _is_nb_func(obj):
                qualname = f"{obj.__module__}.{obj.__qualname__}"
                check(("function", qualname), qualname, obj, _own_doc(obj))
            # Other values (constants such as LIMIT_ORDER) carry no docstring.
    failures = sorted((display, "; ".join(problems))
                      for display, problems in checked.values() if problems)
    return len(checked), failures


def test_every_public_name_is_documented(capsys):
    count, failures = collect()
    assert count > 300, f"only {count} public names found: the walk missed modules"
    if failures:
        listing = "\n".join(f"  {name}: {problem}" for name, problem in failures)
        pytest.fail(f"{len(failures)} of {count} public names lack a docstring of "
                    f"{MIN_DOC}+ characters or real parameters:\n{listing}")
    with capsys.disabled():  # the count shows in the run's output, -q or not
        print(f"\n{count} public names, all documented")


def test_nb_params_reads_nanobind_signatures():
    # The parser the signature check relies on, on nanobind's shapes.
    assert _nb_params("def f(self, time: int | None = \\0) -> object") == ["self", "time"]
    assert _nb_params("def f(self, a: dict[str, int], /, *args, **kwargs) -> None") == [
        "self", "a", "*args", "**kwargs"]
    assert _nb_params("def f(arg0: int, arg1: Callable[[int], str]) -> None") == [
        "arg0", "arg1"]
    assert _nb_params("def f() -> None") == []


def _py_params(function):
    """Parameter names of a Python function, spelled as in a stub."""
    names = []
    for name, p in inspect.signature(function).parameters.items():
        prefix = {inspect.Parameter.VAR_POSITIONAL: "*",
                  inspect.Parameter.VAR_KEYWORD: "**"}.get(p.kind, "")
        names.append(prefix + name)
    return names


def _stub_signatures(path):
    """{dotted name: parameter names} of the functions a .pyi file declares."""
    import ast

    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = {}

    def walk(body, prefix):
        for node in body:
            if isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                names = [a.arg for a in args.posonlyargs + args.args]
                if args.vararg:
                    names.append("*" + args.vararg.arg)
                names += [a.arg for a in args.kwonlyargs]
                if args.kwarg:
                    names.append("**" + args.kwarg.arg)
                # Overloads: keep every variant.
                found.setdefault(prefix + node.name, []).append(names)

    walk(tree.body, "")
    return found


def test_core_stub_agrees_with_runtime():
    from pams_cpp import _core

    path = os.path.join(os.path.dirname(pams_cpp.__file__), "_core.pyi")
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing: the build installs it (python/CMakeLists.txt)")
    stubs = _stub_signatures(path)
    mismatches, compared = [], 0
    for dotted, variants in stubs.items():
        obj = _core
        try:
            for part in dotted.split("."):
                obj = getattr(obj, part) if not inspect.isclass(obj) else vars(obj)[part]
        except (AttributeError, KeyError):
            mismatches.append(f"{dotted}: in the stub, not at runtime")
            continue
        obj = _unwrap(obj) if not _is_nb_func(obj) else obj
        if obj is None or isinstance(obj, property):
            continue
        if _is_nb_func(obj):
            runtime = [_nb_params(s) for s, _, _ in obj.__nb_signature__]
        else:
            # A Python function the package put in the binding's place
            # (Market.setup, ...): the stub must show its parameters.
            runtime = [_py_params(obj)]
        compared += 1
        if sorted(runtime) != sorted(variants):
            mismatches.append(f"{dotted}: stub {variants}, runtime {runtime}")
    assert compared > 100, f"only {compared} stub functions compared"
    assert not mismatches, "\n".join(mismatches)


if __name__ == "__main__":
    count, failures = collect()
    by_module = {}
    for name, problem in failures:
        by_module.setdefault(name.rsplit(".", 1)[0], []).append((name, problem))
    for module in sorted(by_module):
        print(module)
        for name, problem in by_module[module]:
            print(f"  {name}: {problem}")
    print(f"{count} public names, {len(failures)} lacking a {MIN_DOC}+ character "
          f"docstring or real parameters", file=sys.stderr)
