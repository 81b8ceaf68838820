"""Ctrl-C while the main process loads an agent's state that a worker
sent back (a slow __setstate__): KeyboardInterrupt, with no note blaming
the agent's state.

Expect: KeyboardInterrupt: 
Serial: yes
"""
import time

import faultcase
import pams_cpp


class SlowToLoad(pams_cpp.agents.FCNAgent):
    def __getstate__(self):
        return {"n": 1}

    def __setstate__(self, state):
        time.sleep(0.05)


if __name__ == "__main__":
    runner = faultcase.runner("MultiProcessAgentParallelRunner",
                              faultcase.config(agent_class="SlowToLoad", steps=10**6,
                                               start_method="fork"), [SlowToLoad])
    ctrl_c = faultcase.Signal(1.0)
    try:
        runner.main()
    except KeyboardInterrupt as e:
        assert not getattr(e, "__notes__", None), e.__notes__
        raise
