"""A random.Random subclass with its own random(): refused with the
reason (the engine could not draw its numbers).

Expect: TypeError: prng: Biased overrides random(), but the engine draws PAMS's numbers itself
"""
import random

import faultcase
import pams_cpp


class Biased(random.Random):
    def random(self):
        return super().random() ** 2


pams_cpp.runners.SequentialRunner(settings=faultcase.config(), prng=Biased(1))
