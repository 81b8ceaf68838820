"""Ctrl-C while a worker process is inside a 20 s agent call: the run
stops within 0.1 s (the worker is killed), and the interpreter goes on to
run again.

Expect: ok
Within: 0.1
Serial: yes
"""
import time

import faultcase
import pams_cpp


class Long(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 105 and self.agent_id % 3 == 0:
            end = time.monotonic() + 20
            while time.monotonic() < end:  # busy, in Python
                pass
        return super().submit_orders(markets)


if __name__ == "__main__":
    runner = faultcase.runner("MultiProcessAgentParallelRunner",
                              faultcase.config(agent_class="Long", steps=10**6,
                                               start_method="fork"), [Long])
    ctrl_c = faultcase.Signal(1.0)
    try:
        runner.main()
    except KeyboardInterrupt:
        faultcase.report_stop(ctrl_c)
    faultcase.runner("MultiProcessAgentParallelRunner",
                     faultcase.config(steps=20, start_method="fork")).main()
    print("OK")
