"""Runner: builds a simulation from a config and runs it (PAMS's
``pams.runners.Runner``), on the C++ engine.

The config is PAMS's: a dict, a path or an open file. The runner's
``random.Random`` is PAMS's too: the engine starts from its state and puts
its state back after each phase, so a seed means what it means in PAMS and
the generator is advanced as PAMS's runner advances it.
"""
import os
import random
import time
from typing import Any
from typing import Dict
from typing import List
from typing import Optional
from typing import Tuple
from typing import Type

from .. import _core
from .._progress import progress_bar
from .._progress import require_tqdm
from .._attributes import Assigned
from .._attributes import fixed
from .._random import EngineRandom
from .._random import adopt
from .._random import bind_to_engine
from .._random import check_draws_as_random
from .._random import release
from .._random import set_state_of
from .._random import state_of
from ..agents.base import _attach_engine
from ..logs.base import LOG_KINDS
from ..logs.base import Logger
from ..simulator import Simulator
from ..simulator import check_simulator_class


class Runner:
    """The base of the runners (PAMS's ``pams.runners.Runner``): builds a
    simulation from a config on the C++ engine, and runs it with ``main()``.

    Use SequentialRunner (or a parallel runner); this class holds what they
    share: the config, the generator, the logger, the simulator and the
    classes registered for the config to name.

    Args:
        settings: the config: a dict, a path (str or os.PathLike) of a JSON
            file (relative paths inside it are taken from its directory), or
            an open file.
        prng (random.Random, Optional): the runner's generator (a fresh
            ``random.Random()`` when None). The engine starts from its state
            and advances it as PAMS's runner does, so a seed means what it
            means in PAMS; a ``random.SystemRandom`` gives a random run.
        logger (Logger, Optional): a logger (MarketStepSaver,
            MarketStepPrintLogger, the CSV loggers, or a Python subclass of
            Logger).
        simulator_class: the class of ``self.simulator``: Simulator or a
            subclass (one that overrides a method the engine's loop runs is
            refused, naming it).

    Raises:
        TypeError: a settings, prng, logger or simulator_class of the wrong
            kind (named).
        pams_cpp.ConfigError: a config that does not parse or is wrong,
            naming the key.
        NotImplementedError: a subclass that defines a step of PAMS's
            SequentialRunner that the engine runs in C++.

    Note:
        A runner sets up and runs once (a second ``main()`` raises: make a
        new runner). As in PAMS, the config is read when the runner sets up:
        changes to ``settings`` after the runner was made count. Unlike
        PAMS, the config is also checked when the runner is made, every bad
        key named.
    """

    # The engine's runner class this Python class drives.
    _engine_class = "SequentialRunner"
    # PAMS's plain attributes that the engine reads too (see
    # _attributes.Assigned): the generator is adopted by the engine, the
    # logger and the simulator are fixed once the engine has them.
    _prng = Assigned(
        lambda runner, name, prng: _adopt_runner_prng(runner, name, prng),
        "random.Random: the runner's generator. Assigning another makes the runner draw from "
        "it from now on, as PAMS's does (a plain random.Random becomes the view of the "
        "engine's generator, a subclass is copied in and out around each step).",
        deleted="the runner draws from it")
    logger = Assigned(
        fixed("{cls}.{name}: the engine took the runner's logger when the runner was made "
              "(it sees every log of the run from there), so a new one would get nothing: pass "
              "logger= to the runner's constructor (a new runner)", engine="_core"),
        "Logger | None: the runner's logger (given to the constructor; fixed afterwards).",
        deleted="the engine writes the run's logs to it")
    simulator = Assigned(
        fixed("{cls}.{name} is the simulator of the runner's engine simulation, which main() "
              "and the steps run: another Simulator would not be run. Drive another "
              "simulator by hand with its own methods, or make a new runner", engine="_core"),
        "Simulator: the runner's simulator (fixed once made).",
        deleted="the runner runs it")

    # The "simulation" keys this class reads itself, in Python, beyond those
    # its engine class declares (the PyTorch and JAX runners' options). Every
    # runner knows every runner's keys, so that a config written for one runs
    # with another without warnings that they are unread.
    _simulation_keys: Tuple[str, ...] = ()

    def __init__(
        self,
        settings: Any,
        prng: Optional[random.Random] = None,
        logger: Optional[Logger] = None,
        simulator_class: Type[Simulator] = Simulator,
    ) -> None:
        """Initialize.

        Args:
            settings: the config: a dict, a path (str or os.PathLike) of a JSON
                file, or an open file.
            prng (random.Random, Optional): the runner's generator (a fresh
                ``random.Random()`` when None).
            logger (Logger, Optional): a logger (MarketStepSaver,
                MarketStepPrintLogger, the CSV loggers).
            simulator_class: the class of ``self.simulator``: Simulator or a
                subclass (its fields and methods work; one that overrides a
                method the engine's loop runs is refused, naming it).
        """
        _check_overrides(type(self))
        config_directory = ""
        if isinstance(settings, dict):
            self.settings: Dict = settings
        elif hasattr(settings, "read"):
            self.settings = _core.parse_config(
                settings.read(), str(getattr(settings, "name", "settings"))
            )
        elif isinstance(settings, (str, bytes, os.PathLike)):
            path = os.fsdecode(settings)
            self.settings = _core.read_config(path)
            config_directory = os.path.dirname(path)
        else:
            raise TypeError("settings must be the config: a dict, the path of a JSON file (str or "
                            f"os.PathLike) or an open file, got {_describe(settings)}")
        check_simulator_class(simulator_class)
        self._prng: random.Random = prng if prng is not None else random.Random()
        self.logger = logger
        loggers = []
        if logger is not None:
            if not isinstance(logger, Logger):
                raise TypeError(f"logger must be a pams_cpp.logs.Logger, got {_describe(logger)}")
            if logger._engine_logger() is None and not hasattr(logger, "pending_logs"):
                raise TypeError(
                    f"logger: {type(logger).__name__}.__init__ does not call "
                    "super().__init__() (Logger's, which makes the queue of logs, "
                    "pending_logs): call it first thing in __init__")
            if logger._engine_logger() is not None:
                loggers.append(logger._engine_logger())
        self.registered_classes: List[Type] = []
        words, index, gauss_next = _prng_state(self._prng)
        self._core = _core.Runner(self._engine_class, self.settings, words, index,
                                  gauss_next, loggers, config_directory)
        self._core.declare_simulation_keys(_python_runners_keys())
        self._put_prng_back()
        # The given random.Random becomes a view of the engine runner's
        # generator (same object, same draws), so that steps called one by
        # one copy no state.
        self._generator = _core._runner_generator(self._core)
        self._prng_is_engine = bind_to_engine(self._prng, self._generator)
        self._core.prng_is_engine = self._prng_is_engine
        self.simulator = simulator_class._for_runner(self._core)
        if logger is not None:
            self.simulator.logger = logger
        if logger is not None and logger._engine_logger() is None:
            self._core.add_python_logger(logger, **_log_kinds(type(logger)))
            logger._set_simulator(self.simulator)

    def _take_prng(self) -> None:
        # What the caller drew from its generator meanwhile counts.
        if getattr(self, "_prng_is_engine", False) or not _has_state(self._prng):
            return
        self._core.set_prng_state(*state_of(self._prng))

    def _put_prng_back(self) -> None:
        if getattr(self, "_prng_is_engine", False) or not _has_state(self._prng):
            return
        set_state_of(self._prng, *self._core.prng_state())

    def main(self, progress: bool = False) -> None:
        """Sets up and runs the simulation, then prints PAMS's timing lines.

        Args:
            progress: show a progress bar of the steps (tqdm's: a widget in
                a notebook with ipywidgets, text elsewhere; needs ``pip
                install tqdm``).
        """
        if progress:
            require_tqdm("main(progress=True)")
        setup_start_time_ns = time.time_ns()
        self._setup()
        start_time_ns = time.time_ns()
        bar = None
        if progress:
            # Made once the number of steps is known: a bar made before
            # setup and reset after it left a stray "0step" bar in notebooks.
            bar = progress_bar(total=self._core.simulator.total_steps, unit="step",
                               desc="simulation")
            self._core.set_progress(lambda done: bar.update(done - bar.n))
        try:
            self._run()
        finally:
            if bar is not None:
                self._core.set_progress(None)
                # After the run, the time is the number of steps done.
                done = max(0, min(bar.total, self._core.simulator.time))
                bar.update(done - bar.n)
                bar.close()
        end_time_ns = time.time_ns()
        print("# INITIALIZATION TIME " + str((start_time_ns - setup_start_time_ns) / 1e9))
        print("# EXECUTION TIME " + str((end_time_ns - start_time_ns) / 1e9))

    @staticmethod
    def judge_hft_or_not(agent: Any) -> bool:
        """Whether an agent is a high-frequency agent (PAMS's helper).

        Args:
            agent (Agent): the agent.

        Returns:
            bool: whether it is a HighFrequencyAgent (or a subclass's).
        """
        from ..agents.high_frequency_agent import HighFrequencyAgent

        return isinstance(agent, HighFrequencyAgent)

    def class_register(self, cls: Type) -> None:
        """Registers a class that the config may name by its ``__name__``
        (PAMS's ``class_register``). Call it before ``main()``.

        Python subclasses of Agent (or of a built-in agent), Market, an event
        and TransactionFee run in the engine, which calls only the methods
        they override; other classes are kept, as PAMS keeps them.
        Registering a class twice does nothing.

        Args:
            cls (type): the class.

        Raises:
            TypeError: `cls` is not a class.
            NotImplementedError: the class overrides a method the engine
                calls from its own C++ code (named, with what to override
                instead).
            ValueError: an agent class's ``synced_attributes`` names what
                cannot be listed (the process runners check it).
        """
        from ..agents.base import Agent
        from ..events.base import EventABC
        from ..transaction_fees import TransactionFee

        if not isinstance(cls, type):
            raise TypeError(f"class_register takes a class, got {cls!r}")
        engine_classes = self.__dict__.setdefault("_engine_classes", [])
        if cls in engine_classes:
            if cls not in self.registered_classes:
                self.registered_classes.append(cls)
            return  # registered already
        engine_classes.append(cls)
        engine_base = vars(cls).get("_engine_base")
        if engine_base is not None:
            if cls.__name__ != engine_base:
                # The Python face of an engine class under another name (the
                # black_scholes sample's WorkloadFCNAgent): configs of this
                # runner naming cls.__name__ mean that engine class.
                self._core.alias_class(cls.__name__, engine_base)
                if cls not in self.registered_classes:
                    self.registered_classes.append(cls)
            return  # a built-in class
        if not issubclass(cls, (Agent, _core.Market, EventABC, TransactionFee)):
            # PAMS keeps any class (find_class looks there); only agents,
            # markets, events and transaction fees are classes a config names
            # for the engine, which tells a config naming this one that it
            # inherits none of them.
            if cls not in self.registered_classes:
                self.registered_classes.append(cls)
            self._core.add_foreign_class(cls.__name__)
            return
        if issubclass(cls, Agent):
            self._core.register_agent_class(_agent_class(cls, self._make_agent))
        elif issubclass(cls, _core.Market):
            info = _core.MarketClass()
            info.name = cls.__name__
            builtin = (_core.IndexMarket if issubclass(cls, _core.IndexMarket)
                       else _core.DarkPoolMarket if issubclass(cls, _core.DarkPoolMarket)
                       else _core.Market)
            info.base = builtin.__name__
            info.cls = cls
            info.setup = cls.setup is not builtin.setup
            for name in dir(builtin):
                if (name != "setup" and not name.startswith("__")
                        and getattr(cls, name) is not getattr(builtin, name)):
                    raise NotImplementedError(
                        f"{cls.__name__} overrides {name} of {builtin.__name__}, which the "
                        "engine's markets and agents use in C++ and would not call: a Python "
                        "market may override setup only (and add methods of its own)")
            self._core.register_market_class(info)
        elif issubclass(cls, EventABC):
            self._core.register_event_class(_event_class(cls, self._make_event))
        elif issubclass(cls, TransactionFee):
            info = _core.TransactionFeeClass()
            info.name = cls.__name__
            info.maker = lambda market_id: self._make_transaction_fee(cls, market_id)
            self._core.register_transaction_fee_class(info)
        if cls not in self.registered_classes:
            self.registered_classes.append(cls)

    def _register_listed_classes(self) -> None:
        """Registers the classes a program put in ``registered_classes``
        itself (PAMS reads the list when it sets up, so an append counts).

        Raises:
            ValueError: a class registered before is no longer listed (the
                engine cannot forget it).
        """
        listed = self.registered_classes
        for cls in list(listed):
            if cls not in self.__dict__.get("_engine_classes", ()):
                self.class_register(cls)
        for cls in self.__dict__.get("_engine_classes", ()):
            engine_base = vars(cls).get("_engine_base")
            if cls not in listed and (engine_base is None or cls.__name__ != engine_base):
                raise ValueError(
                    f"runner.registered_classes no longer lists {cls.__name__}, which was "
                    "registered before: pams_cpp's engine cannot forget a class (PAMS would "
                    "not find it): make a new runner and register only the classes to use")

    def _make_agent(self, cls: Type, engine_agent) -> Any:
        # The engine calls this for each agent of a Python class, in the
        # order PAMS creates them (with the prng PAMS gives it).
        agent = cls.__new__(cls)
        _attach_engine(agent, engine_agent)
        agent.__init__(
            agent_id=engine_agent.agent_id,
            prng=EngineRandom(_generator=engine_agent.prng,
                              _owner=f"agent {engine_agent.name}"),
            simulator=self.simulator,
            name=engine_agent.name,
            logger=self.logger,
        )
        return agent

    def _make_event(self, cls: Type, engine_event) -> Any:
        # The engine calls this for each event of a Python class, in PAMS's
        # order (with the prng PAMS gives it).
        event = cls.__new__(cls)
        event._engine = engine_event
        event.__init__(
            event_id=engine_event.event_id,
            prng=EngineRandom(_generator=engine_event.prng, _owner=None),  # draws nothing
            session=engine_event.session,
            simulator=self.simulator,
            name=engine_event.name,
        )
        return event

    # How far this runner got: a runner sets up once and runs once.
    _phase = "new"

    def _make_transaction_fee(self, cls: Type, market_id: int) -> Any:
        # The engine calls this for each market of a group whose
        # transactionFee names a Python class, right before its setup.
        return cls(market=self.simulator.markets[market_id])

    def _setup(self) -> None:
        if self._phase != "new":
            raise _core.SimulationError(
                f"{type(self).__name__}: main() (or _setup()) was called on this runner "
                "before, and a runner sets up and runs once: make a new runner to run again")
        self._phase = "set up"
        self._register_listed_classes()
        # As PAMS, which reads its config when it sets up: a config changed
        # (or replaced: runner.settings = ...) since the runner was made counts.
        self._core.set_settings(self.settings)
        self._take_prng()
        try:
            self._core.setup()
        finally:
            self._put_prng_back()

    def _run(self) -> None:
        if self._phase != "set up":
            raise _core.SimulationError(
                f"{type(self).__name__}: " + ("_run() needs _setup() first" if self._phase == "new"
                                             else "this runner ran before, and a runner runs "
                                             "once: make a new runner to run again"))
        self._phase = "ran"
        self._take_prng()
        self._core.set_python_objects(self.simulator.markets, self.simulator)
        try:
            with _terminate_cleanly():
                self._core.run()
        finally:
            self._put_prng_back()
            if self.logger is not None:
                self.logger._after_run()


