"""submit_orders returning None (a forgotten return): the TypeError names
the agent and the step.

Expect: TypeError: 'NoneType' object is not iterable
"""
import faultcase
import pams_cpp


class Forgetful(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        super().submit_orders(markets)


try:
    faultcase.runner("SequentialRunner", faultcase.config(agent_class="Forgetful"),
                     [Forgetful]).main()
except TypeError as e:
    assert "in submit_orders of agent FCNAgents-" in e.__notes__[0], e.__notes__
    raise
