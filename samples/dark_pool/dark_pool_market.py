"""DarkPoolMarket of the dark_pool sample (PAMS's development branch): a dark
pool that accepts market orders only and fills them in time priority at its
lit market's mid price (the key "markets" names the lit market), rounded in
favour of the earlier order; orders placed while it does not run are
canceled at once. pams-cpp's built-in class (include/pams/samples/
dark_pool_market.h), run by the engine; ``lit_market`` and
``get_lit_mid_price()`` read it from Python."""
from pams_cpp._core import DarkPoolMarket

__all__ = ["DarkPoolMarket"]
