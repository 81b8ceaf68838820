"""The invest_div sample of PAMS's development branch, on pams_cpp: FCN agents
under a rule for investment diversification, in two markets, one of which
is shocked. From the repository's root::

    python -m samples.invest_div.main --config samples/invest_div/config.json --seed 1
"""
from samples._main import run_sample
from samples.invest_div.invest_div_fcn_agent import InvestDivFCNAgent


def main() -> None:
    """Runs the sample (see the module)."""
    run_sample(classes=[InvestDivFCNAgent])


if __name__ == "__main__":
    main()
