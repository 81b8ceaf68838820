"""A worker process of MultiProcessAgentParallelRunner with Python classes.

"spawn" starts ``python -c '...; _worker.main()'`` with the channel at
descriptor 3 (PAMS_WORKER_FD), "forkserver" starts one such process as a
fork server (PAMS_FORKSERVER_FD) that forks the workers, and "fork" forks
the main process (``fork_worker``). Each worker builds its replica of the
simulation from the config, the seed and the classes the main process sent
(cloudpickle: classes defined in ``__main__`` or a notebook travel by
value), imports the main module as multiprocessing's spawn does, runs the
worker initializer, and then serves the engine's tasks until the run ends.

A worker serves one run after another: the main process keeps its workers
for later runners of the same set-up (``simulation.workerIdleTimeout``).
The process is prepared once, at its first run (the environment, the main
module, the runner's ``_prepare_worker_process``, the worker initializer);
each run builds its own replica.
"""
import json
import os
import random
import re
import socket
import struct
import sys
import time
import types
import warnings
from typing import Any
from typing import Dict
from typing import List

from .. import _core

# The current run's replica.
_replica: List[Any] = []
# Whether this process was forked from one that has the main module, and
# whether it is importing the main module (which must not start workers).
_forked = False
preparing = False


def main() -> None:
    """The entry of a spawned worker or fork server."""
    if os.environ.pop("PAMS_WORKER_FD", None) is not None:
        _core._become_worker_process()
        _core._serve_python_worker(3, _build)
    if os.environ.pop("PAMS_FORKSERVER_FD", None) is not None:
        _core._become_worker_process()
        _fork_server(socket.socket(fileno=3))
    raise SystemExit("pams_cpp.runners._worker: not started as a worker")


