"""prng=numpy.random.default_rng(): named, with what it must be.

Expect: TypeError: prng must be a random.Random (PAMS's runners draw from one; e.g. random.Random(42)), got numpy.random._generator.Generator
"""
import numpy

import faultcase
import pams_cpp

pams_cpp.runners.SequentialRunner(settings=faultcase.config(), prng=numpy.random.default_rng(1))