def _adopt_runner_prng(runner: Runner, name: str, prng: Any) -> Any:
    """`runner._prng = prng` after the runner was made: the runner draws
    from prng from now on, as PAMS's (see Runner._prng)."""
    fields = runner.__dict__
    old = fields.get(name)
    if "_core" not in fields or old is prng:
        return prng  # the constructor's, checked and bound there
    state = _prng_state(prng)  # TypeError for what the engine cannot draw as
    if isinstance(prng, random.SystemRandom):
        runner._core.set_prng_state(*state)  # a random run, seeded from it
        is_engine = False
    elif type(prng) is random.Random or isinstance(prng, EngineRandom):
        prng = adopt(prng, runner._generator, "runner._prng")
        is_engine = True
    else:
        is_engine = False  # a subclass: copied in and out around each step
    if old is not None:
        release(old)
    fields["_prng_is_engine"] = is_engine
    runner._core.prng_is_engine = is_engine
    return prng


def _describe(value: Any) -> str:
    """A value for messages: its type and its repr, cut short."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__module__}.{type(value).__qualname__}".replace("builtins.", "") + \
        f" {text}"


def _has_state(prng: random.Random) -> bool:
    """Whether prng's state can be taken and set (not so for
    random.SystemRandom, which draws from the operating system)."""
    return not isinstance(prng, random.SystemRandom)


def _prng_state(prng: Any):
    """The engine's starting state for the runner's generator `prng`.

    PAMS draws every number from prng; the engine draws PAMS's numbers from
    a Mersenne Twister, starting from prng's state (getstate()). A
    random.SystemRandom has no state: as in PAMS, the run is random, the
    engine's generator seeded from it. A random.Random subclass that draws
    differently (its own random() or getrandbits()) is refused: the engine
    could not draw its numbers.
    """
    if not isinstance(prng, random.Random):
        raise TypeError("prng must be a random.Random (PAMS's runners draw from one; e.g. "
                        f"random.Random(42)), got {_describe(prng)}")
    if not _has_state(prng):
        return state_of(random.Random(prng.getrandbits(128)))
    from .._random import EngineRandom

    if not isinstance(prng, EngineRandom):
        check_draws_as_random(type(prng), "prng")
    try:
        return state_of(prng)
    except Exception as e:
        raise TypeError(f"prng: the state of {_describe(prng)} cannot be taken "
                        f"(getstate(): {e!r})") from None


def _python_runners_keys() -> List[str]:
    """Every Python runner class's _simulation_keys: those of pams_cpp's
    runners (their modules are loaded for it; their frameworks are not) and
    of the user's subclasses defined so far."""
    from . import jax_parallel  # noqa: F401  (its classes declare keys)
    from . import torch_parallel  # noqa: F401

    keys = set()
    classes = [Runner]
    while classes:
        cls = classes.pop()
        keys.update(cls.__dict__.get("_simulation_keys", ()))
        classes.extend(cls.__subclasses__())
    return sorted(keys)


