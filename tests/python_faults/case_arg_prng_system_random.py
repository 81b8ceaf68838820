"""prng=random.SystemRandom(): runs, as PAMS does with it (a random
run: the engine's generator is seeded from it); the SystemRandom is left
as it is (it has no state).

Expect: ok
"""
import random

import faultcase
import pams_cpp
from pams_cpp.logs.market_step_loggers import MarketStepSaver

saver = MarketStepSaver()
prng = random.SystemRandom()
pams_cpp.runners.SequentialRunner(settings=faultcase.config(steps=50), prng=prng,
                                  logger=saver).main()
assert len(saver.market_step_logs) == 150, len(saver.market_step_logs)
print("OK")
