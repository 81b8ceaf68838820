"""DarkPoolPrintLogger of the dark_pool sample (PAMS's development branch):
plhamJ's columns for each market at the end of each step: session, time,
market id, market name, market price, fundamental price, trade price and
executed volume, where the trade price is the dark pool's market price if
the pool executed orders in the step, else the lit market's if it did, else
nan."""
import math
from typing import List
from typing import Optional
from typing import Tuple

from pams_cpp.logs.base import Logger
from pams_cpp.logs.base import MarketStepEndLog
from pams_cpp.market import Market
from samples.dark_pool.dark_pool_market import DarkPoolMarket


def find_market_pair(market: Market, markets: List[Market]) -> Tuple[Market, Optional[DarkPoolMarket]]:
    """The lit market and the dark pool (None: none) that `market` belongs to."""
    if isinstance(market, DarkPoolMarket):
        return market.lit_market, market
    for candidate in markets:
        if isinstance(candidate, DarkPoolMarket) and candidate.lit_market.market_id == market.market_id:
            return market, candidate
    return market, None


def get_trade_price(lit_market: Market, dark_pool: Optional[DarkPoolMarket]) -> float:
    """The step's trade price of a lit market and its dark pool (see the module)."""
    if dark_pool is not None and dark_pool.get_executed_volume() > 0:
        return dark_pool.get_market_price()
    if lit_market.get_executed_volume() > 0:
        return lit_market.get_market_price()
    return math.nan


class DarkPoolPrintLogger(Logger):
    """Prints plhamJ's DarkPool columns (see the module)."""

    def process_market_step_end_log(self, log: MarketStepEndLog) -> None:
        """Prints the market's line."""
        market = log.market
        lit, pool = find_market_pair(market, log.simulator.markets)
        print(f"{log.session.session_id} {market.get_time()} {market.market_id} "
              f"{market.name} {market.get_market_price()} {market.get_fundamental_price()} "
              f"{get_trade_price(lit, pool)} {market.get_executed_volume()}")


__all__ = ["DarkPoolPrintLogger", "find_market_pair", "get_trade_price"]
