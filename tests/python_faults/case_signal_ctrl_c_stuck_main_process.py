"""Ctrl-C (SIGINT to the process group) while a call that does not return
(time.sleep) runs in the main process of a process runner, which runs
rounds of one call and the rounds while its workers start
(runRoundsWhileWorkersStart, the default): KeyboardInterrupt within 0.1 s
of the signal, as in SequentialRunner, and no other call starts.

Expect: KeyboardInterrupt: 
Within: 0.1
Serial: yes
"""
import time

import faultcase
import pams_cpp


class Stuck(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() >= 105:
            time.sleep(3600)  # a call that does not return
        return super().submit_orders(markets)


if __name__ == "__main__":
    settings = faultcase.config(agent_class="Stuck", steps=10**6, start_method="spawn",
                                runRoundsWhileWorkersStart=True)
    runner = faultcase.runner("MultiProcessAgentParallelRunner", settings, [Stuck])
    ctrl_c = faultcase.Signal(2.5)
    try:
        runner.main()
    except KeyboardInterrupt as e:
        faultcase.report_stop(ctrl_c)
        assert not getattr(e, "__notes__", None), e.__notes__  # no agent is blamed
        raise
