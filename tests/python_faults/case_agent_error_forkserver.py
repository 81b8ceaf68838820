"""A ValueError raised by a Python agent in a worker process ("forkserver") arrives as that
ValueError (`except ValueError` catches it), with a note naming the
agent and the step, and the worker's traceback as its cause.

Expect: ValueError: no price today
"""
import faultcase
import pams_cpp


class Failing(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 110:
            raise ValueError("no price today")
        return super().submit_orders(markets)


if __name__ == "__main__":
    settings = faultcase.config(agent_class="Failing", start_method="forkserver")
    try:
        faultcase.runner("MultiProcessAgentParallelRunner", settings, [Failing]).main()
    except ValueError as e:  # the agent's own type
        assert type(e) is ValueError, type(e)
        assert e.__notes__[0].startswith("in submit_orders of agent FCNAgents-"), e.__notes__
        assert e.__notes__[0].endswith("(Failing) at step 110"), e.__notes__
        cause = str(e.__cause__)  # the worker's traceback, with the source line
        assert f'File "{__file__}", line' in cause, cause
        assert 'raise ValueError("no price today")' in cause, cause
        raise
