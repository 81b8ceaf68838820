"""Transaction fees charged by markets at each execution (since PAMS's
development branch: ``pams.transaction_fees``).

A market group's config key ``"transactionFee"`` names a class and its
settings, e.g. ``{"class": "ProportionalTransactionFee", "rate": 0.001}``;
the runner makes one fee per market of the group, right after the market's
setup, and calls its ``setup`` with the entry without ``"class"``. The
market calls ``compute_fees`` at each execution, before the executed volume
is taken off the two orders, records the fees in the ExecutionLog
(``buy_transaction_fee``, ``sell_transaction_fee``) and their sum in its
revenue of the step (``Market.get_transaction_fee_revenue``); the engine
takes each fee off the agent's cash (a negative fee, a rebate, adds to it).

``ProportionalTransactionFee`` runs in the engine. A Python subclass of
``TransactionFee`` registered with ``runner.class_register(cls)`` runs in
the engine too: its ``setup`` and ``compute_fees`` are called there, with the
market's Python object as ``self.market`` and the orders as ``Order``
objects (those of Python agents are the objects they hold).
"""
from abc import ABC
from abc import abstractmethod
from typing import TYPE_CHECKING
from typing import Any
from typing import Dict
from typing import Tuple

from . import _core
from .order import Order

if TYPE_CHECKING:  # pragma: no cover
    from .market import Market


class TransactionFee(ABC):
    """The base of transaction fees (abstract: define ``compute_fees``;
    since PAMS's development branch).

    Args:
        market (Market): the market that charges the fee.

    A fee may keep state of its own (e.g. each agent's volume, for tiered
    fees) and read everything through ``self.market`` (its books, prices,
    time, ``self.market``'s simulator). It draws no random number from the
    runner's or the markets' generators: one that needs randomness makes
    its own ``random.Random`` in ``setup``.
    """

    def __init__(self, market: "Market") -> None:
        """Initialize (the runner makes one fee per market).

        Args:
            market: the market that charges this fee.
        """
        self.market: "Market" = market

    def __repr__(self) -> str:
        return f"<{self.__class__.__module__}.{self.__class__.__name__} | market={self.market}>"

    def setup(self, settings: Dict[str, Any], *args: Any, **kwargs: Any) -> None:  # noqa: B027
        """Reads the "transactionFee" entry without "class" (default: nothing).

        Args:
            settings: the entry.
            *args: not used.
            **kwargs: not used.
        """

    @abstractmethod
    def compute_fees(
        self, price: float, volume: int, buy_order: Order, sell_order: Order
    ) -> Tuple[float, float]:
        """The fees of one execution (called before the volume is taken off
        the orders, whose ``volume`` still includes it).

        Args:
            price: the execution price.
            volume: the executed volume.
            buy_order: the buy order.
            sell_order: the sell order.

        Returns:
            (buy fee, sell fee), finite numbers; negative ones are rebates.
        """


class ProportionalTransactionFee(TransactionFee):
    """A fee proportional to the executed value: buyer and seller each pay
    ``rate * price * volume`` (since PAMS's development branch). ``rate``,
    in [0, 1), comes from the setting "rate" (required).

    Args:
        market (Market): the market that charges the fee.

    The engine runs this class when a config names it; the Python class
    serves fees made by hand (``ProportionalTransactionFee(market)``) and
    subclasses.
    """

    # The engine class of this name.
    _engine_base = "ProportionalTransactionFee"

    def __init__(self, market: "Market") -> None:
        """Initialize with rate 0.0 (setup reads it).

        Args:
            market: the market that charges this fee.
        """
        super().__init__(market=market)
        self.rate: float = 0.0

    def setup(self, settings: Dict[str, Any], *args: Any, **kwargs: Any) -> None:
        """Reads "rate", an int or a float in [0.0, 1.0).

        Args:
            settings: the entry.
            *args: not used.
            **kwargs: not used.

        Raises:
            ValueError: "rate" is missing, not a number or out of range.
        """
        if "rate" not in settings:
            raise ValueError("rate is required for ProportionalTransactionFee")
        rate = settings["rate"]
        if isinstance(rate, bool) or not isinstance(rate, (int, float)):
            raise ValueError("rate must be int or float")
        if not 0.0 <= rate < 1.0:
            raise ValueError("rate must be in [0.0, 1.0)")
        self.rate = float(rate)

    def compute_fees(
        self, price: float, volume: int, buy_order: Order, sell_order: Order
    ) -> Tuple[float, float]:
        """(rate * price * volume, the same) for the buyer and the seller.

        Args:
            price: the execution price.
            volume: the executed volume.
            buy_order: not used.
            sell_order: not used.

        Returns:
            The two fees.
        """
        fee: float = self.rate * price * volume
        return fee, fee


# An engine fee read through market.transaction_fee is one of these.
TransactionFee.register(_core.EngineTransactionFee)
ProportionalTransactionFee.register(_core.EngineProportionalTransactionFee)

__all__ = ["ProportionalTransactionFee", "TransactionFee"]
