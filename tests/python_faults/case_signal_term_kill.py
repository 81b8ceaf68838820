"""SIGKILL (the OOM killer) to a Python run with a StepsCsvLogger: rows
reach the file at least every second, so the file holds whole rows up
to about a second before the kill.

Expect: ok
Serial: yes
"""
import os
import signal

import faultcase

if __name__ == "__main__":
    faultcase.stop_paced_run("SequentialRunner", os.kill, signal.SIGKILL, -9)
