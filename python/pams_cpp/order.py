"""Order and Cancel: what agents submit to markets (PAMS's ``pams.order``).

Python agents build them as in PAMS. Once the market accepts an Order,
the engine updates the same object as PAMS's market does: ``order_id`` and
``placed_at`` are set, the price is moved onto the tick grid, an execution
lowers ``volume`` and a cancel sets ``is_canceled``, so that an agent may
keep its orders and cancel them later with ``Cancel(order=...)``.
"""
import numbers
from typing import Optional

from . import _warnings


class OrderKind:
    """The kind of an order (PAMS's ``pams.order.OrderKind``): use the two
    constants MARKET_ORDER and LIMIT_ORDER, which compare by their kind_id.

    Args:
        kind_id (int): 0 for a market order, 1 for a limit order.
        name (str): the kind's name.
    """

    __slots__ = ("kind_id", "name")

    def __init__(self, kind_id: int, name: str) -> None:
        object.__setattr__(self, "kind_id", kind_id)
        object.__setattr__(self, "name", name)

    def __setattr__(self, key, value):
        raise AttributeError("OrderKind is immutable")

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__ and other.kind_id == self.kind_id

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self.kind_id

    def __reduce__(self):
        return (OrderKind, (self.kind_id, self.name))


MARKET_ORDER = OrderKind(kind_id=0, name="MARKET_ORDER")
LIMIT_ORDER = OrderKind(kind_id=1, name="LIMIT_ORDER")


class _Fields(dict):
    """What ``vars()`` gives for an Order or a Cancel: a dict of its fields
    (kept in ``__slots__``) and of the attributes a program added, whose
    changes are the object's, as a plain ``__dict__``'s are."""

    __slots__ = ("_object",)

    def __init__(self, obj) -> None:
        super().__init__(_fields_of(obj))
        self._object = obj

    def __setitem__(self, key, value) -> None:
        setattr(self._object, key, value)
        super().__setitem__(key, value)

    def __delitem__(self, key) -> None:
        delattr(self._object, key)
        super().__delitem__(key)

    def update(self, *args, **kwargs) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key, *default):
        if key not in self:
            if default:
                return default[0]
            raise KeyError(key)
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        key = next(reversed(self))
        return key, self.pop(key)

    def clear(self) -> None:
        for key in list(self):
            del self[key]

    def __ior__(self, other):
        self.update(other)
        return self


def _fields_of(obj) -> dict:
    """An Order's or a Cancel's fields and added attributes, in PAMS's order."""
    out = {}
    for name in type(obj)._field_names:
        value = getattr(obj, name, _UNSET)
        if value is not _UNSET:
            out[name] = value
    out.update(_instance_dict.__get__(obj))
    return out


_UNSET = object()


class _WithAttributes:
    """The base of Order and Cancel: gives their objects the dict that holds
    what a program adds to them (their fields are in their slots), and
    pickles both as one dict, as PAMS's objects pickle (every protocol)."""

    def __getstate__(self) -> dict:
        return _fields_of(self)

    def __setstate__(self, state: dict) -> None:
        for key, value in state.items():
            setattr(self, key, value)


