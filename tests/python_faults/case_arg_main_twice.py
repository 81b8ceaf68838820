"""main() twice: said in Python's terms (no C++ names).

Expect: SimulationError: SequentialRunner: main() (or _setup()) was called on this runner before
"""
import random

import faultcase
import pams_cpp

runner = pams_cpp.runners.SequentialRunner(settings=faultcase.config(steps=10),
                                           prng=random.Random(1))
runner.main()
runner.main()
