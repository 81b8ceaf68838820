"""An agent holding a lock under the process runner: its state cannot
travel; the error says which agent and how to choose what travels.

Expect: TypeError: cannot pickle '_thread.lock' object
"""
import threading

import faultcase
import pams_cpp


class Locked(pams_cpp.agents.FCNAgent):
    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings, accessible_markets_ids, *args, **kwargs)
        self.lock = threading.Lock()

    def submit_orders(self, markets):  # Python's: its calls go to workers
        return super().submit_orders(markets)


if __name__ == "__main__":
    try:
        faultcase.runner("MultiProcessAgentParallelRunner",
                         faultcase.config(agent_class="Locked", start_method="fork"),
                         [Locked]).main()
    except TypeError as e:
        assert "define __getstate__ to choose what travels" in e.__notes__[0], e.__notes__
        raise
