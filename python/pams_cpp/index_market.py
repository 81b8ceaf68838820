"""IndexMarket: a market whose fundamental price is an index of others
(PAMS's ``pams.IndexMarket``); build one by hand as a Market, and add its
components with ``_add_market`` or by ``setup(settings)`` naming them."""
from . import _core
from . import market as _market  # noqa: F401  (Market's Python methods)

IndexMarket = _core.IndexMarket
IndexMarket.__module__ = __name__

__all__ = ["IndexMarket"]
