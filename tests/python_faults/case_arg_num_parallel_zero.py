"""simulation.numParallel 0: the key is named, with its range.

Expect: ConfigError: simulation.numParallel: must be an integer between 1 and 4096, got 0
"""
import faultcase

faultcase.runner("MultiThreadAgentParallelRunner", faultcase.config(num_parallel=0)).main()
