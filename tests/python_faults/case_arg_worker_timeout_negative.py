"""simulation.workerTimeout -1: the key is named.

Expect: ConfigError: simulation.workerTimeout: must be a number of seconds from 0 to 1e9
"""
import faultcase

faultcase.runner("MultiProcessAgentParallelRunner",
                 faultcase.config(start_method="fork", workerTimeout=-1)).main()
