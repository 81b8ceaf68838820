"""SequentialRunner: every agent is called in turn (PAMS's SequentialRunner).

Besides ``main()``, its steps are PAMS's: ``_setup()`` is
``_generate_markets``, ``_set_fundamental_correlation``,
``_generate_agents`` and ``_generate_sessions`` followed by the
``_pending_setups``; ``_run()`` loops over ``_iterate_market_updates``,
whose steps are ``_update_markets`` = ``_collect_orders_from_normal_agents``
+ ``_handle_orders`` (with ``_handle_high_frequency_orders`` and
``_process_order``). Each runs the engine's step, the code ``main()`` runs,
so a program that drives a simulation by calling them in ``_run``'s order
(as PAMS's tests and pamsenvs do) gets ``main()``'s results bit for bit.
"""
from typing import Any
from typing import Callable
from typing import Dict
from typing import List
from typing import Optional
from typing import Tuple
from typing import Union

from .. import _core
from .._attributes import EngineList
from ..order import Cancel
from ..order import Order
from .base import Runner


class SequentialRunner(Runner):
    """PAMS's sequential runner, on the C++ engine: each step, the normal
    agents are asked for orders one after the other, in a shuffled order,
    until ``maxNormalOrders`` of them gave some.

    For the same config and seed it gives PAMS 0.3.0's results bit for bit
    (market logs, agents, the generator's state), Python classes included,
    about two orders of magnitude faster; it is what the parallel runners'
    results are compared with.

    Config keys read in ``"simulation"`` besides the simulation's own
    (``markets``, ``agents``, ``sessions``, ``fundamentalCorrelations``):
    ``batchModelCalls`` (bool, default true: agents that batch their model
    calls make one call per model and round). The parallel runners' keys
    (``numParallel``, ``startMethod``, ...) are ignored here.

    Args:
        settings: the config: a dict, a path (str or os.PathLike) of a JSON
            file, or an open file.
        prng (random.Random, Optional): the runner's generator (a fresh
            ``random.Random()`` when None).
        logger (Logger, Optional): a logger.
        simulator_class: the class of ``self.simulator`` (Simulator or a
            subclass).

    Raises:
        TypeError: a bad settings, prng, logger or simulator_class.
        pams_cpp.ConfigError: a bad config, naming the key.

    Note:
        Besides ``main()``, PAMS's steps (``_setup``, ``_run``,
        ``_collect_orders_from_normal_agents``, ``_handle_orders``, ...) can
        be called one by one, as PAMS's tests do: each runs the engine's
        step, so a program that calls them in ``_run``'s order gets
        ``main()``'s results (see the module's doc).
    """

    _engine_class = "SequentialRunner"

    # --- PAMS's setup steps

    def _generate_markets(self, market_type_names: List[str]) -> None:
        """Creates the markets of these config groups (their setups wait in
        _pending_setups).

        Raises:
            ValueError: a name that is not a group of the config.
        """
        self._step(_core._runner_generate_markets,
                   _group_names(market_type_names, "_generate_markets", "market_type_names"))
        self.simulator.markets  # noqa: B018  (hands the engine the new list)

    def _set_fundamental_correlation(self) -> None:
        """Reads simulation.fundamentalCorrelations.

        Raises:
            NotImplementedError: a kind of correlation other than "pairwise".
            ValueError: a bad entry.
        """
        simulation = self.settings.get("simulation", {})
        correlations = simulation.get("fundamentalCorrelations", {}) \
            if isinstance(simulation, dict) else {}
        if isinstance(correlations, dict):
            for key in correlations:
                if key != "pairwise":
                    raise NotImplementedError(
                        f"{key} for simulation.fundamentalCorrelations is not supported")
        self._step(_core._runner_set_fundamental_correlation)

    def _generate_agents(self, agent_type_names: List[str]) -> None:
        """Creates the agents of these config groups (their setups wait in
        _pending_setups)."""
        self._step(_core._runner_generate_agents,
                   _group_names(agent_type_names, "_generate_agents", "agent_type_names"))

    def _generate_sessions(self) -> None:
        """Creates the sessions and their events (their setups wait in
        _pending_setups)."""
        self._step(_core._runner_generate_sessions)

    @property
    def _pending_setups(self) -> List[Tuple[Callable, Dict[str, Any]]]:
        """PAMS's (setup method, keyword arguments) of each object generated
        and not set up yet, in the order they will run (a list the engine
        reads itself: call the setups, not change the list; assigning an
        empty list where none is left, as pamsenvs does after _setup(), is
        allowed)."""
        out = EngineList((), "runner._pending_setups", _PENDING_INSTEAD)
        for kind, engine, settings, ids in _core._runner_pending_setups(self._core):
            if kind == "market":
                list.append(out, (engine.setup, {"settings": settings}))
            elif kind == "agent":
                agent = self.simulator._python_agent(engine)
                list.append(out, (agent.setup, {"settings": settings,
                                          "accessible_markets_ids": list(ids)}))
            elif kind == "session":
                list.append(out, (engine.setup, {"settings": settings}))
            elif kind == "event":
                event = self.simulator._event_object(engine)
                list.append(out, (event.setup, {"settings": settings}))
            elif kind == "transaction_fee":
                list.append(out, (_transaction_fee_setup, {"_market": engine}))
            else:
                event = self.simulator._event_object(engine)
                list.append(out, (_event_hook_setup, {"_event": event}))
        return out

    @_pending_setups.setter
    def _pending_setups(self, setups: Any) -> None:
        if len(setups) == 0 and len(self._pending_setups) == 0:
            return  # nothing left to run, and nothing is to be run
        raise AttributeError(f"{type(self).__name__}._pending_setups: {_PENDING_INSTEAD}")

    # --- PAMS's run steps

    # PAMS's two order steps, which a hand-driven loop calls at every step:
    # C++ methods (runner_steps.cc) that call the engine's step directly, or
    # the Python methods below where _step has work to do.
    _collect_orders_from_normal_agents = _core._collect_orders_from_normal_agents
    _handle_orders = _core._handle_orders

    def _collect_orders_by_step(self, session: "Session"  # noqa: F821
                                ) -> List[List[Union[Order, Cancel]]]:
        """_collect_orders_from_normal_agents through _step.

        Raises:
            AssertionError: orders while the session accepts none.
            ValueError: an order of another agent.
        """
        # The engine asks self._ask() (its usual answer, None, found there).
        return self._step(_core._runner_collect_orders, session, self)

    def _handle_orders_by_step(
        self, session: "Session", local_orders: List[List[Union[Order, Cancel]]]  # noqa: F821
    ) -> List[List[Union[Order, Cancel]]]:
        """_handle_orders through _step.

        Raises:
            AssertionError: orders while the session accepts none.
            ValueError: an order of another agent.
            NotImplementedError: something that is neither an Order nor a Cancel.
        """
        return self._step(_core._runner_handle_orders, session, local_orders, self)

    def _handle_high_frequency_orders(
        self, session: "Session"  # noqa: F821
    ) -> List[List[Union[Order, Cancel]]]:
        """The high-frequency agents' turn; returns their lists."""
        if not isinstance(session, _core.Session) and not self.simulator.high_frequency_agents:
            return []  # PAMS asks no agent (and reads no session) when there is none
        _session(session, "_handle_high_frequency_orders")
        return self._step(_core._runner_handle_high_frequency_orders, session, self)

    def _process_order(self, session: "Session", order: Union[Order, Cancel]) -> None:  # noqa: F821
        """Processes one order or cancel and the executions it causes.

        Raises:
            AssertionError: the session accepts no orders.
            NotImplementedError: neither an Order nor a Cancel.
        """
        _session(session, "_process_order")
        if not isinstance(order, (Order, Cancel)):
            raise NotImplementedError(f"neither an Order nor a Cancel: {order!r}")
        self._step(_core._runner_process_order, session, order)

    def _update_markets(self, session: "Session") -> None:  # noqa: F821
        """One step's orders: _collect_orders_from_normal_agents, then
        _handle_orders."""
        if not isinstance(session, _core.Session) and not self.simulator.normal_frequency_agents:
            return  # PAMS asks no agent (and reads no session) when there is none
        _session(session, "_update_markets")
        if self._prng_is_engine and self.simulator._markets_handed:
            # As in _collect_orders_from_normal_agents.
            _core._runner_update_markets(self._core, session, self)
        else:
            self._step(_core._runner_update_markets, session, self)

    def _iterate_market_updates(self, session: "Session") -> None:  # noqa: F821
        """The steps of one session (hooks, logs, orders, time)."""
        _session(session, "_iterate_market_updates")
        self._step(_core._runner_iterate_market_updates, session, self)

    # --- helpers

    def _method_checks(self, key):
        """The (class __dict__, name, original) checks of the built-in
        agent classes this simulation's agents inherit from, kept in
        _checks_for with KEY (the simulator's objects_key(): _ask finds
        them again until agents are added, and a step then makes a few
        identity checks)."""
        classes = set()
        for cls in self.simulator._core.agent_classes:
            cls = _builtin_class(cls) if isinstance(cls, str) else cls
            if cls is not None:
                classes.update(cls.__mro__)
        checks = [c for c, cls in zip(_CHECKS, _CHECKED_CLASSES) if cls in classes] \
            if classes else list(_CHECKS)
        self._checks_for = (key, checks)
        return checks

    def _step(self, step, *args):
        # Reading the markets hands the engine the simulator's list for the
        # objects it holds now (Simulator.markets, which hands it only when
        # it is new), which Python agents get as `markets`.
        self.simulator.markets  # noqa: B018
        if self._prng_is_engine:
            return step(self._core, *args)
        self._take_prng()
        try:
            return step(self._core, *args)
        finally:
            self._put_prng_back()

    def _ask(self) -> Optional[Callable]:
        """What the engine asks instead of a built-in agent's own code: the
        submit_orders a program put in place of a built-in class's at run
        time (as PAMS's tests do with unittest.mock.patch); None when there
        is none (then the engine asks every agent itself). The steps find
        the usual None in the engine (runner_steps.cc's AskOf, with the
        checks of _method_checks) and call this only for a replaced one."""
        key = self.simulator._context.objects_key()
        cached = self.__dict__.get("_checks_for")
        checks = (cached[1] if cached is not None and cached[0] == key
                  else self._method_checks(key))
        if not _core._any_method_replaced(checks):
            return None
        simulator = self.simulator

        def ask(engine_agent):
            agent = simulator._python_agent(engine_agent)
            if not _uses_replaced_method(type(agent)):
                return None
            return agent.submit_orders(markets=simulator.markets)

        return ask


