"""A Logger subclass whose __init__ does not call super().__init__():
said so when the runner is made, not as an AttributeError mid-run.

Expect: TypeError: logger: Mine.__init__ does not call super().__init__()
"""
import random

import faultcase
import pams_cpp


class Mine(pams_cpp.logs.Logger):
    def __init__(self):
        self.rows = []

    def process_order_log(self, log):
        self.rows.append(log)


pams_cpp.runners.SequentialRunner(settings=faultcase.config(), prng=random.Random(1),
                                  logger=Mine()).main()
