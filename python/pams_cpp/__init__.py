"""pams_cpp: PAMS (Platform for Artificial Market Simulations) on the
pams-cpp engine.

The same names at the same places as PAMS 0.3.0 (``pams_cpp.runners.SequentialRunner``,
``pams_cpp.logs.market_step_loggers.MarketStepSaver``, ``pams_cpp.Market``, ...), the
same call shapes, and, for the same config and seed, the same results as
PAMS, every float bit for bit. The simulation runs in C++; this package is a
thin layer over its extension module ``pams_cpp._core``. Importing it
imports neither TensorFlow nor PyTorch nor JAX.
"""
from . import _core
from ._core import ConfigError
from ._core import SimulationError
from . import agents
from . import analysis
from . import events
from . import logs
from . import runners
from . import transaction_fees
from . import utils
from . import _install
from ._install import install_as_pams
from ._sweep import sweep
from .fundamentals import Fundamentals
from .index_market import IndexMarket
from .market import Market
from .order import LIMIT_ORDER
from .order import MARKET_ORDER
from .order import Cancel
from .order import Order
from .order import OrderKind
from .order_book import OrderBook
from .runners import Runner
from .runners import SequentialRunner
from .session import Session
from .simulator import Simulator
from .table import Table
from .transaction_fees import ProportionalTransactionFee
from .transaction_fees import TransactionFee
from .version import __version__

if _install.os.environ.get(_install._ENV) == "1":
    # A process started by one that installed the alias (a worker): its
    # pickles name pams.* classes.
    install_as_pams()

__all__ = [
    "Cancel",
    "ConfigError",
    "Fundamentals",
    "LIMIT_ORDER",
    "MARKET_ORDER",
    "Order",
    "OrderKind",
    "OrderBook",
    "ProportionalTransactionFee",
    "TransactionFee",
    "agents",
    "analysis",
    "events",
    "install_as_pams",
    "sweep",
    "utils",
    "IndexMarket",
    "Market",
    "Runner",
    "SequentialRunner",
    "Session",
    "SimulationError",
    "Simulator",
    "Table",
    "logs",
    "runners",
    "transaction_fees",
    "__version__",
]
