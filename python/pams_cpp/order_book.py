"""OrderBook: one side of a market's book (PAMS's ``pams.order_book.OrderBook``),
as ``market.buy_order_book`` and ``market.sell_order_book``, or built by hand.

A market's books read (``get_best_price()``, ``get_best_order()``,
``get_price_volume()``, ``len()``); their orders change through the market
(``market._add_order``, ...), and changing them directly is refused. A book
built by hand, ``OrderBook(is_buy=True)``, takes PAMS's changes too
(``add``, ``cancel``, ``change_order_volume``, ``_set_time``, ...) and
keeps PAMS's priority order in the engine's book.
"""
from . import _core

OrderBook = _core.OrderBook


def _new(cls, is_buy: bool, *args, **kwargs):
    """A book built by hand."""
    return _core._new_order_book(cls, bool(is_buy))




def _repr(self) -> str:
    return f"<{self.__class__.__module__}.{self.__class__.__name__} | is_buy={self.is_buy}>"


def _refusing(message: str):
    """A setter (or getter) that raises AttributeError(message): what cannot
    be done in pams_cpp, and what to do instead."""
    def refuse(self, *value) -> None:
        raise AttributeError(message)
    return refuse


def _fixed(name: str, advice: str) -> property:
    old = vars(OrderBook)[name]
    return property(old.fget, _refusing(f"OrderBook.{name} cannot be set in pams_cpp: {advice}"),
                    doc=old.__doc__)


def _absent(name: str, advice: str) -> property:
    """PAMS's internal containers, which the engine's book does not have:
    reading or setting one says what to use instead."""
    message = f"OrderBook.{name} is PAMS's internal container, which pams_cpp's books do not " \
              f"have: {advice}"
    return property(_refusing(message), _refusing(message), doc=f"Not in pams_cpp: {advice}.")


OrderBook.__repr__ = _repr
OrderBook.__module__ = __name__
OrderBook.time = _fixed("time", "move a book built by hand with _set_time(time) (which also "
                                "expires its orders, as PAMS's does) or _update_time(); a "
                                "market's books move with the market")
OrderBook.is_buy = _fixed("is_buy", "a book keeps its side; build OrderBook(is_buy=...)")
OrderBook.priority_queue = _absent(
    "priority_queue", "read the orders with get_best_order(), get_price_volume() and len(); "
                      "change a book built by hand with add, cancel and change_order_volume")
OrderBook.expire_time_list = _absent(
    "expire_time_list", "orders expire when the book moves (_set_time, _update_time), "
                        "after placed_at + ttl")

__all__ = ["OrderBook"]
