"""The command line the samples' main.py scripts share (the branch's:
--config/-c, --seed/-s, and for the samples with parallel runners --runner/-r
and --num-parallel/-n)."""
import argparse
import json
import random
from typing import Any
from typing import Dict
from typing import Optional
from typing import Sequence
from typing import Type

from pams_cpp.logs import Logger
from pams_cpp.logs.market_step_loggers import MarketStepPrintLogger
from pams_cpp.runners import MultiProcessAgentParallelRunner
from pams_cpp.runners import MultiThreadAgentParallelRunner
from pams_cpp.runners import SequentialRunner

RUNNERS: Dict[str, Type[SequentialRunner]] = {
    "sequential": SequentialRunner,
    "multi_thread": MultiThreadAgentParallelRunner,
    "multi_process": MultiProcessAgentParallelRunner,
}


def run_sample(classes: Sequence[type] = (), logger: Optional[Logger] = None,
               with_runner: bool = False, default_runner: str = "sequential",
               argv: Optional[Sequence[str]] = None) -> SequentialRunner:
    """Parses the command line, runs the config with the sample's classes
    registered and returns the runner."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", "-c", type=str, required=True, help="config.json file")
    parser.add_argument("--seed", "-s", type=int, default=None, help="simulation random seed")
    if with_runner:
        parser.add_argument("--runner", "-r", choices=list(RUNNERS), default=default_runner,
                            help="simulation runner")
        parser.add_argument("--num-parallel", "-n", type=int, default=None,
                            help="workers of the parallel runners (simulation.numParallel)")
    args = parser.parse_args(argv)
    settings: Any = args.config
    runner_class: Type[SequentialRunner] = SequentialRunner
    if with_runner:
        runner_class = RUNNERS[args.runner]
        if args.num_parallel is not None:
            with open(args.config, encoding="utf-8") as f:
                settings = json.load(f)
            settings["simulation"]["numParallel"] = args.num_parallel
    runner = runner_class(
        settings=settings,
        prng=random.Random(args.seed) if args.seed is not None else None,
        logger=logger if logger is not None else MarketStepPrintLogger(),
    )
    for cls in classes:
        runner.class_register(cls=cls)
    runner.main()
    return runner
