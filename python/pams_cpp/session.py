"""Session: a phase of a simulation with its own rules (steps, orders,
execution) (PAMS's ``pams.Session``).

Build one by hand as in PAMS, ``Session(session_id=0, prng=..., session_start_time=0,
simulator=simulator, name="session")``, then ``setup(settings)``; its
attributes (``iteration_steps``, ``with_order_placement``, ...) may be
changed as PAMS's may.
"""
import random

from . import _core
from ._arguments import MAX_STEP
from ._arguments import id_of
from ._arguments import step_of
from ._arguments import str_of
from ._random import EngineRandom
from ._random import state_of

Session = _core.Session


def _new(cls, session_id: int, prng: random.Random, session_start_time: int, simulator,
         name: str, logger=None, *args, **kwargs):
    """A session built by hand (PAMS's constructor arguments)."""
    context = getattr(simulator, "_context", None)
    if context is None:
        raise TypeError(f"{cls.__name__}: simulator must be a pams_cpp Simulator, got "
                        f"{type(simulator).__name__}")
    if not isinstance(prng, random.Random):
        raise TypeError(f"{cls.__name__}: prng must be a random.Random, got "
                        f"{type(prng).__name__}")
    owner = cls.__name__
    session = context.new_session(
        cls, id_of(owner, "session_id", session_id), *state_of(prng),
        step_of(owner, "session_start_time", session_start_time, -MAX_STEP),
        str_of(owner, "name", name))
    session._prng = prng
    session._simulator = simulator
    session._logger = logger
    return session




from .market import _context  # noqa: E402  (the same lookup)


def _prng(self) -> random.Random:
    """random.Random: the session's own generator (PAMS's attribute; the
    engine's sessions draw nothing, as PAMS's, so any value may be assigned
    and reads back as assigned)."""
    fields = vars(self)
    prng = fields.get("_prng")
    if prng is None:
        # The engine's session draws nothing from it: no owner.
        prng = fields["_prng"] = EngineRandom(_generator=self._engine_prng, _owner=None)
    return prng


def _set_prng(self, prng) -> None:
    vars(self)["_prng"] = prng


def _simulator(self):
    """Simulator: the simulator this session belongs to (PAMS's attribute;
    nothing in the engine reads it back, as in PAMS)."""
    simulator = vars(self).get("_simulator")
    if simulator is None:
        simulator = getattr(_context(self), "_python_simulator", None)
    return simulator


def _set_simulator(self, simulator) -> None:
    vars(self)["_simulator"] = simulator


def _logger(self):
    """Logger | None: the session's logger (PAMS's attribute: its sessions
    write no logs, the runner writes the session logs to its own logger;
    assigning one keeps it, as in PAMS)."""
    if "_logger" in vars(self):
        return vars(self)["_logger"]
    return getattr(_simulator(self), "logger", None)


def _set_logger(self, logger) -> None:
    vars(self)["_logger"] = logger


def _refuse(name: str, why: str):
    def refuse(self, value) -> None:
        raise AttributeError(f"{type(self).__name__}.{name} {why}")
    return refuse


def _repr(self) -> str:
    return (
        f"<{self.__class__.__module__}.{self.__class__.__name__} | id={self.session_id}, "
        f"name={self.name}, iteration_steps={self.iteration_steps}, "
        f"session_start_time={self.session_start_time}, "
        f"max_normal_orders={self.max_normal_orders}, "
        f"max_high_frequency_orders={self.max_high_frequency_orders}, "
        f"with_order_placement={self.with_order_placement}, "
        f"with_order_execution={self.with_order_execution}, "
        f"high_frequency_submission_rate={self.high_frequency_submission_rate}, "
        f"with_print={self.with_print}, logger={self.logger}>"
    )


_engine_setup = Session.setup


def setup(self, settings, *args, **kwargs) -> None:
    """Reads the session's config, as PAMS's Session.setup (the engine's
    code): iterationSteps, withOrderPlacement, withOrderExecution, withPrint
    (required), maxNormalOrders, maxHighFrequencyOrders,
    highFrequencySubmitRate (optional).

    Args:
        settings (Dict[str, Any]): the session's object in the config.
        *args: not used (PAMS's signature).
        **kwargs: not used (PAMS's signature).

    Raises:
        ValueError: a key is missing or has a bad value.
    """
    _engine_setup(self, settings)


Session.setup = setup
Session._engine_prng = Session.prng
Session.__repr__ = _repr
Session.__module__ = __name__
Session.prng = property(_prng, _set_prng)
Session.simulator = property(_simulator, _set_simulator)
Session.logger = property(_logger, _set_logger)
for _name, _why in (
        ("session_id", "is the engine's: the engine knows the session by it"),
        ("name", "is the engine's: the engine knows the session by it"),
        ("session_start_time", "is the engine's (the sum of the earlier sessions' "
                               "iterationSteps), which the events of the session were set "
                               "up with: set the sessions' iterationSteps in the config")):
    _prop = getattr(Session, _name)
    setattr(Session, _name, property(_prop.fget, _refuse(_name, _why), None, _prop.__doc__))

__all__ = ["Session"]
