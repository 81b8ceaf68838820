"""Agent: the base of the agents (PAMS's ``pams.agents.Agent``).

Subclass it, or one of the built-in agents, as in PAMS, and register the
class with ``runner.class_register(cls)``: the engine creates its agents
from the config and calls the methods the class overrides (``setup``,
``submit_orders``, ``submitted_order``, ``executed_order``,
``canceled_order``); what it does not override runs in C++ at the engine's
speed. ``super()`` reaches the built-in class's own code.

An agent's cash and asset volumes are the engine's: ``cash_amount`` and
``asset_volumes`` read and change them (the engine changes them on
executions), and ``prng`` is a ``random.Random`` that draws from the
engine's generator of the agent, so that Python and C++ draws interleave
exactly as in PAMS.
"""
import random
from abc import ABC
from abc import abstractmethod
from collections.abc import MutableMapping
from typing import Any
from typing import Dict
from typing import Iterator
from typing import List
from typing import Optional
from typing import Tuple
from typing import Union

from ..logs.base import CancelLog
from ..logs.base import ExecutionLog
from ..logs.base import Logger
from ..logs.base import OrderLog
from ..order import Cancel
from ..order import Order


class _Detached:
    """The engine agent of an agent made outside a runner: there is none."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise RuntimeError(
            "this agent is not part of a simulation: pams_cpp's agents are created by a "
            "runner from the config (register Python classes with runner.class_register)"
        )


class _AssetVolumes(MutableMapping):
    """An agent's asset volumes by market id, as PAMS's dict: reading and
    setting them reads and sets the engine's."""

    __slots__ = ("_engine",)

    def __init__(self, engine) -> None:
        self._engine = engine

    def __getitem__(self, market_id: int) -> int:
        if not self._engine.is_market_accessible(market_id):
            raise KeyError(market_id)
        return self._engine.get_asset_volume(market_id)

    def __setitem__(self, market_id: int, volume: int) -> None:
        if not self._engine.is_market_accessible(market_id):
            self._engine.set_market_accessible(market_id)
        self._engine.set_asset_volume(market_id, volume)

    def __delitem__(self, market_id: int) -> None:
        raise TypeError("a market cannot be made inaccessible again")

    def __iter__(self) -> Iterator[int]:
        return iter(self._engine.accessible_market_ids)

    def __len__(self) -> int:
        return len(self._engine.accessible_market_ids)

    def __contains__(self, market_id: object) -> bool:
        return isinstance(market_id, int) and self._engine.is_market_accessible(market_id)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class Agent(ABC):
    """A trader. Subclasses define submit_orders (see the module's doc).

    Attributes:
        synced_attributes (Optional[Union[Tuple[str, ...], List[str]]]): the
            names of the attributes that come back from a worker process of
            ``MultiProcessAgentParallelRunner`` (and its TensorFlow, PyTorch
            and JAX siblings) after a call of ``submit_orders`` there (PAMS's
            development branch). None (the default): every attribute of the
            agent comes back, as if the call had run in the main process.
            A tuple or list of names (a class attribute, or an instance's own
            value set in ``setup``): only these come back; an attribute the
            call assigned, added or deleted that is not listed keeps its old
            value in the main process (the worker's change is lost, and a
            warning names it once per class and attribute), which is the
            branch's rule. ``()`` lists nothing: only the orders, the
            generator's state and the engine's part (cash, volumes) come back.
            A change made in place to an unlisted object (appending to an
            unlisted list) is lost too, without a warning.

    Note:
        The engine's part of an agent (``cash_amount``, ``asset_volumes``,
        the generator ``prng``) always comes back, listed or not;
        ``"agent_id"`` and ``"name"`` may be listed and are the same in
        every process. ``"simulator"``, ``"logger"``, ``"prng"``,
        ``"_engine"`` and ``"__dict__"`` cannot be listed (ValueError). A
        value that is not a tuple or list of str raises TypeError. Only the
        process runners read it: ``SequentialRunner`` and
        ``MultiThreadAgentParallelRunner`` call the agents themselves, and
        every change stays. On PAMS's branch an agent that sets nothing
        loses every change made in a worker; here it keeps them (the
        default None), so code written for the branch gives at least the
        branch's state.
    """

    # The engine class that runs this class's agents (each built-in class
    # names its own).
    _engine_base = "Agent"
    # What comes back from a worker process (see the class's doc); None:
    # every attribute.
    synced_attributes: Optional[Union[Tuple[str, ...], List[str]]] = None
    # The engine agent (set by the runner before __init__).
    _engine: Any = _Detached()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A class whose model calls are batched (prepare_model_calls and
        # submit_orders_with_model_outputs, see model_call.py) and whose
        # submit_orders is still pams_cpp's gets the unbatched one, for
        # hand-driven code and batchModelCalls false.
        from .model_call import defines_model_calls

        if all(defines_model_calls(cls)) and _submit_orders_is_builtin(cls):
            cls.submit_orders = _submit_orders_with_model_calls  # type: ignore[method-assign]

    def __init__(
        self,
        agent_id: int,
        prng: random.Random,
        simulator: "Simulator",  # noqa: F821
        name: str,
        logger: Optional[Logger] = None,
    ) -> None:
        if "_engine" not in vars(self):
            _build_engine_agent(self, agent_id, prng, simulator, name)
        self.agent_id: int = agent_id
        self.name: str = name
        self.prng: random.Random = prng
        self.simulator = simulator
        self.logger: Optional[Logger] = logger

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__module__}.{self.__class__.__name__} | id={self.agent_id}, "
            f"name={self.name}, logger={self.logger}>"
        )

    @property
    def cash_amount(self) -> float:
        """The agent's cash (a float), as PAMS's ``Agent.cash_amount``.

        Setting it replaces the cash held (the engine's copy: what orders
        and executions change)."""
        return self._engine.cash_amount

    @cash_amount.setter
    def cash_amount(self, cash_amount: float) -> None:
        self._engine.set_cash_amount(float(cash_amount))

    @property
    def asset_volumes(self) -> Dict[int, int]:
        """The agent's asset volumes by market id (a live mapping)."""
        return _AssetVolumes(self._engine)

    @asset_volumes.setter
    def asset_volumes(self, volumes: Dict[int, int]) -> None:
        target = _AssetVolumes(self._engine)
        for market_id, volume in dict(volumes).items():
            target[market_id] = volume

    def setup(  # type: ignore
        self,
        settings: Dict[str, Any],
        accessible_markets_ids: List[int],
        *args,
        **kwargs,
    ) -> None:
        """Draws cashAmount and assetVolume (one per accessible market)."""
        self._engine._base_setup(settings, list(accessible_markets_ids))

    def get_asset_volume(self, market_id: int) -> int:
        """The asset volume the agent holds in one market.

        Args:
            market_id (int): the market's id.

        Returns:
            int: the volume held (negative for a short position).

        Raises:
            ValueError: the market is not accessible to the agent."""
        if not self.is_market_accessible(market_id=market_id):
            raise ValueError(f"market {market_id} is not accessible")
        return self._engine.get_asset_volume(market_id)

    def get_cash_amount(self) -> float:
        """The cash the agent holds.

        Returns:
            float: the cash amount (``cash_amount``)."""
        return self._engine.cash_amount

    def get_prng(self) -> random.Random:
        """The agent's own random generator (PAMS's ``prng``).

        Returns:
            random.Random: a generator with CPython's ``random.Random``
            methods and results, seeded by the runner."""
        return self.prng

    def is_market_accessible(self, market_id: int) -> bool:
        """Whether the agent may trade in market `market_id`."""
        return self._engine.is_market_accessible(market_id)

    def submitted_order(self, log: OrderLog) -> None:  # noqa: B027
        """Called when a market accepted one of the agent's orders."""

    def executed_order(self, log: ExecutionLog) -> None:  # noqa: B027
        """Called when one of the agent's orders was executed."""

    def canceled_order(self, log: CancelLog) -> None:  # noqa: B027
        """Called when a market accepted one of the agent's cancels."""

    def set_asset_volume(self, market_id: int, volume: int) -> None:
        """Sets the volume held in an accessible market."""
        if not self.is_market_accessible(market_id=market_id):
            raise ValueError(f"market {market_id} is not accessible")
        if not isinstance(volume, int):
            raise ValueError("volume have to be int")
        self._engine.set_asset_volume(market_id, volume)

    def set_cash_amount(self, cash_amount: float) -> None:
        """Replaces the cash the agent holds.

        Args:
            cash_amount (float): the new cash amount."""
        self._engine.set_cash_amount(float(cash_amount))

    def set_market_accessible(self, market_id: int) -> None:
        """Makes a market accessible, with volume 0."""
        if self.is_market_accessible(market_id=market_id):
            raise ValueError(f"market {market_id} is already accessible")
        self._engine.set_market_accessible(market_id)

    @abstractmethod
    def submit_orders(self, markets: List["Market"]) -> List[Union[Order, Cancel]]:  # noqa: F821
        """The agent's orders and cancels for this step (subclasses define it).

        Args:
            markets (List[Market]): every market of the simulation.

        Returns:
            List[Union[Order, Cancel]]: what the agent submits now (empty:
            nothing)."""

    def update_asset_volume(self, market_id: int, delta: int) -> None:
        """Adds delta to the volume held in an accessible market."""
        if not self.is_market_accessible(market_id=market_id):
            raise ValueError(f"market {market_id} is not accessible")
        if not isinstance(delta, int):
            raise ValueError("delta have to be int")
        self._engine.update_asset_volume(market_id, delta)

    def update_cash_amount(self, delta: float) -> None:
        """Adds ``delta`` to the cash the agent holds.

        Args:
            delta (float): the change (negative to take cash away)."""
        self._engine.update_cash_amount(float(delta))