def _session(session, step: str) -> None:
    """A step's session: a Session (TypeError naming the step otherwise;
    PAMS fails on the first attribute it reads)."""
    if not isinstance(session, _core.Session):
        raise TypeError(f"SequentialRunner.{step}: session must be a Session of the runner's "
                        f"simulator, got {session!r:.60} ({type(session).__name__})")


def _group_names(names, step: str, argument: str) -> List[str]:
    """A list of config group names (PAMS looks each up in the config: a
    value that is no str is not there either, PAMS's ValueError)."""
    try:
        names = list(names)
    except TypeError:
        raise TypeError(f"SequentialRunner.{step}: {argument} must be a list of the config's "
                        f"group names, got {names!r:.60}") from None
    for name in names:
        if not isinstance(name, str):
            raise ValueError(f"{name!r:.60} setting is missing in config "
                             f"(SequentialRunner.{step}: {argument} holds the config's group "
                             "names, str)")
    return names


_PENDING_INSTEAD = (
    "the setups are the engine's, which runs those left when the runner sets up (_setup()): "
    "run one by calling it (func(**kwargs)), and set objects up otherwise by calling their "
    "setup yourself")


def _event_hook_setup(_event) -> None:
    """PAMS's pending setup that registers an event's hooks."""
    for hook in _event.hook_registration():
        _event.simulator._add_event(hook)


