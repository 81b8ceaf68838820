"""Loggers recording the simulation (PAMS's ``pams.logs``), and the CSV
writers of ``pams run``, and TableLogger (the same records as tables)."""
from .base import CancelLog
from .base import ExecutionLog
from .base import ExpirationLog
from .base import Log
from .base import Logger
from .base import MarketStepBeginLog
from .base import MarketStepEndLog
from .base import OrderLog
from .base import SessionBeginLog
from .base import SessionEndLog
from .base import SimulationBeginLog
from .base import SimulationEndLog
from .csv_loggers import AgentsCsvLogger
from .csv_loggers import EventsCsvLogger
from .csv_loggers import StepsCsvLogger
from .market_step_loggers import MarketStepPrintLogger
from .market_step_loggers import MarketStepSaver
from .table_logger import TableLogger

__all__ = [
    "AgentsCsvLogger",
    "CancelLog",
    "EventsCsvLogger",
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
    "MarketStepPrintLogger",
    "MarketStepSaver",
    "StepsCsvLogger",
    "TableLogger",
]
