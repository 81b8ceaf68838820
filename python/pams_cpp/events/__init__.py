"""Events (PAMS's ``pams.events``): EventABC and EventHook for events written
in Python, and the built-in events (FundamentalPriceShock, PriceLimitRule,
TradingHaltRule, OrderMistakeShock), which run in the engine and which
Python classes may subclass."""
from .base import EventABC
from .base import EventHook
from .fundamental_price_shock import FundamentalPriceShock
from .order_mistake_shock import OrderMistakeShock
from .price_limit_rule import PriceLimitRule
from .trading_halt_rule import TradingHaltRule

__all__ = [
    "EventABC",
    "EventHook",
    "FundamentalPriceShock",
    "OrderMistakeShock",
    "PriceLimitRule",
    "TradingHaltRule",
]