class _terminate_cleanly:
    """While a run runs on the main thread of a program that leaves SIGTERM
    to its default (end at once), SIGTERM ends it as the pams command does:
    the run stops at the end of its step (within 0.1 s), its loggers write
    every row and close their files, its workers are stopped, and the
    program exits with status 143 (SystemExit). A second SIGTERM ends it at
    once."""

    def __enter__(self):
        import signal
        import threading

        self._previous = None
        if threading.current_thread() is not threading.main_thread():
            return self
        try:
            if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
                return self
            self._previous = signal.signal(signal.SIGTERM, self._handle)
        except (ValueError, OSError):  # no signals here (an embedded interpreter)
            self._previous = None
        return self

    def _handle(self, signum, frame):
        import signal

        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the next one ends at once
        raise SystemExit(128 + signum)

    def __exit__(self, *exc):
        import signal

        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)
        return False


def _progress_bar():
    try:
        from tqdm.auto import tqdm
    except ImportError:
        raise ImportError("main(progress=True) draws its bar with tqdm, which is not "
                          "installed: pip install tqdm") from None
    return tqdm(total=0, unit="step", desc="simulation")


# The methods of the built-in agent classes a Python class may override, each
# with the names whose override counts as one of it.
_AGENT_METHODS = {
    "setup": ("setup",),
    "submit_orders": ("submit_orders", "submit_orders_by_market"),
    "submitted_order": ("submitted_order",),
    "executed_order": ("executed_order",),
    "canceled_order": ("canceled_order",),
}


