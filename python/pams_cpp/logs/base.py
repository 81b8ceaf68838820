"""The logs of a simulation and Logger, the base of the loggers a runner
accepts (PAMS's ``pams.logs.base``).

The log classes are PAMS's, with PAMS's fields; Python agents receive
OrderLog, CancelLog and ExecutionLog in their callbacks.
"""
from typing import List
from typing import Optional

from .. import _core
from ..order import OrderKind  # noqa: F401  (PAMS's logs.base has it too)


class Log:
    """The base of the logs: a record of something that happened in the
    simulation, handed to the loggers (PAMS's ``pams.logs.base.Log``)."""

    def read_and_write(self, logger: "Logger") -> None:
        """Hands the log to logger's queue (``logger.write``); the logger
        processes it with the next simulation or session log, as PAMS's.

        Args:
            logger (Logger): the logger.
        """
        logger.write(log=self)

    # Hands the log to logger to be processed at once
    # (logger.write_and_direct_process): a C++ method (hand_built_simulation.cc),
    # as a hand-driven loop writes two market step logs a step. A logger
    # that runs in the engine and overrides neither write_and_direct_process
    # nor process gets the log straight into its engine logger, as those
    # two would do, without their two calls.
    read_and_write_with_direct_process = _core._read_and_write_with_direct_process

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"<{self.__class__.__module__}.{self.__class__.__name__} | {fields}>"


class OrderLog(Log):
    """A market accepted an order (PAMS's ``OrderLog``).

    Args:
        order_id (int): the id the market gave the order.
        market_id (int): the market's id.
        time (int): the step the order was placed at.
        agent_id (int): the id of the agent that placed it.
        is_buy (bool): whether it buys.
        kind (OrderKind): LIMIT_ORDER or MARKET_ORDER.
        volume (int): the order's volume (what was left of it, for a cancel
            or an expiration).
        price (float | None): the limit price (None: a market order).
        ttl (int | None): the order's time to live in steps (None: none).
    """

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
    """A market accepted a cancel of an order (PAMS's ``CancelLog``).

    Args:
        order_id (int): the canceled order's id.
        market_id (int): the market's id.
        cancel_time (int): the step of the cancel.
        order_time (int): the step the order was placed at.
        agent_id (int): the id of the agent that placed it.
        is_buy (bool): whether it bought.
        kind (OrderKind): LIMIT_ORDER or MARKET_ORDER.
        volume (int): the order's volume (what was left of it, for a cancel
            or an expiration).
        price (float | None): the limit price (None: a market order).
        ttl (int | None): the order's time to live in steps (None: none).
    """

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
    """An order left its book because its time to live ran out (PAMS's
    ``ExpirationLog``).

    Args:
        order_id (int | None): the expired order's id.
        market_id (int): the market's id.
        time (int): the step it expired at.
        order_time (int | None): the step it was placed at.
        agent_id (int): the id of the agent that placed it.
        is_buy (bool): whether it bought.
        kind (OrderKind): LIMIT_ORDER or MARKET_ORDER.
        volume (int): the order's volume (what was left of it, for a cancel
            or an expiration).
        price (float | None): the limit price (None: a market order).
        ttl (int | None): the order's time to live in steps (None: none).
    """

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
    """A buy and a sell order were executed against each other.

    ``buy_transaction_fee`` and ``sell_transaction_fee`` (since PAMS's
    development branch) are what the market's transaction fee charged each
    side (negative: a rebate). Without a fee they are the class's 0.0, so
    that the log's own fields are PAMS 0.3.0's.

    Args:
        market_id (int): the market's id.
        time (int): the step of the execution.
        buy_agent_id (int): the buyer's agent id.
        sell_agent_id (int): the seller's agent id.
        buy_order_id (int): the buy order's id.
        sell_order_id (int): the sell order's id.
        price (float): the execution price.
        volume (int): the executed volume.
        buy_transaction_fee (float | None): the buyer's fee (None: 0.0).
        sell_transaction_fee (float | None): the seller's fee (None: 0.0).
    """

    buy_transaction_fee: float = 0.0
    sell_transaction_fee: float = 0.0

    def __init__(self, market_id: int, time: int, buy_agent_id: int, sell_agent_id: int,
                 buy_order_id: int, sell_order_id: int, price: float, volume: int,
                 buy_transaction_fee: Optional[float] = None,
                 sell_transaction_fee: Optional[float] = None):
        self.market_id = market_id
        self.time = time
        self.buy_agent_id = buy_agent_id
        self.sell_agent_id = sell_agent_id
        self.buy_order_id = buy_order_id
        self.sell_order_id = sell_order_id
        self.price = price
        self.volume = volume
        if buy_transaction_fee is not None:
            self.buy_transaction_fee = buy_transaction_fee
        if sell_transaction_fee is not None:
            self.sell_transaction_fee = sell_transaction_fee


