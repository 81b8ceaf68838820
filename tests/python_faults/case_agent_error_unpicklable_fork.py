"""An exception that cannot be rebuilt in the main process (its
constructor needs two arguments): a SimulationError naming the worker's
type and the agent, with the worker's traceback as its cause.

Expect: SimulationError: a __main__.Picky that could not be rebuilt in the main process
"""
import faultcase
import pams_cpp


class Picky(Exception):
    def __init__(self, what, when):
        super().__init__(f"{what} at {when}")


class Failing(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 120:
            raise Picky("no", 120)
        return super().submit_orders(markets)


if __name__ == "__main__":
    settings = faultcase.config(agent_class="Failing", start_method="fork")
    try:
        faultcase.runner("MultiProcessAgentParallelRunner", settings, [Failing]).main()
    except pams_cpp.SimulationError as e:
        assert "Failing" in str(e) and "raise Picky" in str(e.__cause__), (e, e.__cause__)
        raise
