"""WorkloadFCNAgent of the black_scholes sample (PAMS's development branch,
plhamJ's WorkloadFCNAgent): each time it is asked while the workload is on
(``bsWorkload``, before ``bsLoadShutdown``), it prices an option by
BlackScholes drawing from its own prng and adds the price to ``bs_sum``,
then places FCNAgent's orders with probability ``orderRate``.

pams-cpp's built-in class BlackScholesWorkloadFCNAgent runs it (pams run
names it so, since its WorkloadFCNAgent is parallel_main's);
``runner.class_register(WorkloadFCNAgent)`` with this class makes the name
WorkloadFCNAgent mean it in that runner's configs, as in the sample.
"""
from typing import List
from typing import Union

from pams_cpp import _core
from pams_cpp.agents import FCNAgent
from pams_cpp.order import Cancel
from pams_cpp.order import Order

# plhamJ's ORDER_RATE, and the option the workload prices.
DEFAULT_ORDER_RATE: float = 0.1
BS_INITIAL_PRICE: float = 100.0
BS_STRIKE_PRICE: float = 100.0
BS_RISK_FREE_RATE: float = 0.1
BS_VOLATILITY: float = 0.3
BS_MATURITY_TIME: float = 3.0


class WorkloadFCNAgent(FCNAgent):
    """The black_scholes sample's agent (keys: FCNAgent's, bsWorkload,
    bsLoadShutdown, bsNumSamples, bsNumSteps, orderRate)."""

    _engine_base = "BlackScholesWorkloadFCNAgent"

    def _parameter(self, name: str):
        return _core._sample_agent_parameters(self._engine)[name]

    bs_workload = property(lambda self: self._parameter("bs_workload"),
                           doc="Whether the workload runs.")
    bs_load_shutdown = property(lambda self: self._parameter("bs_load_shutdown"),
                                doc="The time from which the workload stops (<= 0: never).")
    bs_n_samples = property(lambda self: self._parameter("bs_n_samples"),
                            doc="Paths of the workload.")
    bs_n_steps = property(lambda self: self._parameter("bs_n_steps"),
                          doc="Time steps of each path.")
    order_rate = property(lambda self: self._parameter("order_rate"),
                          doc="The probability to place orders when asked.")
    bs_sum = property(lambda self: self._parameter("bs_sum"),
                      doc="The sum of the option prices computed so far.")

    def is_workload_on(self, time: int) -> bool:
        """Whether the workload runs at `time`."""
        return _core._sample_agent_is_workload_on(self._engine, time)

    def submit_orders(self, markets: List) -> List[Union[Order, Cancel]]:
        """The workload, then FCNAgent's orders with probability order_rate."""
        return self._engine._base_submit_orders(list(markets))


__all__ = ["BS_INITIAL_PRICE", "BS_MATURITY_TIME", "BS_RISK_FREE_RATE", "BS_STRIKE_PRICE",
           "BS_VOLATILITY", "DEFAULT_ORDER_RATE", "WorkloadFCNAgent"]
