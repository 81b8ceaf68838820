"""The build backend of pams_cpp (pyproject.toml's build-backend):
scikit-build-core's, with a CMake build folder of its own for each Python
interpreter and compiler.

Why: reinstalls must compile only what changed. scikit-build-core keeps the
build folder given by ``build-dir``, but its keys ({wheel_tag}, {cache_tag})
name only the Python version, and two interpreters of one version (Debian's
/usr/bin/python3, a pyenv or conda one) have other headers and hand CMake
another compiler (sysconfig's CXX): sharing one folder, each install after
the other's recompiled every object. Here the folder is
``build-python/<wheel tag>-<key>``, the key a hash of the interpreter's base
installation and the compilers, so that every venv of one interpreter shares
one folder (and nanobind's copy in it, python/CMakeLists.txt) and an install
from another venv, with or without build isolation, compiles nothing that
did not change.

A build-dir given by the user (``pip install . -C build-dir=...`` or
SKBUILD_BUILD_DIR) wins. Every hook is scikit-build-core's; PEP 517 frontends
(pip, build) import this module from python/backend (backend-path).
"""
import hashlib
import os
import sys
import sysconfig

from scikit_build_core import build as _scikit_build
from scikit_build_core.build import *  # noqa: F401,F403 (the hooks this module does not wrap)


def interpreter_key() -> str:
    """A short hash naming the interpreter (its base installation, shared by
    its venvs; its version and ABI) and the C and C++ compilers the build
    will use: CC and CXX from the environment, else the interpreter's
    (scikit-build-core gives CMake the same)."""
    parts = [
        os.path.realpath(sys.base_prefix),
        sys.version,
        sysconfig.get_config_var("SOABI") or "",
        os.environ.get("CC") or sysconfig.get_config_var("CC") or "",
        os.environ.get("CXX") or sysconfig.get_config_var("CXX") or "",
    ]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:10]


def _settings(config_settings):
    settings = dict(config_settings or {})
    if "build-dir" not in settings and not os.environ.get("SKBUILD_BUILD_DIR"):
        settings["build-dir"] = "build-python/{wheel_tag}-" + interpreter_key()
    return settings


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _scikit_build.build_wheel(wheel_directory, _settings(config_settings),
                                     metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _scikit_build.build_editable(wheel_directory, _settings(config_settings),
                                        metadata_directory)
