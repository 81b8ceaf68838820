"""simulation.startMethod "thread": the key is named, with its choices.

Expect: ConfigError: simulation.startMethod: expected "spawn", "forkserver" or "fork", got "thread"
"""
import faultcase

faultcase.runner("MultiProcessAgentParallelRunner",
                 faultcase.config(start_method="thread")).main()
