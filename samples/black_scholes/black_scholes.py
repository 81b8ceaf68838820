"""BlackScholes of the black_scholes sample (PAMS's development branch,
plhamJ's BlackScholes): the Monte Carlo price of a European call option,
the underlying simulated by the Euler method with one ``gauss()`` of
``prng`` per step of each path, and the Black-Scholes formula. The engine's
(include/pams/samples/black_scholes.h) computes it, drawing from ``prng``
(any random.Random) exactly as the sample's Python loop does."""
import random

from pams_cpp import _core
from pams_cpp._random import EngineRandom
from pams_cpp._random import set_state_of
from pams_cpp._random import state_of


def _on_generator(prng: random.Random, compute):
    """compute(generator) on prng's state, which it then advances."""
    if isinstance(prng, EngineRandom):
        return compute(prng._generator)
    generator = _core.Generator()
    generator.set_state(*state_of(prng))
    result = compute(generator)
    set_state_of(prng, *generator.state())
    return result


class BlackScholes:
    """Monte Carlo pricing of a European call option (see the module)."""

    def __init__(self, prng: random.Random, initial_price: float, strike_price: float,
                 risk_free_rate: float, volatility: float, maturity_time: float) -> None:
        """Initialize.

        Args:
            prng: the generator of the paths.
            initial_price: the underlying's price now.
            strike_price: the option's strike.
            risk_free_rate: the risk-free rate.
            volatility: the underlying's volatility.
            maturity_time: the time to maturity.
        """
        self.prng = prng
        self.initial_price = initial_price
        self.strike_price = strike_price
        self.risk_free_rate = risk_free_rate
        self.volatility = volatility
        self.maturity_time = maturity_time

    def compute(self, n_samples: int, n_steps: int) -> float:
        """The discounted mean payoff of n_samples paths of n_steps steps.

        Raises:
            ValueError: n_samples or n_steps is not positive.
        """
        if n_samples < 1:
            raise ValueError("n_samples have to be positive")
        if n_steps < 1:
            raise ValueError("n_steps have to be positive")
        return _on_generator(self.prng, lambda g: _core._black_scholes_compute(
            g, self.initial_price, self.strike_price, self.risk_free_rate, self.volatility,
            self.maturity_time, n_samples, n_steps))

    def theoretical_price(self) -> float:
        """The Black-Scholes formula's price."""
        return _core._black_scholes_theoretical_price(
            self.initial_price, self.strike_price, self.risk_free_rate, self.volatility,
            self.maturity_time)


__all__ = ["BlackScholes"]
