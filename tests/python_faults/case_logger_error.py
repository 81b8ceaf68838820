"""A Python logger that raises: its own error, with a note naming it and
the step.

Expect: KeyError: 'no such column'
"""
import random

import faultcase
import pams_cpp


class Broken(pams_cpp.logs.Logger):
    def process_market_step_end_log(self, log):
        if log.market.get_time() == 30:
            {}["no such column"]


try:
    pams_cpp.runners.SequentialRunner(settings=faultcase.config(), prng=random.Random(1),
                                      logger=Broken()).main()
except KeyError as e:
    assert e.__notes__ == ["in logger Broken at step 30"], e.__notes__
    raise