def _log_kinds(cls: Type) -> Dict[str, bool]:
    """The kinds of logs a Python logger class can see (those whose
    processing it overrides somewhere), and whether the engine may hand it
    market step logs straight to process_market_step_*_log (direct: what
    Logger's write_and_direct_process and process would do)."""
    kinds = {
        kind: any(getattr(cls, name) is not getattr(Logger, name) for name in names)
        for kind, names in LOG_KINDS.items()
    }
    kinds["direct"] = (cls.write_and_direct_process is Logger.write_and_direct_process
                       and cls.process is Logger.process
                       and not getattr(cls, "_feeds_engine", False))
    return kinds


# The steps of PAMS's SequentialRunner, which the engine runs in C++: a
# subclass overriding one would expect the engine to call it.
_ENGINE_STEPS = (
    "_parse_group",
    "_generate_markets",
    "_generate_agents",
    "_set_fundamental_correlation",
    "_generate_sessions",
    "_collect_orders_from_normal_agents",
    "_process_order",
    "_handle_high_frequency_orders",
    "_handle_orders",
    "_update_markets",
    "_iterate_market_updates",
)


def _check_overrides(cls: Type) -> None:
    """Refuses a runner class that defines a step the engine runs in C++.
    Overriding main, _setup, _run or class_register (and calling super())
    works; so do methods of the subclass's own."""
    for klass in cls.__mro__:
        # pams_cpp's own classes (named pams.* under install_as_pams).
        if klass.__module__.startswith(("pams_cpp.", "pams.")):
            break
        for name in _ENGINE_STEPS:
            if name in vars(klass):
                raise NotImplementedError(
                    f"{klass.__name__} defines {name}, a step of PAMS's SequentialRunner that "
                    "pams_cpp's engine runs in C++ and does not call: override main, _setup or "
                    "_run (calling super()), or give agents, markets and events the behaviour")


