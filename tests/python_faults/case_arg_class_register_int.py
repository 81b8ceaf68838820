"""class_register(42): named.

Expect: TypeError: class_register takes a class, got 42
"""
import random

import faultcase
import pams_cpp

runner = pams_cpp.runners.SequentialRunner(settings=faultcase.config(), prng=random.Random(1))
runner.class_register(42)
