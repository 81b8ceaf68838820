"""A Python event that raises: its own error, naming event and step.

Expect: ZeroDivisionError: division by zero
"""
import faultcase
import pams_cpp


class Shock(pams_cpp.events.EventABC):
    def hook_registration(self):
        return [pams_cpp.events.EventHook(event=self, hook_type="market", is_before=False,
                                          time=[105])]

    def hooked_after_step_for_market(self, simulator, market):
        return 1 / 0


settings = faultcase.config()
settings["Shock"] = {"class": "Shock"}
settings["simulation"]["sessions"][1]["events"] = ["Shock"]
try:
    faultcase.runner("SequentialRunner", settings, [Shock]).main()
except ZeroDivisionError as e:
    assert e.__notes__ == ["in hooked_after_step_for_market of event Shock (Shock) at step 105"], \
        e.__notes__
    raise
