"""Helpers of PAMS's ``pams.utils``: JsonRandom (a config's random
values), json_extends (a config extending another), find_class, and the
stylized facts of PAMS's development branch (log_returns, excess_kurtosis,
autocorrelation, hill_tail_index)."""
from .class_finder import find_class
from .json_extends import json_extends
from .json_random import JsonRandom
from .json_random import JsonValue
# Since PAMS's development branch.
from .stylized_facts import autocorrelation
from .stylized_facts import excess_kurtosis
from .stylized_facts import hill_tail_index
from .stylized_facts import log_returns

__all__ = [
    "JsonRandom",
    "JsonValue",
    "autocorrelation",
    "excess_kurtosis",
    "find_class",
    "hill_tail_index",
    "json_extends",
    "log_returns",
]
