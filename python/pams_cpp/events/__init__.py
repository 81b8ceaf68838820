"""Events (PAMS's ``pams.events``): EventABC and EventHook for events written
in Python. The built-in events (FundamentalPriceShock, PriceLimitRule,
TradingHaltRule, OrderMistakeShock) run in the engine; configs name them as
in PAMS."""
from .base import EventABC
from .base import EventHook

__all__ = ["EventABC", "EventHook"]
