"""A simulation driven step by step from Python (PAMS's _run written out,
as pamsenvs drives PAMS) against the same runner's own loop: CI2002 (100
FCNAgents, 600 steps) with a MarketStepSaver, setup included, and where the
hand-driven loop's time goes (each call's cost, per step).

Both give the same market_step_logs (checked here too; tests/python/
test_hand_built.py checks them bit for bit on more configs). Times are the
process's CPU time (time.process_time: other processes on a busy machine
do not count), medians of paired repeats.

Usage: .venv-py/bin/python bench/hand_driven_bench.py [--repeats N] [--config PATH]
"""
import argparse
import os
import random
import statistics
import time
import timeit

from pams_cpp.logs import MarketStepSaver
from pams_cpp.logs.base import MarketStepBeginLog
from pams_cpp.logs.base import MarketStepEndLog
from pams_cpp.logs.base import SessionBeginLog
from pams_cpp.logs.base import SessionEndLog
from pams_cpp.logs.base import SimulationBeginLog
from pams_cpp.logs.base import SimulationEndLog
from pams_cpp.runners import SequentialRunner

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def drive_by_hand(runner, logger, fused=False) -> None:
    """PAMS's SequentialRunner._setup and _run, written out with the steps
    PAMS's runner and pamsenvs call (logger None: no logs; fused: one
    _update_markets call per step instead of _collect_orders_from_normal_agents
    and _handle_orders)."""
    runner._setup()
    sim = runner.simulator
    if logger is None:
        logger = _NoLogger()
    SimulationBeginLog(simulator=sim).read_and_write(logger=logger)
    logger._process()
    sim._update_times_on_markets(sim.markets)
    for session in sim.sessions:
        sim.current_session = session
        sim._trigger_event_before_session(session=session)
        SessionBeginLog(session=session, simulator=sim).read_and_write(logger=logger)
        logger._process()
        markets = sim.markets
        for market in markets:
            market._is_running = session.with_order_execution
        for _ in range(session.iteration_steps):
            for market in markets:
                sim._trigger_event_before_step_for_market(market=market)
                if logger.logs:
                    MarketStepBeginLog(session=session, market=market, simulator=sim
                                       ).read_and_write_with_direct_process(logger=logger)
            if session.with_order_placement:
                if fused:
                    runner._update_markets(session=session)
                else:
                    local_orders = runner._collect_orders_from_normal_agents(session=session)
                    runner._handle_orders(session=session, local_orders=local_orders)
            for market in markets:
                if logger.logs:
                    MarketStepEndLog(session=session, market=market, simulator=sim
                                     ).read_and_write_with_direct_process(logger=logger)
                sim._trigger_event_after_step_for_market(market=market)
            sim._update_times_on_markets(markets)
        sim._trigger_event_after_session(session=session)
        SessionEndLog(session=session, simulator=sim).read_and_write(logger=logger)
        logger._process()
    SimulationEndLog(simulator=sim).read_and_write(logger=logger)
    logger._process()


class _NoLogger:
    """What the loop writes to when there is no logger: nothing."""

    logs = False

    def _process(self) -> None:
        pass

    def write(self, log) -> None:
        pass


MarketStepSaver.logs = True  # the loop writes the market step logs to it


class _Skeleton:
    """A runner, simulator, market, session and logger whose methods do
    nothing, shaped as the loop calls them: what the loop's own Python
    statements cost (its for-loops, calls and log objects), with no work
    of pams_cpp's behind them."""

    logs = True

    def __init__(self, steps):
        self.simulator = self
        self.markets = [self]
        self.sessions = [_SkeletonSession(s) for s in steps]

    def _setup(self):
        pass

    def _process(self):
        pass

    def write(self, log):
        pass

    def write_and_direct_process(self, log):
        pass

    def _update_times_on_markets(self, markets):
        pass

    def _trigger_event_before_session(self, session):
        pass

    def _trigger_event_after_session(self, session):
        pass

    def _trigger_event_before_step_for_market(self, market):
        pass

    def _trigger_event_after_step_for_market(self, market):
        pass

    def _collect_orders_from_normal_agents(self, session):
        return [[]]

    def _handle_orders(self, session, local_orders):
        return local_orders


class _SkeletonSession:
    with_order_placement = True
    with_order_execution = True

    def __init__(self, steps):
        self.iteration_steps = steps


