"""A Python agent whose call segfaults (ctypes reads address 0) at step 110,
under MultiProcessAgentParallelRunner with its defaults ("fork") and with
"spawn": the run raises a SimulationError naming the agent, the step and
the signal, and this process lives on (it runs again), as PAMS's
BrokenProcessPool leaves it: the call ran in a worker, not here.

Expect: ok
"""
import faultcase

if __name__ == "__main__":
    faultcase.crash_in_worker("segfault", start_methods=(None, "spawn"),
                              expect="killed by signal 11")
