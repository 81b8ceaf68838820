"""A worker initializer that fails in a spawned worker: a RuntimeError
naming the initializer and its own error (here an ImportError), as on
PAMS's development branch, the worker's traceback of that error its cause.

Expect: RuntimeError: load_model() raised ModuleNotFoundError: No module named 'no_such_model_library'
"""
import faultcase
import pams_cpp


def load_model():
    import no_such_model_library  # noqa: F401


class WithModel(pams_cpp.runners.MultiProcessAgentParallelRunner):
    def _get_worker_initializer(self):
        return load_model


class PyFCN(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):  # Python's: its calls need workers
        return super().submit_orders(markets)


if __name__ == "__main__":
    import random
    runner = WithModel(settings=faultcase.config(agent_class="PyFCN", start_method="spawn"),
                       prng=random.Random(1))
    runner.class_register(PyFCN)
    runner.main()
