"""Ctrl-C while spawned workers start (a worker initializer loading a
model for 30 s): KeyboardInterrupt within 0.1 s (it took 3 s).

Expect: KeyboardInterrupt: 
Within: 0.1
Serial: yes
"""
import random
import time

import faultcase
import pams_cpp


def load_model():
    time.sleep(30)


class WithModel(pams_cpp.runners.MultiProcessAgentParallelRunner):
    def _get_worker_initializer(self):
        return load_model


if __name__ == "__main__":
    runner = WithModel(settings=faultcase.config(start_method="spawn", agent_class="InPython"),
                       prng=random.Random(1))
    runner.class_register(faultcase.InPython)
    ctrl_c = faultcase.Signal(1.0)
    try:
        runner.main()
    except KeyboardInterrupt:
        faultcase.report_stop(ctrl_c)
        raise
