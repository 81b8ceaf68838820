"""The dark_pool sample of PAMS's development branch, on pams_cpp (the port
of plhamJ's DarkPool sample, Mizuta et al. 2015): FCN agents trade in a lit
market and in a dark pool. From the repository's root::

    python -m samples.dark_pool.main --config samples/dark_pool/config.json --seed 1

prints the lines of DarkPoolPrintLogger. ``pams run samples/dark_pool/config.json``
runs the same simulation from the command line.
"""
from samples._main import run_sample
from samples.dark_pool.dark_pool_fcn_agent import DarkPoolFCNAgent
from samples.dark_pool.dark_pool_market import DarkPoolMarket
from samples.dark_pool.dark_pool_print_logger import DarkPoolPrintLogger


def main() -> None:
    """Runs the sample (see the module)."""
    run_sample(classes=[DarkPoolMarket, DarkPoolFCNAgent], logger=DarkPoolPrintLogger())


if __name__ == "__main__":
    main()
