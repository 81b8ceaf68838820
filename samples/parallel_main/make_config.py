"""Configs of Plham's ParallelMain model for any number of spot markets (the
parallel_main sample of PAMS's development branch, on pams-cpp).

The model: N spot markets ``SpotMarket-1`` .. ``SpotMarket-N`` and an index
market ``IndexMarket-I`` made of them; ``agents_per_market`` WorkloadFCNAgents
on each market (those on the index with a fundamental weight of mean 0.5);
``arbitrage_agents`` ArbitrageAgents between the index and the spots; a
fundamental price shock of -10% on ``SpotMarket-1`` at time 0; one session
in which every FCN agent is asked each step (``maxNormalOrders`` 10^10) and
one arbitrageur acts after each batch of orders.

The checked-in configs are made by::

    python3 samples/parallel_main/make_config.py 2 -o samples/parallel_main/config-002.json
    python3 samples/parallel_main/make_config.py 9 -o samples/parallel_main/config-009.json
    python3 samples/parallel_main/make_config.py 99 -o samples/parallel_main/config-099.json
    python3 samples/parallel_main/make_config.py 2 --steps 20 --agents-per-market 20 \\
        --arbitrage-agents 10 --num-parallel 2 -o samples/parallel_main/config.json

(``python -m samples.parallel_main.make_config`` from the repository's root
too). Without ``-o`` the config goes to standard output.
"""

import argparse
import json
import sys
from typing import Any
from typing import Dict
from typing import List
from typing import Optional
from typing import Sequence


def make_config(
    n_spots: int,
    steps: int = 500,
    agents_per_market: int = 500,
    arbitrage_agents: int = 100,
    order_rate: float = 0.1,
    with_workload: bool = True,
    bs_num_samples: int = 10,
    bs_num_steps: int = 10,
    with_shock: bool = True,
    num_parallel: Optional[int] = None,
) -> Dict[str, Any]:
    """The config of the model with ``n_spots`` spot markets.

    Args:
        n_spots: number of spot markets (>= 1).
        steps: steps of the session.
        agents_per_market: WorkloadFCNAgents on each market (spots and index).
        arbitrage_agents: ArbitrageAgents.
        order_rate: the agents' orderRate.
        with_workload: the agents' bsWorkload.
        bs_num_samples: paths of the workload (bsNumSamples).
        bs_num_steps: time steps of each path (bsNumSteps).
        with_shock: whether the fundamental price shock is enabled.
        num_parallel: simulation.numParallel, or None to leave it out.

    Returns:
        The config, a dict that json.dump writes.

    Raises:
        ValueError: n_spots is not positive.
    """
    if n_spots < 1:
        raise ValueError(f"n_spots must be positive, got {n_spots}")
    spots: List[str] = [f"SpotMarket-{i}" for i in range(1, n_spots + 1)]
    simulation: Dict[str, Any] = {
        "markets": spots + ["IndexMarket-I"],
        "agents": [f"FCNAgents-{i}" for i in range(1, n_spots + 1)]
        + ["FCNAgents-I", "ArbitrageAgents"],
        "sessions": [
            {
                "sessionName": 1,
                "iterationSteps": steps,
                "withOrderPlacement": True,
                "withOrderExecution": True,
                "withPrint": True,
                "maxNormalOrders": 10_000_000_000,
                "maxHighFrequencyOrders": 1,
                "events": ["FundamentalPriceShock"],
            }
        ],
    }
    if num_parallel is not None:
        simulation["numParallel"] = num_parallel
    config: Dict[str, Any] = {
        "simulation": simulation,
        "FundamentalPriceShock": {
            "class": "FundamentalPriceShock",
            "target": "SpotMarket-1",
            "triggerTime": 0,
            "priceChangeRate": -0.1,
            "enabled": with_shock,
        },
        "SpotMarket": {
            "class": "Market",
            "tickSize": 0.00001,
            "marketPrice": 300.0,
            "outstandingShares": 25000,
        },
    }
    for spot in spots:
        config[spot] = {"extends": "SpotMarket"}
    config["IndexMarket-I"] = {
        "class": "IndexMarket",
        "tickSize": 0.00001,
        "marketPrice": 300.0,
        "outstandingShares": 25000,
        "markets": spots,
    }
    # A template (no market of its own): each group below extends it.
    config["FCNAgent"] = {
        "class": "WorkloadFCNAgent",
        "numAgents": agents_per_market,
        "markets": ["Market"],
        "assetVolume": 50,
        "cashAmount": 10000,
        "fundamentalWeight": {"expon": [1.0]},
        "chartWeight": {"expon": [0.0]},
        "noiseWeight": {"expon": [1.0]},
        "noiseScale": 0.001,
        "timeWindowSize": [100, 200],
        "orderMargin": [0.0, 0.1],
        "orderRate": order_rate,
        "bsWorkload": with_workload,
        "bsNumSamples": bs_num_samples,
        "bsNumSteps": bs_num_steps,
    }
    for i, spot in enumerate(spots, start=1):
        config[f"FCNAgents-{i}"] = {"extends": "FCNAgent", "markets": [spot]}
    config["FCNAgents-I"] = {
        "extends": "FCNAgent",
        "markets": ["IndexMarket-I"],
        "fundamentalWeight": {"expon": [0.5]},
    }
    config["ArbitrageAgents"] = {
        "class": "ArbitrageAgent",
        "numAgents": arbitrage_agents,
        "markets": ["IndexMarket-I"] + spots,
        "assetVolume": 50,
        "cashAmount": 150000,
        "orderVolume": 1,
        "orderThresholdPrice": 1.0,
    }
    return config


def main(argv: Optional[Sequence[str]] = None) -> None:
    """The command line (see the module's doc and --help)."""
    parser = argparse.ArgumentParser(
        description="Write a config of Plham's ParallelMain model with N spot markets."
    )
    parser.add_argument("spots", type=int, help="number of spot markets")
    parser.add_argument("--steps", type=int, default=500, help="steps (default 500)")
    parser.add_argument("--agents-per-market", type=int, default=500,
                        help="FCN agents on each market (default 500)")
    parser.add_argument("--arbitrage-agents", type=int, default=100,
                        help="arbitrage agents (default 100)")
    parser.add_argument("--order-rate", type=float, default=0.1,
                        help="the FCN agents' orderRate (default 0.1)")
    parser.add_argument("--no-workload", action="store_true", help="bsWorkload false")
    parser.add_argument("--bs-num-samples", type=int, default=10,
                        help="paths of the workload (default 10)")
    parser.add_argument("--bs-num-steps", type=int, default=10,
                        help="time steps of each path (default 10)")
    parser.add_argument("--no-shock", action="store_true",
                        help="disable the fundamental price shock")
    parser.add_argument("--num-parallel", type=int, default=None,
                        help="simulation.numParallel (left out when not given)")
    parser.add_argument("--output", "-o", default=None,
                        help="output file (default: standard output)")
    args = parser.parse_args(argv)
    if args.spots < 1:
        parser.error(f"spots must be positive, got {args.spots}")
    config = make_config(
        n_spots=args.spots,
        steps=args.steps,
        agents_per_market=args.agents_per_market,
        arbitrage_agents=args.arbitrage_agents,
        order_rate=args.order_rate,
        with_workload=not args.no_workload,
        bs_num_samples=args.bs_num_samples,
        bs_num_steps=args.bs_num_steps,
        with_shock=not args.no_shock,
        num_parallel=args.num_parallel,
    )
    text = json.dumps(config, indent=4) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


if __name__ == "__main__":
    main()
