"""Helpers of PAMS's ``pams.utils``."""
from .json_random import JsonRandom
from .json_random import JsonValue

__all__ = ["JsonRandom", "JsonValue"]
