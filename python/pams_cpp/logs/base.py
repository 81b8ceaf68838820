"""The logs of a simulation and Logger, the base of the loggers a runner
accepts (PAMS's ``pams.logs.base``).

The log classes are PAMS's, with PAMS's fields; Python agents receive
OrderLog, CancelLog and ExecutionLog in their callbacks.
"""
from typing import Optional


class Log:
    """A log."""

    def read_and_write(self, logger: "Logger") -> None:
        """Hands the log to logger (PAMS's queued write)."""
        logger.write(log=self)

    def read_and_write_with_direct_process(self, logger: "Logger") -> None:
        """Hands the log to logger, processed at once."""
        logger.write_and_direct_process(log=self)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"<{self.__class__.__module__}.{self.__class__.__name__} | {fields}>"


class OrderLog(Log):
    """A market accepted an order."""

    def __init__(self, order_id: int, market_id: int, time: int, agent_id: int, is_buy: bool,
                 kind, volume: int, price: Optional[float] = None,
                 ttl: Optional[int] = None):
        self.order_id = order_id
        self.market_id = market_id
        self.time = time
        self.agent_id = agent_id
        self.is_buy = is_buy
        self.kind = kind
        self.volume = volume
        self.price = price
        self.ttl = ttl


class CancelLog(Log):
    """A market accepted a cancel."""

    def __init__(self, order_id: int, market_id: int, cancel_time: int, order_time: int,
                 agent_id: int, is_buy: bool, kind, volume: int,
                 price: Optional[float] = None, ttl: Optional[int] = None):
        self.order_id = order_id
        self.market_id = market_id
        self.cancel_time = cancel_time
        self.order_time = order_time
        self.agent_id = agent_id
        self.is_buy = is_buy
        self.kind = kind
        self.volume = volume
        self.price = price
        self.ttl = ttl


class ExpirationLog(Log):
    """An order's ttl passed."""

    def __init__(self, order_id: Optional[int], market_id: int, time: int,
                 order_time: Optional[int], agent_id: int, is_buy: bool, kind, volume: int,
                 price: Optional[float] = None, ttl: Optional[int] = None):
        self.order_id = order_id
        self.market_id = market_id
        self.time = time
        self.order_time = order_time
        self.agent_id = agent_id
        self.is_buy = is_buy
        self.kind = kind
        self.volume = volume
        self.price = price
        self.ttl = ttl


class ExecutionLog(Log):
    """A buy and a sell order were executed against each other."""

    def __init__(self, market_id: int, time: int, buy_agent_id: int, sell_agent_id: int,
                 buy_order_id: int, sell_order_id: int, price: float, volume: int):
        self.market_id = market_id
        self.time = time
        self.buy_agent_id = buy_agent_id
        self.sell_agent_id = sell_agent_id
        self.buy_order_id = buy_order_id
        self.sell_order_id = sell_order_id
        self.price = price
        self.volume = volume


class SimulationBeginLog(Log):
    """The simulation begins."""

    def __init__(self, simulator):
        self.simulator = simulator


class SimulationEndLog(Log):
    """The simulation ended."""

    def __init__(self, simulator):
        self.simulator = simulator


class SessionBeginLog(Log):
    """A session begins."""

    def __init__(self, session, simulator):
        self.session = session
        self.simulator = simulator


class SessionEndLog(Log):
    """A session ended."""

    def __init__(self, session, simulator):
        self.session = session
        self.simulator = simulator


class MarketStepBeginLog(Log):
    """A market's step begins."""

    def __init__(self, session, market, simulator):
        self.session = session
        self.market = market
        self.simulator = simulator


class MarketStepEndLog(Log):
    """A market's step ended."""

    def __init__(self, session, market, simulator):
        self.session = session
        self.market = market
        self.simulator = simulator



class Logger:
    """A logger: the runner reports the simulation to it.

    The loggers of this package (MarketStepSaver, MarketStepPrintLogger,
    the CSV loggers) are the engine's own and cost no Python call per step.
    """

    def _engine_logger(self):
        """The engine's logger behind this one."""
        raise NotImplementedError(
            f"pams_cpp cannot run the Python logger {type(self).__name__} yet: use "
            "MarketStepSaver, MarketStepPrintLogger or the CSV loggers"
        )

    def _after_run(self) -> None:
        """Called when a run ends."""


__all__ = [
    "CancelLog",
    "ExecutionLog",
    "ExpirationLog",
    "Log",
    "Logger",
    "MarketStepBeginLog",
    "MarketStepEndLog",
    "OrderLog",
    "SessionBeginLog",
    "SessionEndLog",
    "SimulationBeginLog",
    "SimulationEndLog",
]
