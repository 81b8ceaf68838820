"""A user's agent module written for PAMS (it imports pams, as such modules
do), for as_pams_workers_runs.py: its agents record which pams their code
ran on, in whichever process ran it."""
import os

import pams
from pams.agents import FCNAgent


class MarkedFCNAgent(FCNAgent):
    """An FCNAgent that notes the pams its submit_orders ran on."""

    def submit_orders(self, markets):
        # "pams_cpp" under install_as_pams(); the process it ran in.
        self.ran_on = (pams.__name__, os.getpid())
        return super().submit_orders(markets)
