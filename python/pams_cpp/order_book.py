"""OrderBook: one side of a market's book (PAMS's ``pams.order_book.OrderBook``),
as ``market.buy_order_book`` and ``market.sell_order_book``.

Read-only here (``get_best_price()``, ``get_price_volume()``, ``len()``):
orders reach a book through the runner, as agents submit them.
"""
from ._core import OrderBook

__all__ = ["OrderBook"]
