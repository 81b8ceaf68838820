"""Agent: the base of the agents (PAMS's ``pams.agents.Agent``).

Subclass it, or one of the built-in agents, as in PAMS, and register the
class with ``runner.class_register(cls)``: the engine creates its agents
from the config and calls the methods the class overrides (``setup``,
``submit_orders``, ``submitted_order``, ``executed_order``,
``canceled_order``); what it does not override runs in C++ at the engine's
speed. ``super()`` reaches the built-in class's own code.

An agent's cash and asset volumes are the engine's: ``cash_amount`` and
``asset_volumes`` (a dict kept in step with the engine) read and change
them (the engine changes them on executions), and ``prng`` is a
``random.Random`` that draws from the engine's generator of the agent, so
that Python and C++ draws interleave exactly as in PAMS; a generator
assigned later becomes the one both draw from.
"""
import numbers
import random
from abc import ABC
from abc import abstractmethod
from typing import Any
from typing import Dict
from typing import Iterator
from typing import List
from typing import Optional
from typing import Tuple
from typing import Union

from .._attributes import Assigned
from .._attributes import engine_methods
from .._attributes import fixed
from .._random import EngineRandom
from .._random import adopt
from .._random import release
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


class _AssetVolumes(dict):
    """An agent's asset volumes by market id: a dict, as PAMS's, kept in step
    with the engine's (which executions change).

    Every read asks the engine (``[]``, ``get``, ``in``, iteration,
    ``items()``, ``==``, ``repr``, ``json.dumps``: the C code that reads the
    dict itself goes through ``items()`` or iteration, which bring the
    dict's own entries up to date first), and every change is the engine's
    (``[] =`` makes a market accessible if needed; ``del``, ``pop`` and
    ``clear`` make markets inaccessible). ``copy()``, ``copy.copy``,
    ``copy.deepcopy`` and pickle give a plain dict of the volumes of now:
    a snapshot, as PAMS's copies are.
    """

    __slots__ = ("_engine",)

    def __init__(self, engine: Any) -> None:
        super().__init__()
        self._engine = engine

    def _fresh(self) -> "_AssetVolumes":
        # The dict's own entries become the engine's: what C code reading the
        # dict directly sees after this.
        dict.clear(self)
        dict.update(self, self._engine.asset_volumes)
        return self

    def __getitem__(self, market_id: Any) -> int:
        engine = self._engine
        try:
            accessible = engine.is_market_accessible(market_id)
        except TypeError:
            raise KeyError(market_id) from None
        if not accessible:
            raise KeyError(market_id)
        return engine.get_asset_volume(market_id)

    def get(self, market_id: Any, default: Any = None) -> Any:
        """The volume held in market_id, or default when it is not accessible."""
        try:
            return self[market_id]
        except KeyError:
            return default

    def __contains__(self, market_id: object) -> bool:
        try:
            return bool(self._engine.is_market_accessible(market_id))
        except TypeError:
            return False

    def __setitem__(self, market_id: int, volume: int) -> None:
        if isinstance(market_id, bool) or not isinstance(market_id, numbers.Integral):
            raise TypeError(f"asset_volumes: market ids are ints, got {market_id!r}")
        if isinstance(volume, bool) or not isinstance(volume, numbers.Integral):
            raise TypeError(
                f"asset_volumes[{market_id}]: volumes are ints in pams_cpp's engine, got "
                f"{volume!r} (PAMS keeps any value, and its orders then compute with it; "
                "give an int)")
        engine = self._engine
        if not engine.is_market_accessible(int(market_id)):
            engine.set_market_accessible(int(market_id))
        engine.set_asset_volume(int(market_id), int(volume))

    def __delitem__(self, market_id: Any) -> None:
        if market_id not in self:
            raise KeyError(market_id)
        self._engine.set_market_inaccessible(market_id)

    def pop(self, market_id: Any, *default: Any) -> Any:
        """Removes a market (inaccessible from now on); returns its volume."""
        if market_id not in self:
            if default:
                return default[0]
            raise KeyError(market_id)
        volume = self[market_id]
        del self[market_id]
        return volume

    def popitem(self) -> Tuple[int, int]:
        """Removes the market made accessible last; returns (id, volume)."""
        ids = self._engine.accessible_market_ids
        if not ids:
            raise KeyError("popitem(): dictionary is empty")
        return ids[-1], self.pop(ids[-1])

    def clear(self) -> None:
        """Makes every market inaccessible."""
        for market_id in list(self._engine.accessible_market_ids):
            del self[market_id]

    def setdefault(self, market_id: int, default: int = None) -> Any:  # type: ignore[assignment]
        """The volume of market_id, made accessible with `default` if it is not."""
        if market_id not in self:
            self[market_id] = default
        return self[market_id]

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Sets the volumes given (a mapping or pairs), as dict.update."""
        for market_id, volume in dict(*args, **kwargs).items():
            self[market_id] = volume

    def __ior__(self, other: Any) -> "_AssetVolumes":
        self.update(other)
        return self

    def __or__(self, other: Any) -> Dict[int, int]:
        return dict(self._fresh()) | other

    def __ror__(self, other: Any) -> Dict[int, int]:
        return other | dict(self._fresh())

    def __iter__(self) -> Iterator[int]:
        return iter(list(self._engine.accessible_market_ids))

    def __reversed__(self) -> Iterator[int]:
        return reversed(list(self._engine.accessible_market_ids))

    def __len__(self) -> int:
        return len(self._engine.accessible_market_ids)

    def keys(self):  # type: ignore[override]
        """The accessible market ids (a view of the volumes of now)."""
        return dict.keys(self._fresh())

    def values(self):  # type: ignore[override]
        """The volumes (a view of the volumes of now)."""
        return dict.values(self._fresh())

    def items(self):  # type: ignore[override]
        """(market id, volume) pairs (a view of the volumes of now)."""
        return dict.items(self._fresh())

    def __eq__(self, other: object) -> bool:
        return dict.__eq__(self._fresh(), other)

    def __ne__(self, other: object) -> bool:
        return dict.__ne__(self._fresh(), other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return dict.__repr__(self._fresh())

    def copy(self) -> Dict[int, int]:
        """A plain dict of the volumes of now (PAMS's dict.copy())."""
        return dict(self._fresh())

    def __copy__(self) -> Dict[int, int]:
        return dict(self._fresh())

    def __deepcopy__(self, memo: dict) -> Dict[int, int]:
        return dict(self._fresh())

    def __reduce__(self):
        # Pickles (and copies) as the plain dict PAMS's is.
        return (dict, (dict(self._fresh()),))


def _adopt_asset_volumes(agent: "Agent", name: str, volumes: Any) -> "_AssetVolumes":
    """`agent.asset_volumes = volumes`: the engine's volumes become those
    given (markets not given become inaccessible); the agent keeps its live
    dict."""
    live = agent.__dict__.get(name)
    if live is None:
        if isinstance(volumes, _AssetVolumes):
            return volumes
        live = _AssetVolumes(agent._engine)
    if volumes is live:
        return live
    wanted = dict(volumes)
    for market_id in list(live):
        if market_id not in wanted:
            del live[market_id]
    for market_id, volume in wanted.items():
        live[market_id] = volume
    return live


def _adopt_prng(agent: "Agent", name: str, prng: Any) -> Any:
    """`agent.prng = prng`: the engine's code of the agent draws from prng
    from now on, as PAMS's does (see the Agent class's doc)."""
    engine = agent.__dict__.get("_engine")
    if engine is None:
        return prng  # no simulation: a plain attribute, as in PAMS
    if type(prng) is EngineRandom and prng._generator is engine.prng:
        return prng  # its own generator's view (what the runner gives each agent)
    owner = f"agent {agent.__dict__.get('name', engine.name)}'s prng"
    if vars(engine).get("_context") is not None:
        # An agent built by hand: its engine code draws from whatever
        # random.Random self.prng is (its state copied in and out).
        if not isinstance(prng, random.Random):
            raise TypeError(f"{owner} must be a random.Random (e.g. random.Random(seed)), "
                            f"got {type(prng).__name__}")
        return prng
    old = agent.__dict__.get(name)
    if old is prng:
        return prng
    adopted = adopt(prng, engine.prng, owner)
    if old is not None and old is not adopted:
        release(old)
    return adopted


_FIXED = ("{cls}.{name} is the engine's: the engine knows the agent by the id, name and "
          "simulator it was made with, so a new one would not reach it. Make the agent with "
          "the value instead (the config's group and prefix name runners' agents)")


# What assigning a built-in agent's parameter says (refuse_assignments).
ENGINE_PARAMETER = (
    "{cls}.{name} is a parameter of the engine's agent, read from the config when the agent "
    "is set up, and the engine's code would not see a new value: set it in the config (a "
    "subclass may keep a value of its own under another name, or subclass Agent and write "
    "the rule in Python)")


def _attach_engine(agent: "Agent", engine: Any) -> None:
    """Gives agent its engine agent and the live dict of its volumes."""
    fields = agent.__dict__
    fields["_engine"] = engine
    fields["asset_volumes"] = _AssetVolumes(engine)


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

    # PAMS's plain attributes that the engine reads too: kept in the
    # instance's __dict__ (read as fast as plain attributes), assignments
    # heard (see _attributes.Assigned).
    prng = Assigned(
        _adopt_prng,
        "random.Random: the agent's own generator. Assigning another makes the engine's code "
        "of the agent draw from it as PAMS's does: its state goes into the engine's generator "
        "and the object (still the one assigned) draws from there; the generator replaced "
        "goes on with a state of its own. Each agent needs a generator of its own (one that "
        "is already another agent's raises ValueError); a non-Random raises TypeError.",
        deleted="the engine's code of the agent draws from it")
    agent_id = Assigned(fixed(_FIXED), "int: the agent's id (fixed once the engine has it).",
                        deleted="the engine knows the agent by it")
    name = Assigned(fixed(_FIXED), "str: the agent's name (fixed once the engine has it).",
                    deleted="the engine knows the agent by it")
    simulator = Assigned(fixed(_FIXED), "Simulator: the simulator the agent belongs to.",
                         deleted="the engine's agent belongs to it")
    asset_volumes = Assigned(
        _adopt_asset_volumes,
        "Dict[int, int]: the volumes held, by market id: a dict kept in step with the "
        "engine's (executions change it; changes to it are the engine's; copies are "
        "snapshots). Assigning a dict sets the engine's volumes to it.",
        deleted="it is the engine's record of the agent's holdings")

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
        if "asset_volumes" not in vars(self):
            self.__dict__["asset_volumes"] = _AssetVolumes(self._engine)
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
    _attach_engine(agent, context.new_agent(agent, _agent_class(type(agent), None),
                                            id_of(owner, "agent_id", agent_id),
                                            *state_of(prng), str_of(owner, "name", name)))


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


# The methods the engine runs in C++ for classes that do not override them:
# assigning one on an agent is refused (see _attributes.EngineMethod).
engine_methods(Agent, ("setup", "submit_orders", "submitted_order", "executed_order",
                       "canceled_order"))
engine_methods(_BuiltinAgent, ("submit_orders",))


class _EngineAgent(_BuiltinAgent):
    """An agent of a C++ class that pams_cpp has no Python class for (a
    plugin's)."""


__all__ = ["Agent"]
