"""Helpers of PAMS's ``pams.utils``."""
from .class_finder import find_class
from .json_extends import json_extends
from .json_random import JsonRandom
from .json_random import JsonValue

__all__ = ["JsonRandom", "JsonValue", "find_class", "json_extends"]
