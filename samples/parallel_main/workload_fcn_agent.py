"""WorkloadFCNAgent of the parallel_main sample (PAMS's development branch,
Plham's ParallelMain): asked about an accessible market, it prices an option
by ``black_scholes_monte_carlo`` on a generator of its own, seeded with
``random.Random(f"{agent_id}:{market_id}:{time}")``, and discards the price;
then it places FCNAgent's orders for that market with probability
``orderRate`` (no draw when 1.0). The workload changes no result.
pams-cpp's built-in class (include/pams/samples/workload_fcn_agent.h), run
by the engine; this is its Python face."""
import random
from typing import List
from typing import Union

from pams_cpp import _core
from pams_cpp.agents import FCNAgent
from pams_cpp.order import Cancel
from pams_cpp.order import Order
from samples.black_scholes.black_scholes import _on_generator

# The ORDER_RATE of the branch's run.sh (PAMS's, not in this repository),
# and the option Plham's workload prices.
DEFAULT_ORDER_RATE: float = 0.1
BS_INITIAL_PRICE: float = 100.0
BS_STRIKE_PRICE: float = 100.0
BS_RISK_FREE_RATE: float = 0.1
BS_VOLATILITY: float = 0.3
BS_MATURITY_TIME: float = 3.0


def black_scholes_monte_carlo(prng: random.Random, n_samples: int, n_steps: int,
                              initial_price: float = BS_INITIAL_PRICE,
                              strike_price: float = BS_STRIKE_PRICE,
                              risk_free_rate: float = BS_RISK_FREE_RATE,
                              volatility: float = BS_VOLATILITY,
                              maturity_time: float = BS_MATURITY_TIME) -> float:
    """The discounted mean payoff of n_samples Euler paths of n_steps steps of
    a European call, one ``gauss()`` of prng per step (the engine's loop).

    Raises:
        ValueError: n_samples or n_steps is not positive.
    """
    if n_samples < 1:
        raise ValueError("n_samples have to be positive")
    if n_steps < 1:
        raise ValueError("n_steps have to be positive")
    return _on_generator(prng, lambda g: _core._black_scholes_monte_carlo(
        g, n_samples, n_steps, initial_price, strike_price, risk_free_rate, volatility,
        maturity_time))


class WorkloadFCNAgent(FCNAgent):
    """The parallel_main sample's agent (keys: FCNAgent's, orderRate,
    bsWorkload, bsNumSamples, bsNumSteps)."""

    _engine_base = "WorkloadFCNAgent"

    def _parameter(self, name: str):
        return _core._sample_agent_parameters(self._engine)[name]

    order_rate = property(lambda self: self._parameter("order_rate"),
                          doc="The probability to place orders when asked.")
    bs_workload = property(lambda self: self._parameter("bs_workload"),
                           doc="Whether the workload runs.")
    bs_n_samples = property(lambda self: self._parameter("bs_n_samples"),
                            doc="Paths of the workload.")
    bs_n_steps = property(lambda self: self._parameter("bs_n_steps"),
                          doc="Time steps of each path.")

    def compute_workload(self, market) -> float:
        """The workload for the market at its time (the engine's); returns the price."""
        return _core._compute_workload(self._engine, market)

    def submit_orders_by_market(self, market) -> List[Union[Order, Cancel]]:
        """The workload, then FCNAgent's orders with probability order_rate."""
        return self._engine._base_submit_orders([market])


__all__ = ["BS_INITIAL_PRICE", "BS_MATURITY_TIME", "BS_RISK_FREE_RATE", "BS_STRIKE_PRICE",
           "BS_VOLATILITY", "DEFAULT_ORDER_RATE", "WorkloadFCNAgent",
           "black_scholes_monte_carlo"]
