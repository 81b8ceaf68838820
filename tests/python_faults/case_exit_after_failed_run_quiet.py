"""After interrupted and failed runs of every runner, the interpreter
exits without nanobind's report of leaked objects (the harness checks).

Expect: ok
"""
import faultcase
import pams_cpp


class Failing(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 105:
            raise RuntimeError("failed")
        return super().submit_orders(markets)


if __name__ == "__main__":
    for kind, extra in (("SequentialRunner", {}), ("MultiThreadAgentParallelRunner", {}),
                        ("MultiProcessAgentParallelRunner", {"start_method": "fork"})):
        try:
            faultcase.runner(kind, faultcase.config(agent_class="Failing", **extra),
                             [Failing]).main()
        except RuntimeError:
            pass
    print("OK")
