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


OrderBook.__repr__ = _repr
OrderBook.__module__ = __name__

__all__ = ["OrderBook"]