class SimulationBeginLog(Log):
    """The simulation begins (before the first session).

    Args:
        simulator (Simulator): the simulator.
    """

    def __init__(self, simulator):
        self.simulator = simulator


class SimulationEndLog(Log):
    """The simulation ended (after the last session).

    Args:
        simulator (Simulator): the simulator.
    """

    def __init__(self, simulator):
        self.simulator = simulator


class SessionBeginLog(Log):
    """A session begins (before its first step).

    Args:
        session (Session): the session.
        simulator (Simulator): the simulator.
    """

    def __init__(self, session, simulator):
        self.session = session
        self.simulator = simulator


class SessionEndLog(Log):
    """A session ended (after its last step).

    Args:
        session (Session): the session.
        simulator (Simulator): the simulator.
    """

    def __init__(self, session, simulator):
        self.session = session
        self.simulator = simulator


class MarketStepBeginLog(Log):
    """A market's step begins (before the agents' orders).

    Args:
        session (Session): the current session.
        market (Market): the market.
        simulator (Simulator): the simulator.
    """

    def __init__(self, session, market, simulator):
        self.session = session
        self.market = market
        self.simulator = simulator


class MarketStepEndLog(Log):
    """A market's step ended (its prices for the step are final): what
    MarketStepSaver records.

    Args:
        session (Session): the current session.
        market (Market): the market.
        simulator (Simulator): the simulator.
    """

    def __init__(self, session, market, simulator):
        self.session = session
        self.market = market
        self.simulator = simulator



class Logger:
    """A logger: the runner reports the simulation to it (PAMS's Logger).

    Subclass it and override the ``process_*_log`` methods you need, as in
    PAMS; the logs arrive when PAMS delivers them: the market step logs at
    once, the order, cancel, execution and expiration logs queued
    (``write``) and processed (``_process``) with the next simulation or
    session log. Only the kinds a subclass can see are made: a logger that
    overrides only ``process_market_step_end_log`` costs no Python call per
    order.

    The loggers of this package (MarketStepSaver, MarketStepPrintLogger,
    the CSV loggers) are the engine's own and cost no Python call at all.
    """

    def __init__(self) -> None:
        self.pending_logs: List[Log] = []

    def _engine_logger(self):
        """The engine's logger behind this one (None: a Python logger)."""
        return None

    def _set_simulator(self, simulator) -> None:
        """Called by the runner with its simulator."""
        self.simulator = simulator

    def write(self, log: Log) -> None:
        """Queues a log, to be processed with the next simulation or session
        log.

        Args:
            log (Log): the log.
        """
        self.pending_logs.append(log)

    def bulk_write(self, logs: List[Log]) -> None:
        """Queues several logs, to be processed with the next simulation or
        session log.

        Args:
            logs (List[Log]): the logs, in order.
        """
        self.pending_logs.extend(logs)

    def write_and_direct_process(self, log: Log) -> None:
        """Processes a log at once (through ``process``).

        Args:
            log (Log): the log.
        """
        self.process(logs=[log])

    def bulk_write_and_direct_process(self, logs: List[Log]) -> None:
        """Processes several logs at once (through ``process``).

        Args:
            logs (List[Log]): the logs, in order.
        """
        self.process(logs=logs)

    def _process(self) -> None:
        self.process(logs=self.pending_logs)
        self.pending_logs = []

    # Whether the logs written to this logger go to its engine logger (the
    # engine's loggers: what a program driving a simulation by hand writes).
    _feeds_engine = False

    def process(self, logs: List[Log]) -> None:
        """Hands each log to its process_*_log method (an engine logger's
        to the engine).

        Args:
            logs (List[Log]): the logs, in order.

        Raises:
            NotImplementedError: a log of no known kind.
        """
        if self._feeds_engine:
            engine = self._engine
            for log in logs:
                _core._feed_logger(engine, log)
            return
        for log in logs:
            method = _PROCESS.get(type(log))
            if method is None:
                method = next((m for cls, m in _PROCESS.items() if isinstance(log, cls)), None)
            if method is None:
                raise NotImplementedError
            getattr(self, method)(log=log)

    def process_order_log(self, log: OrderLog) -> None:  # noqa: B027
        """Override to record an order a market accepted (queued: it
        arrives with the next simulation or session log).

        Args:
            log (OrderLog): the log.
        """

    def process_cancel_log(self, log: CancelLog) -> None:  # noqa: B027
        """Override to record a cancel a market accepted (queued).

        Args:
            log (CancelLog): the log.
        """

    def process_expiration_log(self, log: ExpirationLog) -> None:  # noqa: B027
        """Override to record an order whose time to live ran out (queued).

        Args:
            log (ExpirationLog): the log.
        """

    def process_execution_log(self, log: ExecutionLog) -> None:  # noqa: B027
        """Override to record an execution of a buy and a sell order
        (queued).

        Args:
            log (ExecutionLog): the log.
        """

    def process_simulation_begin_log(self, log: SimulationBeginLog) -> None:  # noqa: B027
        """Override to act when the simulation begins (before the first
        session).

        Args:
            log (SimulationBeginLog): the log.
        """

    def process_simulation_end_log(self, log: SimulationEndLog) -> None:  # noqa: B027
        """Override to act when the simulation ended (after the last
        session).

        Args:
            log (SimulationEndLog): the log.
        """

    def process_session_begin_log(self, log: SessionBeginLog) -> None:  # noqa: B027
        """Override to act when a session begins (before its first step).

        Args:
            log (SessionBeginLog): the log.
        """

    def process_session_end_log(self, log: SessionEndLog) -> None:  # noqa: B027
        """Override to act when a session ended (after its last step).

        Args:
            log (SessionEndLog): the log.
        """

    def process_market_step_begin_log(self, log: MarketStepBeginLog) -> None:  # noqa: B027
        """Override to act when a market's step begins (delivered at
        once).

        Args:
            log (MarketStepBeginLog): the log.
        """

    def process_market_step_end_log(self, log: MarketStepEndLog) -> None:  # noqa: B027
        """Override to record a market's step (delivered at once, its
        prices final): what MarketStepSaver does.

        Args:
            log (MarketStepEndLog): the log.
        """

    def _after_run(self) -> None:
        """Called when a run ends."""


