"""SIGTERM to a process runner's process group (a batch scheduler's
stop): every step done has its row, the workers are gone, exit 143.

Expect: ok
Serial: yes
"""
import os
import signal
import subprocess
import sys
import time

RUN = """
import time, faultcase, pams_cpp
class Paced(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        time.sleep(0.001)
        return super().submit_orders(markets)
if __name__ == "__main__":
    settings = faultcase.config(agent_class="Paced", steps=10**6, start_method="fork")
    runner = faultcase.runner("MultiProcessAgentParallelRunner", settings, [Paced],
                              logger=pams_cpp.logs.StepsCsvLogger("steps.csv"))
    runner.main()
"""

with open("run.py", "w") as f:
    f.write(RUN)
proc = subprocess.Popen([sys.executable, "run.py"], start_new_session=True)
time.sleep(2)
with open("steps.csv") as f:
    rows_before = f.read().count("\n")
os.killpg(proc.pid, signal.SIGTERM)
status = proc.wait(timeout=10)
assert status == 143, status
with open("steps.csv") as f:
    text = f.read()
rows = text.splitlines()
assert text.endswith("\n") and all(len(r.split(",")) == 14 for r in rows), rows[-3:]
# Every step done until the signal has its row (one market, one row a step).
times = [int(r.split(",")[3]) for r in rows[1:]]
assert times == list(range(len(times))), times[-5:]
assert len(rows) >= max(rows_before, 100), (len(rows), rows_before)
print(f"{len(rows) - 1} rows", "OK")
