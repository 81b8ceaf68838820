"""The user classes of PAMS's samples, written for the reference runs (their
C++ versions are in samples/plugin/, whose sources say what each does).
"""
from pams import Market
from pams.agents import FCNAgent


class ExtendedMarket(Market):
    """A Market that may start its executed-volume history with tradeVolume."""

    def setup(self, settings, *args, **kwargs):
        super().setup(settings, *args, **kwargs)
        if "tradeVolume" in settings:
            if not isinstance(settings["tradeVolume"], int):
                raise ValueError("tradeVolume must be int")
            self._executed_volumes = [int(settings["tradeVolume"])]


class UserDefinedFCNAgent(FCNAgent):
    """An FCNAgent subclass that changes nothing."""


SAMPLE_CLASSES = [ExtendedMarket, UserDefinedFCNAgent]