class Order(_WithAttributes):
    """An order an agent submits to a market (PAMS's ``pams.order.Order``):
    buy or sell ``volume`` at ``price`` (LIMIT_ORDER) or at the best prices
    of the other side (MARKET_ORDER), for ``ttl`` steps.

    Once a market accepts it, the engine updates this object as PAMS's
    market does: ``order_id`` and ``placed_at`` are set, the price moves
    onto the tick grid, executions lower ``volume`` and a cancel sets
    ``is_canceled``; an agent may keep it and cancel it later with
    ``Cancel(order)``. Orders of one side compare by their priority in the
    book (``<`` is "ranks before").

    Args:
        agent_id (int): the id of the agent placing it.
        market_id (int): the id of its market.
        is_buy (bool): True to buy, False to sell.
        kind (OrderKind): LIMIT_ORDER or MARKET_ORDER.
        volume (int): how many shares (> 0).
        placed_at (int | None): leave None: the market sets it.
        price (float | None): the limit price (a LIMIT_ORDER needs one; a
            MARKET_ORDER has none).
        order_id (int | None): leave None: the market sets it.
        ttl (int | None): time to live in steps (> 0; None: until executed
            or canceled).

    Raises:
        TypeError: volume, price or ttl is not a number.
        ValueError: a MARKET_ORDER with a price, a LIMIT_ORDER without one,
            a volume <= 0 or a ttl <= 0 (PAMS's messages).

    Warning:
        A price <= 0 only warns, as in PAMS.
    """

    # The fields live in slots, where the engine reads and writes them for
    # every order it converts (attribute lookups were a third of the cost
    # of a step driven by hand); vars() still lists them (_Fields).
    __slots__ = ("agent_id", "market_id", "is_buy", "kind", "volume", "placed_at", "price",
                 "order_id", "ttl", "is_canceled")
    _field_names = __slots__
    __dict__ = property(_Fields, doc="The order's fields and what a program added to it.")

    def __init__(
        self,
        agent_id: int,
        market_id: int,
        is_buy: bool,
        kind: OrderKind,
        volume: int,
        placed_at: Optional[int] = None,
        price: Optional[float] = None,
        order_id: Optional[int] = None,
        ttl: Optional[int] = None,
    ):
        for name, value, optional in (("volume", volume, False), ("price", price, True),
                                      ("ttl", ttl, True)):
            if (value is None and not optional) or (
                    value is not None and (isinstance(value, bool)
                                           or not isinstance(value, numbers.Real))):
                raise TypeError(f"Order: {name} must be a number{' or None' if optional else ''}"
                                f", got {type(value).__name__} {value!r:.40}")
        if kind == MARKET_ORDER and price is not None:
            raise ValueError("price have to be None when kind is MARKET_ORDER")
        if kind == LIMIT_ORDER and price is None:
            raise ValueError("price have to be set when kind is LIMIT_ORDER")
        if price is not None and price <= 0:
            _warnings.warn("price should be positive")
        if volume <= 0:
            raise ValueError("volume have to be positive")
        if ttl is not None and ttl <= 0:
            raise ValueError("ttl have to be positive or None")
        self.agent_id: int = agent_id
        self.market_id: int = market_id
        self.is_buy: bool = is_buy
        self.kind: OrderKind = kind
        self.volume: int = volume
        self.placed_at: Optional[int] = placed_at
        self.price: Optional[float] = price
        self.order_id: Optional[int] = order_id
        self.ttl: Optional[int] = ttl
        self.is_canceled: bool = False

    def check_system_acceptable(self, agent_id: int) -> None:
        """Checks that an agent may submit this order now (the runner's check).

        Args:
            agent_id (int): the id of the agent submitting it.

        Raises:
            AttributeError: the order is another agent's, was placed already
                or is canceled.
        """
        if agent_id != self.agent_id:
            raise AttributeError("agent_id is fake")
        if self.placed_at is not None:
            raise AttributeError(
                "this order is already submitted to a market or placed_at have to be set to None"
            )
        if self.is_canceled is True:
            raise AttributeError("this order is already canceled")

    def is_expired(self, time: int) -> bool:
        """Whether the order's time to live has run out at a step.

        Args:
            time (int): the step.

        Returns:
            bool: True when placed_at + ttl < time (never without a ttl).

        Raises:
            ValueError: the order was not placed yet.
        """
        if self.placed_at is None:
            raise ValueError("this order is not yet placed to a market")
        if self.ttl is None:
            return False
        return self.placed_at + self.ttl < time

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__module__}.{self.__class__.__name__} | id={self.order_id}, "
            f"kind={self.kind}, is_buy={self.is_buy}, price={self.price}, "
            f"volume={self.volume}, agent={self.agent_id}, market={self.market_id}, "
            f"placed_at={self.placed_at}, ttl={self.ttl}, is_canceled={self.is_canceled}>"
        )

    # Orders compare as the books order them: the better price first, then
    # the earlier placement, then the smaller id (only one side at a time).
    def _comparable(self, other: object) -> "Order":
        if self.__class__ != other.__class__:
            raise NotImplementedError(
                f"not supporting the comparison between Order and {other.__class__}"
            )
        if self.is_buy != other.is_buy:
            raise ValueError("not supporting the comparison between sell and buy orders")
        return other

    def __eq__(self, other: object) -> bool:
        other = self._comparable(other)
        return (
            self.order_id == other.order_id
            and self.price == other.price
            and self.placed_at == other.placed_at
            and self.is_buy == other.is_buy
            and self.kind == other.kind
        )

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def _ranks_after(self, other: "Order", after: bool) -> bool:
        # Whether self comes after (after=True) or before other in its book:
        # market orders first, then the better price, then the earlier
        # placement (an unplaced order last), then the smaller order id.
        if self.kind == MARKET_ORDER or other.kind == MARKET_ORDER:
            if self.kind != other.kind:
                return (self.kind != MARKET_ORDER) == after
        elif self.kind != LIMIT_ORDER or other.kind != LIMIT_ORDER:
            raise NotImplementedError
        elif self.price is None or other.price is None:
            raise AssertionError
        elif self.price != other.price:
            worse = self.price < other.price if self.is_buy else self.price > other.price
            return worse == after
        if self.placed_at is None and other.placed_at is None:
            raise ValueError("orders still not placed cannot be compared")
        if self.placed_at is None or other.placed_at is None:
            return (self.placed_at is None) == after
        if self.placed_at != other.placed_at:
            return (self.placed_at > other.placed_at) == after
        if self.order_id is None or other.order_id is None:
            raise ValueError("orders still not placed cannot be compared")
        if self.order_id == other.order_id:
            return False
        return (self.order_id > other.order_id) == after

    def __gt__(self, other: "Order") -> bool:
        """Whether this order has a lower priority than other."""
        return self._ranks_after(self._comparable(other), after=True)

    def __lt__(self, other: "Order") -> bool:
        """Whether this order has a higher priority than other."""
        return self._ranks_after(self._comparable(other), after=False)

    def __le__(self, other: "Order") -> bool:
        return self.__eq__(other) or self.__lt__(other)

    def __ge__(self, other: "Order") -> bool:
        return self.__eq__(other) or self.__gt__(other)

    # Orders compare by value, so they are not hashable (as in PAMS).
    __hash__ = None  # type: ignore[assignment]


