"""Logger: the base of the loggers a runner accepts (PAMS's ``Logger``)."""


class Logger:
    """A logger: the runner reports the simulation to it.

    The loggers of this package (MarketStepSaver, MarketStepPrintLogger,
    the CSV loggers) are the engine's own and cost no Python call per step.
    """

    def _engine_logger(self):
        """The engine's logger behind this one."""
        raise NotImplementedError(
            f"pams_cpp cannot run the Python logger {type(self).__name__} yet: use "
            "MarketStepSaver, MarketStepPrintLogger or the CSV loggers"
        )

    def _after_run(self) -> None:
        """Called when a run ends."""


__all__ = ["Logger"]
