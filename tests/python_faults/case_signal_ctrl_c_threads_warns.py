"""Ctrl-C while a thread of MultiThreadAgentParallelRunner is stuck: the
left-behind thread is named in a warning.

Expect: ok
"""
import re
import time
import warnings

import faultcase
import pams_cpp


class Stuck(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() >= 105:
            time.sleep(3600)
        return super().submit_orders(markets)


runner = faultcase.runner("MultiThreadAgentParallelRunner",
                          faultcase.config(agent_class="Stuck", steps=10**6), [Stuck])
ctrl_c = faultcase.Signal(1.5)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        runner.main()
    except KeyboardInterrupt:
        pass
messages = [str(w.message) for w in caught if "left behind" in str(w.message)]
assert messages and all(re.search(r"a thread running submit_orders of agent FCNAgents-\d+ "
                                  r"\(Stuck\) did not return and is left behind", m)
                        for m in messages), messages
print("OK")