def skeleton_time(config: str) -> float:
    """CPU time of the loop over the config's sessions with _Skeleton."""
    import json

    with open(config) as f:
        steps = [s["iterationSteps"] for s in json.load(f)["simulation"]["sessions"]]
    stub = _Skeleton(steps)
    start = time.process_time()
    drive_by_hand(stub, stub)
    return time.process_time() - start


def run_once(config: str, seed: int, by_hand: bool, with_logger: bool = True,
             fused: bool = False):
    saver = MarketStepSaver() if with_logger else None
    runner = SequentialRunner(settings=config, prng=random.Random(seed), logger=saver)
    start = time.process_time()
    if by_hand:
        drive_by_hand(runner, saver, fused)
    else:
        runner._setup()
        runner._run()
    elapsed = time.process_time() - start
    markets = runner.simulator.markets
    return elapsed, (saver.market_step_logs if saver else
                     [m.get_market_prices() for m in markets])


def call_costs(config: str) -> dict:
    """Each call of the hand-driven loop, in microseconds (the minimum of
    repeated timings: what the call costs, without the machine's noise)."""
    saver = MarketStepSaver()
    runner = SequentialRunner(settings=config, prng=random.Random(1), logger=saver)
    runner._setup()
    sim = runner.simulator
    sim._update_times_on_markets(sim.markets)
    session = sim.sessions[-1]
    market = sim.markets[0]
    for m in sim.markets:
        m._is_running = True
    n = 300

    def cost(f):
        return min(timeit.repeat(f, number=n, repeat=5)) / n * 1e6

    def collect_and_handle():
        runner._handle_orders(session=session,
                              local_orders=runner._collect_orders_from_normal_agents(session))

    return {
        "_trigger_event_*_step_for_market": cost(
            lambda: sim._trigger_event_before_step_for_market(market=market)),
        "MarketStep*Log(...).read_and_write_with_direct_process": cost(
            lambda: MarketStepEndLog(session=session, market=market,
                                     simulator=sim).read_and_write_with_direct_process(
                logger=saver)),
        "_collect_orders_from_normal_agents + _handle_orders": cost(collect_and_handle),
        "_update_markets (the same in one call)": cost(lambda: runner._update_markets(session)),
        "_update_times_on_markets": cost(lambda: sim._update_times_on_markets(sim.markets)),
        "an empty Python loop iteration with two for-market loops": cost(
            lambda: [None for _ in sim.markets] and [None for _ in sim.markets]),
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=31)
    p.add_argument("--config", default=os.path.join(ROOT, "samples", "CI2002", "config.json"))
    args = p.parse_args()
    variants = [
        ("PAMS's loop with a MarketStepSaver", True, False),
        ("the same loop without a logger", False, False),
        ("without a logger, _update_markets per step", False, True),
    ]
    print(f"{os.path.relpath(args.config, ROOT)}, setup included, CPU time, medians of "
          f"{args.repeats} paired runs (same results):")
    for label, with_logger, fused in variants:
        runner_times, hand_times = [], []
        for i in range(3):  # warm-up: the first runs of a process pay for its caches
            run_once(args.config, i + 1, False, with_logger)
            run_once(args.config, i + 1, True, with_logger, fused)
        for i in range(args.repeats):
            t_runner, logs_runner = run_once(args.config, i + 1, False, with_logger)
            t_hand, logs_hand = run_once(args.config, i + 1, True, with_logger, fused)
            if logs_runner != logs_hand:
                raise SystemExit(f"seed {i + 1}: the hand-driven loop differs from the runner")
            runner_times.append(t_runner)
            hand_times.append(t_hand)
        r, h = statistics.median(runner_times), statistics.median(hand_times)
        ratio = statistics.median(b / a for a, b in zip(runner_times, hand_times))
        print(f"  {label}:")
        print(f"    runner (_setup + _run) {r * 1e3:6.2f} ms, by hand {h * 1e3:6.2f} ms: "
              f"{ratio:.2f}x")
        if with_logger and not fused:
            skeleton = statistics.median(skeleton_time(args.config) for _ in range(args.repeats))
            print(f"    of which the loop's own statements (every call a no-op, with the "
                  f"logs' objects): {skeleton * 1e3:.2f} ms, {skeleton / r:.2f}x the runner")
    print("where the hand-driven loop's time goes (per call, us):")
    for name, us in call_costs(args.config).items():
        print(f"  {us:6.2f}  {name}")


if __name__ == "__main__":
    main()
