"""The agents (PAMS's ``pams.agents``): the built-in classes, run by the
engine, and Agent, the base of Python agents."""
from .arbitrage_agent import ArbitrageAgent
from .base import Agent
from .fcn_agent import FCNAgent
from .high_frequency_agent import HighFrequencyAgent
from .market_maker_agent import MarketMakerAgent
from .market_share_fcn_agent import MarketShareFCNAgent
from .model_call import ModelCall
from .test_agent import TestAgent

__all__ = [
    "Agent",
    "ArbitrageAgent",
    "FCNAgent",
    "HighFrequencyAgent",
    "MarketMakerAgent",
    "MarketShareFCNAgent",
    "ModelCall",
    "TestAgent",
]
