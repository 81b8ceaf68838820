"""IndexMarket: a market whose fundamental price is an index of others."""
from ._core import IndexMarket

__all__ = ["IndexMarket"]