def fork_worker(fd: int, has_main: bool = True) -> int:
    """Forks a worker serving descriptor fd (the "fork" start method, whose
    children have the main module already, and the fork server's, whose
    children import it); returns its pid in the parent. The child never
    returns."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid != 0:
        return pid
    global _forked
    _forked = has_main
    try:
        _core._become_worker_process()
        _core._serve_python_worker(_core._keep_only_descriptor(fd), _build)
    finally:
        os._exit(1)


def _fork_server(server: socket.socket) -> None:
    # The engine's fork server protocol (runners/worker.cc): b"F" with a
    # descriptor attached: fork a worker serving it, reply with its pid;
    # b"W" + pid: wait for it (2 s at most), reply with its wait status.
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(server, 5, 1)
        except OSError:
            break
        if not message:
            break
        if message[:1] == b"F":
            pid = fork_worker(fds[0], has_main=False) if fds else -1
            for fd in fds:
                os.close(fd)
            server.sendall(struct.pack("i", pid))
        elif message[:1] == b"W":
            rest = message[1:]
            while len(rest) < 4:
                rest += server.recv(4 - len(rest))
            (pid,) = struct.unpack("i", rest[:4])
            status = -1
            for _ in range(200):
                try:
                    done, st = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    break
                if done == pid:
                    status = st
                    break
                time.sleep(0.01)
            server.sendall(struct.pack("i", status))
    os._exit(0)


def _code_in_file(rebuild, args, filename: str) -> types.CodeType:
    """A code object sent by value (see dumps_payload), with its file's
    name."""
    return rebuild(*args).replace(co_filename=filename)


def _nanobind_metaclass() -> type:
    """The metaclass of the engine's classes (nanobind's), which has no
    importable name: classes derived from them (Python markets) travel by
    value with a reference to it."""
    return type(_core.Market)


def dumps_payload(preparation: Dict[str, Any], environment: Dict[str, str],
                  classes: Dict[str, Any]) -> bytes:
    """What the workers need: multiprocessing's preparation data (plain
    pickle: read first, since the classes may refer to the main module it
    imports), whether this process runs pams_cpp as ``pams``
    (install_as_pams(): the workers do too, before they import anything of
    the user's) and the classes, by value where they cannot be imported by
    name (cloudpickle: classes of __main__, of a notebook, of a function)."""
    import io
    import pickle

    import cloudpickle

    class Pickler(cloudpickle.Pickler):
        def reducer_override(self, obj):
            if obj is type(_core.Market):
                return (_nanobind_metaclass, ())
            if type(obj) is types.CodeType:
                # cloudpickle names the file of code sent by value
                # "<dynamic-code>"; its real name lets tracebacks of the
                # workers' errors show the source lines (the main process
                # has them, a notebook's cells too).
                rebuild, args = cloudpickle.cloudpickle._code_reduce(obj)
                return (_code_in_file, (rebuild, args, obj.co_filename))
            return super().reducer_override(obj)

    out = io.BytesIO()
    Pickler(out).dump(classes)
    return pickle.dumps({"preparation": preparation, "environment": dict(environment),
                         "as_pams": runs_as_pams(), "classes": out.getvalue()})


def runs_as_pams() -> bool:
    """Whether this process runs pams_cpp as ``pams`` (install_as_pams())."""
    import pams_cpp

    return sys.modules.get("pams") is pams_cpp


# What TensorFlow's C++ writes to descriptor 2 as it loads, before its
# logging reads TF_CPP_MIN_LOG_LEVEL (TensorFlow 2.21 prints these whatever
# the level says): the main process has shown them once already.
_TENSORFLOW_START_UP = re.compile(
    r"All log messages before absl::InitializeLog\(\) is called|\] oneDNN custom operations "
    r"are on|cpu_feature_guard\.cc:\d+\]|^To enable the following instructions: ")


def _import_tensorflow_quietly() -> None:
    """Imports TensorFlow (before the main module or the agents' classes
    import it) with its start-up lines left out of this worker's stderr;
    anything else it writes meanwhile is passed on. Without TensorFlow,
    nothing happens here: the code that imports it reports that."""
    if "tensorflow" in sys.modules:
        return
    import tempfile

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            import tensorflow  # noqa: F401
        except ImportError:
            pass
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            lines = captured.read().decode(errors="replace").splitlines(keepends=True)
            kept = "".join(line for line in lines if not _TENSORFLOW_START_UP.search(line))
            if kept:
                sys.stderr.write(kept)
                sys.stderr.flush()


def _build(init: Dict[str, Any]) -> Any:
    """The replica: the main process's runner class, config, seed and
    classes, set up as a worker's."""
    import pickle

    import cloudpickle

    payload = pickle.loads(init["host_payload"])
    first = init.get("first", True)
    _replica.clear()
    if payload.get("as_pams"):
        # As the main process, before the main module, the classes and the
        # user's modules they import are: their `import pams` is pams_cpp,
        # whatever the start method and the environment the worker got.
        import pams_cpp

        pams_cpp.install_as_pams()
    if first:
        os.environ.update(payload["environment"])
        if os.environ.pop("PAMS_WORKER_QUIET_TENSORFLOW", None):
            _import_tensorflow_quietly()
    if first and not _forked:
        from multiprocessing import spawn

        global preparing
        preparing = True
        try:
            spawn.prepare(payload["preparation"])
        finally:
            preparing = False
    spec = cloudpickle.loads(payload["classes"])
    main_module = sys.modules.get("__main__")
    for cls in spec["classes"]:
        # Instances of classes of __main__ (pickled by name in the tasks)
        # find their class there.
        if cls.__module__ == "__main__" and main_module is not None:
            if not hasattr(main_module, cls.__qualname__):
                setattr(main_module, cls.__qualname__, cls)
    # The main process gave the config's warnings already.
    warnings.simplefilter("ignore")
    prng = random.Random()
    prng.setstate((3, tuple(init["prng_mt"]) + (init["prng_index"],), init["prng_gauss"]))
    runner = spec["runner_class"](settings=json.loads(init["settings_json"]), prng=prng)
    for name, value in spec["runner_state"].items():
        setattr(runner, name, value)
    for cls in spec["classes"]:
        runner.class_register(cls)
    runner._in_worker = True
    runner._core.make_replica(init["config_directory"])
    runner._setup()
    runner._core.set_python_objects(runner.simulator.markets, runner.simulator)
    if first:
        runner._prepare_worker_process()
        initializer = runner._get_worker_initializer()
        if initializer is not None:
            # A failure ends this worker (it serves no task): the run fails
            # with a RuntimeError naming the initializer, caused by its
            # exception (PAMS's development branch's rule).
            from .agent_parallel import run_initializer

            run_initializer(initializer, tuple(runner._get_worker_initargs()),
                            f"worker process {os.getpid()}")
    _replica.append(runner)
    return runner
