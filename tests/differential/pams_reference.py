#!/usr/bin/env python3
"""Run a config with the reference PAMS (the pinned PyPI release) and write the
same files as `pams run`: stdout as PAMS's MarketStepPrintLogger, plus
--steps-csv and --agents-csv with the columns pams-cpp writes.

This is the reference side of the differential tests. Run it with the
reference environment (tests/differential/differential_test.py sets it): Debian's
python3 with Debian's numpy/scipy on reference BLAS/LAPACK, numpy's AVX-512
exp switched off. `--check-env` refuses to run otherwise.

Usage: pams_reference.py CONFIG --seed N [--steps-csv F] [--agents-csv F]
                         [--check-env]
"""
import argparse
import os
import random
import sys

from pams.logs import Logger
from pams.logs import MarketStepPrintLogger
from pams.runners import SequentialRunner

from pams_sample_classes import SAMPLE_CLASSES

STEPS_HEADER = (
    "session_id,market_id,market_name,market_time,market_price,"
    "fundamental_price,mid_price,best_buy_price,best_sell_price,"
    "executed_volume,n_buy_book,n_sell_book,n_buy_orders,n_sell_orders\n"
)
AGENTS_HEADER = "agent_id,name,class,cash_amount,asset_volumes\n"


def csv_field(text):
    text = str(text)
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def opt(value):
    return "" if value is None else str(value)


class StepsCsvLogger(Logger):
    def __init__(self, path):
        super().__init__()
        self.file = open(path, "w", encoding="utf-8", newline="")
        self.file.write(STEPS_HEADER)

    def process_market_step_end_log(self, log):
        m = log.market
        row = [
            str(log.session.session_id),
            str(m.market_id),
            csv_field(m.name),
            str(m.get_time()),
            str(m.get_market_price()),
            str(m.get_fundamental_price()),
            opt(m.get_mid_price()),
            opt(m.get_best_buy_price()),
            opt(m.get_best_sell_price()),
            str(m.get_executed_volume()),
            str(len(m.buy_order_book)),
            str(len(m.sell_order_book)),
            str(m.get_n_buy_order()),
            str(m.get_n_sell_order()),
        ]
        self.file.write(",".join(row) + "\n")

    def process_simulation_end_log(self, log):
        self.file.close()


class AgentsCsvLogger(Logger):
    def __init__(self, path):
        super().__init__()
        self.path = path

    def process_simulation_end_log(self, log):
        with open(self.path, "w", encoding="utf-8", newline="") as f:
            f.write(AGENTS_HEADER)
            for agent in log.simulator.agents:
                volumes = ";".join(
                    f"{k}={agent.asset_volumes[k]}" for k in sorted(agent.asset_volumes)
                )
                f.write(
                    ",".join(
                        [
                            str(agent.agent_id),
                            csv_field(agent.name),
                            csv_field(type(agent).__name__),
                            str(agent.cash_amount),
                            volumes,
                        ]
                    )
                    + "\n"
                )


class Tee(Logger):
    """Forwards logs to several loggers, like pams-cpp's Loggers."""

    def __init__(self, loggers):
        super().__init__()
        self.loggers = loggers

    def _set_simulator(self, simulator):
        super()._set_simulator(simulator)
        for logger in self.loggers:
            logger._set_simulator(simulator)

    def process(self, logs):
        for logger in self.loggers:
            logger.process(logs)


def check_env():
    """Fail loudly unless the reference numerics are in effect."""
    problems = []
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401

    with open("/proc/self/maps", encoding="utf-8") as maps:
        loaded = maps.read()
    if "openblas" in loaded.lower():
        problems.append(
            "OpenBLAS is loaded: its FMA kernels round differently from the "
            "reference BLAS/LAPACK (set LD_LIBRARY_PATH to Debian's "
            "/usr/lib/x86_64-linux-gnu/blas and .../lapack)"
        )
    if "/usr/lib/x86_64-linux-gnu/blas/libblas.so" not in loaded:
        problems.append("the reference BLAS (libblas3) is not the one loaded")
    if not os.environ.get("NPY_DISABLE_CPU_FEATURES", "").count("AVX512_SKX"):
        problems.append(
            "NPY_DISABLE_CPU_FEATURES must switch off numpy's AVX-512 exp "
            "(it differs from glibc's exp by an ulp)"
        )
    if "site-packages/numpy" in numpy.__file__:
        problems.append("numpy comes from pip (" + numpy.__file__ + "), not Debian")
    if problems:
        sys.exit("reference environment is wrong:\n- " + "\n- ".join(problems))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--steps-csv")
    parser.add_argument("--agents-csv")
    parser.add_argument("--check-env", action="store_true")
    args = parser.parse_args()
    if args.check_env:
        check_env()
    loggers = [MarketStepPrintLogger()]
    if args.steps_csv:
        loggers.append(StepsCsvLogger(args.steps_csv))
    if args.agents_csv:
        loggers.append(AgentsCsvLogger(args.agents_csv))
    runner = SequentialRunner(
        settings=args.config, prng=random.Random(args.seed), logger=Tee(loggers)
    )
    for cls in SAMPLE_CLASSES:
        runner.class_register(cls)
    runner.main()


if __name__ == "__main__":
    main()
