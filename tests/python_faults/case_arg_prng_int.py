"""prng=42: the argument is named, with what it must be.

Expect: TypeError: prng must be a random.Random
"""
import faultcase
import pams_cpp

pams_cpp.runners.SequentialRunner(settings=faultcase.config(), prng=42)