def _submit_orders_with_model_calls(self, markets):  # type: ignore[no-untyped-def]
    """This step's orders: prepare_model_calls, each model called on its
    single row, then submit_orders_with_model_outputs (a runner with
    batchModelCalls true batches the model calls of a round instead)."""
    from .model_call import submit_orders_with_model_calls

    return submit_orders_with_model_calls(self, markets)


def _submit_orders_is_builtin(cls: type) -> bool:
    """Whether cls's submit_orders is pams_cpp's own (Agent's abstract one or
    a built-in agent's), not one a user class defines."""
    for klass in cls.__mro__:
        if "submit_orders" in vars(klass) or "submit_orders_by_market" in vars(klass):
            return klass.__module__.startswith(("pams_cpp.", "pams."))
    return True


# The Python faces of engine classes defined outside pams_cpp (the samples
# of PAMS's development branch: samples/*/ of the repository), by engine
# class name, as their modules define them.
_FACES: Dict[str, type] = {}


def _build_engine_agent(agent: Agent, agent_id: int, prng, simulator, name: str) -> None:
    """The engine agent of an agent a program builds by hand (PAMS's
    FCNAgent(agent_id=..., prng=..., simulator=..., name=...)): an engine agent
    of its nearest built-in class in the simulation of `simulator`, whose
    built-in code draws from `prng` (the object given, as in PAMS)."""
    context = getattr(simulator, "_context", None)
    if context is None:
        return  # no pams_cpp simulation: the agent stays detached (see _Detached)
    if not isinstance(prng, random.Random):
        raise TypeError(f"{type(agent).__name__}: prng must be a random.Random, got "
                        f"{type(prng).__name__}")
    from .._random import state_of
    from ..runners.base import _agent_class

    from .._arguments import id_of
    from .._arguments import str_of

    owner = type(agent).__name__
    agent._engine = context.new_agent(agent, _agent_class(type(agent), None),
                                      id_of(owner, "agent_id", agent_id), *state_of(prng),
                                      str_of(owner, "name", name))


class _BuiltinAgent(Agent):
    """The base of the built-in agents, which the engine runs in C++."""

    _engine_base = "Agent"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_engine_base" in vars(cls) and not cls.__module__.startswith("pams_cpp."):
            _FACES[cls._engine_base] = cls

    def submit_orders(self, markets):
        """The built-in class's orders, computed by the engine."""
        return self._engine._base_submit_orders(list(markets))


class _EngineAgent(_BuiltinAgent):
    """An agent of a C++ class that pams_cpp has no Python class for (a
    plugin's)."""


__all__ = ["Agent"]