class Cancel(_WithAttributes):
    """A cancel of an order a market accepted (PAMS's ``pams.order.Cancel``):
    an agent returns it from ``submit_orders`` like an order.

    Args:
        order (Order): the order to cancel (the same object the agent
            submitted, which the market updated).
        placed_at (int | None): leave None: the market sets it.
    """

    __slots__ = ("order", "placed_at")
    _field_names = __slots__
    __dict__ = property(_Fields, doc="The cancel's fields and what a program added to it.")

    def __init__(self, order: Order, placed_at: Optional[int] = None):
        self.order: Order = order
        self.placed_at: Optional[int] = placed_at

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__module__}.{self.__class__.__name__} | "
            f"placed_at={self.placed_at}, order={self.order}>"
        )

    @property
    def agent_id(self) -> int:
        """int: the id of the agent whose order is canceled."""
        return self.order.agent_id

    @property
    def market_id(self) -> int:
        """int: the id of the market of the order canceled."""
        return self.order.market_id

    def check_system_acceptable(self, agent_id: int) -> None:
        """Checks that an agent may submit this cancel now (the runner's
        check).

        Args:
            agent_id (int): the id of the agent submitting it.

        Raises:
            AttributeError: the order is another agent's, the cancel was
                placed already or the order is canceled already.
        """
        if agent_id != self.order.agent_id:
            raise AttributeError("canceling other's order")
        if self.placed_at is not None:
            raise AttributeError(
                "this cancel order is already submitted to a market or placed_at have to be "
                "set to None"
            )
        if self.order.is_canceled is True:
            raise AttributeError("this order is already canceled")


_instance_dict = vars(_WithAttributes)["__dict__"]  # the objects' own dict

__all__ = ["Cancel", "LIMIT_ORDER", "MARKET_ORDER", "Order", "OrderKind"]
