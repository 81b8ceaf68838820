"""A Python agent whose call ends its process with os._exit(3) at step 110,
under MultiProcessAgentParallelRunner with its defaults ("fork") and with
"forkserver": the run raises a SimulationError naming the agent, the step
and the exit status, and this process lives on (it runs again).

Expect: ok
"""
import faultcase

if __name__ == "__main__":
    faultcase.crash_in_worker("exit", start_methods=(None, "forkserver"),
                              expect="exited with status 3")