def _check_engine_calls(cls: Type, builtin: Type, instead: str) -> None:
    """Refuses a subclass that overrides a method its built-in class calls
    from its own C++ code (which would not call the override)."""
    for name in getattr(builtin, "_engine_calls", ()):
        # getattr's default: PAMS's helper may have no counterpart here
        # (ArbitrageAgent._submit_orders), which a subclass defining it
        # would expect called.
        if getattr(cls, name, None) is not getattr(builtin, name, None):
            raise NotImplementedError(
                f"{cls.__name__} overrides {name}, which the engine's {builtin.__name__} "
                f"calls from its own C++ code: override {instead} instead")


def _event_class(cls: Type, make_event) -> "_core.EventClass":
    """How the engine runs cls: its nearest built-in class (Event for
    EventABC) and the methods it overrides (the others run in C++)."""
    from ..events.base import EVENT_METHODS

    builtin = next(c for c in cls.__mro__ if "_engine_base" in vars(c))
    _check_engine_calls(cls, builtin, "its hooked_* methods")
    info = _core.EventClass()
    info.name = cls.__name__
    info.base = builtin._engine_base
    info.maker = lambda engine_event: make_event(cls, engine_event)
    info.overrides = [m for m in EVENT_METHODS if getattr(cls, m) is not getattr(builtin, m)]
    return info


def _agent_class(cls: Type, make_agent) -> "_core.AgentClass":
    """How the engine runs cls: its nearest built-in class and the methods it
    overrides (checked once, so that what it does not override costs no
    Python call)."""
    from ..agents.model_call import check_model_call_methods

    builtin = next(c for c in cls.__mro__ if "_engine_base" in vars(c))
    _check_engine_calls(cls, builtin, "submit_orders")
    batches = check_model_call_methods(cls)
    info = _core.AgentClass()
    info.name = cls.__name__
    info.base = builtin._engine_base
    info.maker = lambda engine_agent: make_agent(cls, engine_agent)
    for method, names in _AGENT_METHODS.items():
        overridden = any(
            getattr(cls, name, None) is not getattr(builtin, name, None) for name in names
        )
        setattr(info, method, overridden)
    info.batches = batches
    return info


__all__ = ["Runner"]
