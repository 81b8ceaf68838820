"""SIGTERM to a process runner's process group (a batch scheduler's
stop): every step done has its row, the workers are gone, exit 143.

Expect: ok
Serial: yes
"""
import os
import signal

import faultcase

if __name__ == "__main__":
    faultcase.stop_paced_run("MultiProcessAgentParallelRunner", os.killpg, signal.SIGTERM, 143,
                             start_method="fork")