_PROCESS = {
    OrderLog: "process_order_log",
    CancelLog: "process_cancel_log",
    ExpirationLog: "process_expiration_log",
    ExecutionLog: "process_execution_log",
    SimulationBeginLog: "process_simulation_begin_log",
    SimulationEndLog: "process_simulation_end_log",
    SessionBeginLog: "process_session_begin_log",
    SessionEndLog: "process_session_end_log",
    MarketStepBeginLog: "process_market_step_begin_log",
    MarketStepEndLog: "process_market_step_end_log",
}

# The logs a Python logger may be sent, each with the Logger methods whose
# override means the logger can see it (the runner sends only those).
_QUEUED = ("write", "_process", "process")
_DIRECT = ("write_and_direct_process", "process")
LOG_KINDS = {
    "order": ("process_order_log",) + _QUEUED,
    "cancel": ("process_cancel_log",) + _QUEUED,
    "expiration": ("process_expiration_log",) + _QUEUED,
    "execution": ("process_execution_log",) + _QUEUED,
    "market_step_begin": ("process_market_step_begin_log",) + _DIRECT,
    "market_step_end": ("process_market_step_end_log",) + _DIRECT,
}


_LOGGING_NAMES = tuple(sorted({name for names in LOG_KINDS.values() for name in names}))


# Per logger class, whether a log written with direct processing goes
# straight to its engine logger (see _feeds_directly).
_FEEDS_DIRECTLY: dict = {}


def _feeds_directly(cls: type) -> bool:
    """Whether Logger's write_and_direct_process and process would hand a
    log of a cls logger straight to its engine logger (cls runs in the
    engine and overrides neither)."""
    return (bool(getattr(cls, "_feeds_engine", False))
            and cls.write_and_direct_process is Logger.write_and_direct_process
            and cls.process is Logger.process)


def overrides_logging(cls: type, base: type) -> bool:
    """Whether cls overrides a method of base that processes logs."""
    return any(getattr(cls, name) is not getattr(base, name) for name in _LOGGING_NAMES)



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
