"""Market: one traded asset with its order books and histories.

A market's getters read as PAMS's do (``get_market_price(time=None)``,
``get_mid_price()`` returning None before both books have orders, an
AssertionError for a future time, ...), with PAMS's Python types.
"""
from ._core import Market

__all__ = ["Market"]
