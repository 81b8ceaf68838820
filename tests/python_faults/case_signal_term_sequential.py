"""SIGTERM to a Python run with a StepsCsvLogger (SequentialRunner): the run
stops at the end of its step, the CSV holds every step done in whole
rows, and the program exits with status 143, as the pams command does.

Expect: ok
Serial: yes
"""
import os
import signal

import faultcase

if __name__ == "__main__":
    faultcase.stop_paced_run("SequentialRunner", os.kill, signal.SIGTERM, 143)
