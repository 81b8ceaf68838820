"""logger=42: named, with what it must be.

Expect: TypeError: logger must be a pams_cpp.logs.Logger, got int 42
"""
import random

import faultcase
import pams_cpp

pams_cpp.runners.SequentialRunner(settings=faultcase.config(), prng=random.Random(1), logger=42)
