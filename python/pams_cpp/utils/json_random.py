"""JsonRandom: the random values of a config (PAMS's ``pams.utils.JsonRandom``).

A config value is a number, ``[min, max]`` or ``{"uniform": [min, max]}``
(uniform on [min, max)), ``{"const": [v]}``, ``{"normal": [mu, sigma]}`` or
``{"expon": [lambda]}`` (exponential of mean lambda). Draws come from the
given ``random.Random`` exactly as in PAMS (and in the engine), so a Python
agent's setup draws the same values from the same generator.
"""
import math
from random import Random
from typing import Dict
from typing import List
from typing import Union

JsonValue = Union[Dict, List, float, int]

# Each distribution: its number of arguments and the error message's form.
_FORMS = {
    "const": (1, "Constant must be [value]"),
    "uniform": (2, "Uniform distribution must be [min, max]"),
    "normal": (2, "Normal distribution must be [mu, sigma]"),
    "expon": (1, "Exponential distribution must be [lambda]"),
}


class JsonRandom:
    """Draws the random values of a config from a generator (PAMS's
    ``pams.utils.JsonRandom``), as PAMS and the engine do.

    Args:
        prng (random.Random): the generator the values are drawn from.
    """

    def __init__(self, prng: Random) -> None:
        self.prng: Random = prng

    def _next_uniform(self, min_value: float, max_value: float) -> float:
        return self.prng.random() * (max_value - min_value) + min_value

    def _next_normal(self, mu: float, sigma: float) -> float:
        return self.prng.gauss(mu=mu, sigma=sigma)

    def _next_exponential(self, lam: float) -> float:
        return lam * -math.log(self.prng.random())

    def random(self, json_value: JsonValue) -> float:
        """Draws one value as a config value says.

        Args:
            json_value (JsonValue): a number (returned as a float), ``[min,
                max]`` or ``{"uniform": [min, max]}``, ``{"const": [v]}``,
                ``{"normal": [mu, sigma]}`` or ``{"expon": [lambda]}``.

        Returns:
            float: the value.

        Raises:
            ValueError: json_value is none of these forms (the message
                names the form expected).
        """
        if isinstance(json_value, list):
            if len(json_value) != 2:
                raise ValueError(
                    "Uniform distribution must be [min, max] but " + _text(json_value)
                )
            return self._next_uniform(float(json_value[0]), float(json_value[1]))
        if isinstance(json_value, dict):
            if len(json_value) != 1:
                raise ValueError(
                    "Multiple specification of distribution type: " + _text(json_value)
                )
            (kind, args), = json_value.items()
            if kind not in _FORMS:
                raise ValueError("Unknown distribution type: " + _text(json_value))
            n_args, form = _FORMS[kind]
            if not isinstance(args, list):
                raise ValueError(form + " (list) but " + _text(json_value))
            if len(args) != n_args:
                raise ValueError(form + " but " + _text(json_value))
            values = [float(a) for a in args]
            if kind == "const":
                return values[0]
            if kind == "uniform":
                return self._next_uniform(values[0], values[1])
            if kind == "normal":
                return self._next_normal(values[0], values[1])
            return self._next_exponential(values[0])
        return float(json_value)


__all__ = ["JsonRandom", "JsonValue"]


def _text(value) -> str:
    """A config value as JSON text, for messages (json is imported here:
    only a bad config needs it)."""
    import json

    return json.dumps(value)