_event_hook_setup.__name__ = "event_hook_setup"  # PAMS's name for it


_SUBMIT_METHODS = ("submit_orders", "submit_orders_by_market")
_ORIGINAL_METHODS: Dict[type, Dict[str, Any]] = {}
# (class, name, original) of each built-in agent method: checked at every
# step (by _core._any_method_replaced, a few dict lookups), so kept flat.
_CHECKS: List[Tuple[Any, str, Any]] = []
_CHECKED_CLASSES: List[type] = []  # the class of each check


def _builtin_agent_classes():
    from .. import agents

    out = []
    for name in agents.__all__:
        cls = getattr(agents, name)
        if isinstance(cls, type) and "_engine_base" in vars(cls):
            out.append(cls)
    return out


def _builtin_class(name: str):
    from .. import agents

    cls = getattr(agents, name, None)
    return cls if isinstance(cls, type) else None


def _remember_methods() -> None:
    for cls in _builtin_agent_classes():
        _ORIGINAL_METHODS[cls] = {m: vars(cls).get(m) for m in _SUBMIT_METHODS}
        for m in _SUBMIT_METHODS:
            _CHECKS.append((cls, m, vars(cls).get(m)))
            _CHECKED_CLASSES.append(cls)


def _uses_replaced_method(cls: type) -> bool:
    """Whether agents of cls would run a replaced built-in method: their
    submit_orders (or FCNAgent's submit_orders_by_market) resolves to a
    built-in class's attribute that is not the original."""
    for name in _SUBMIT_METHODS:
        for klass in cls.__mro__:
            if name in vars(klass):
                if klass in _ORIGINAL_METHODS and vars(klass)[name] is not \
                        _ORIGINAL_METHODS[klass].get(name):
                    return True
                break
    return False


_remember_methods()

__all__ = ["SequentialRunner"]


def _transaction_fee_setup(_market: Any) -> None:
    """A market's transaction fee (PAMS's development branch) is made and
    set up by the runner's own setup, not by hand."""
    raise NotImplementedError(
        f"the transaction fee of market {_market.name} is made and set up by the runner's "
        "setup (runner._setup()), not from _pending_setups by hand")
