"""An agent class whose module fails to import in a worker process of the
test that sets PAMS_TEST_FAIL_IN_WORKERS (a directory): the import waits
until the test creates <dir>/go, notes itself in <dir>/said, and raises.
In the test's own process (PAMS_TEST_MAIN_PID) it imports as usual."""
import os
import time

import pams_cpp

_DIR = os.environ.get("PAMS_TEST_FAIL_IN_WORKERS")
if _DIR and os.environ.get("PAMS_TEST_MAIN_PID") != str(os.getpid()):
    _deadline = time.monotonic() + 60
    while not os.path.exists(os.path.join(_DIR, "go")) and time.monotonic() < _deadline:
        time.sleep(0.01)
    with open(os.path.join(_DIR, "said"), "a") as _f:
        _f.write(f"{os.getpid()}\n")
    raise RuntimeError("the model file is missing (raised by the test's module)")


class FailsInWorkers(pams_cpp.agents.FCNAgent):
    """An FCNAgent (its module fails in workers, see above), whose calls
    take a millisecond so that they go to workers."""

    def submit_orders(self, markets):
        time.sleep(0.001)
        return super().submit_orders(markets)
