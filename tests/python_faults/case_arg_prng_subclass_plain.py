"""A random.Random subclass that only adds methods runs, with the
results of its state (those of random.Random with the same seed).

Expect: ok
"""
import random

import faultcase
import pams_cpp
from pams_cpp.logs.market_step_loggers import MarketStepSaver


class Counting(random.Random):
    def pick(self, items):
        return self.choice(items)


def run(prng):
    saver = MarketStepSaver()
    pams_cpp.runners.SequentialRunner(settings=faultcase.config(steps=50), prng=prng,
                                      logger=saver).main()
    return [log["market_price"] for log in saver.market_step_logs]


assert run(Counting(7)) == run(random.Random(7))
print("OK")
