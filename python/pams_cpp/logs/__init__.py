"""Loggers recording the simulation (PAMS's ``pams.logs``), and the CSV
writers of ``pams run``."""
from .base import Logger
from .csv_loggers import AgentsCsvLogger
from .csv_loggers import EventsCsvLogger
from .csv_loggers import StepsCsvLogger
from .market_step_loggers import MarketStepPrintLogger
from .market_step_loggers import MarketStepSaver

__all__ = [
    "AgentsCsvLogger",
    "EventsCsvLogger",
    "Logger",
    "MarketStepPrintLogger",
    "MarketStepSaver",
    "StepsCsvLogger",
]
