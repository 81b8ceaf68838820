"""The black_scholes sample of PAMS's development branch, on pams_cpp: three
spot markets and an index, WorkloadFCNAgents that price an option before
deciding, an arbitrage agent, and a price shock. From the repository's root::

    python -m samples.black_scholes.main --config samples/black_scholes/config.json --seed 1
    python -m samples.black_scholes.main -c samples/black_scholes/config.json -s 1 \\
        --runner multi_process --num-parallel 2
"""
from samples._main import run_sample
from samples.black_scholes.workload_fcn_agent import WorkloadFCNAgent


def main() -> None:
    """Runs the sample (see the module)."""
    run_sample(classes=[WorkloadFCNAgent], with_runner=True)


if __name__ == "__main__":
    main()
