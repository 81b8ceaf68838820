"""Fundamentals: the fundamental price processes of a simulation's markets
(PAMS's ``pams.fundamentals.Fundamentals``), as ``runner.simulator.fundamentals``.

Geometric Brownian motions, correlated where the config says so, drawn in
chunks from their own numpy-compatible generator as PAMS draws them. Its
methods have PAMS's names and arguments (``get_fundamental_price(market_id,
time)``, ``change_drift(market_id, drift, time=0)``, ...).
"""
from ._core import Fundamentals

__all__ = ["Fundamentals"]
