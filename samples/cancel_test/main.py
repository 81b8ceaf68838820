"""The cancel_test sample of PAMS's development branch, on pams_cpp: FCN
agents that cancel some of their orders at once. From the repository's root::

    python -m samples.cancel_test.main --config samples/cancel_test/config.json --seed 1
"""
from samples._main import run_sample
from samples.cancel_test.cancel_fcn_agent import CancelFCNAgent


def main() -> None:
    """Runs the sample (see the module)."""
    run_sample(classes=[CancelFCNAgent])


if __name__ == "__main__":
    main()
