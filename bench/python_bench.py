#!/usr/bin/env python3
"""pams_cpp from Python against the CLI and against PAMS 0.3.0, all timed in
this one run, on the same configs and seeds. Run with .venv-py's python
(which holds pams_cpp and the reference PAMS):

    .venv-py/bin/python bench/python_bench.py --pams build/bin/pams \\
        --plugin build/lib/libpams_samples.so

Each figure is the simulation's INITIALIZATION TIME plus its EXECUTION
TIME (the lines PAMS's main() prints; the CLI and pams_cpp print the same), and each ratio is the median
of paired runs (one of each side in turn, so that a slow spell of this
shared machine hits both). The targets of the Python package:
  * built-in classes through Python: at most 1.3x the CLI's time;
  * a Python subclass that overrides nothing: the same;
  * Python agents mixed with built-ins: at least 5x faster than PAMS.
For the mixed config, a profile says where the time goes: in the user's
Python code, in pams_cpp's Python layer, or in the engine.
"""
import argparse
import contextlib
import copy
import cProfile
import io
import json
import os
import pstats
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))

import pams  # noqa: E402
import pams_cpp  # noqa: E402
import user_classes  # noqa: E402

CLASSES = {pams: user_classes.define(pams), pams_cpp: user_classes.define(pams_cpp)}


def exec_time(text):
    """The INITIALIZATION TIME plus the EXECUTION TIME that main() printed."""
    times = [re.search(rf"# {what} TIME ([0-9.e+-]+)", text)
             for what in ("INITIALIZATION", "EXECUTION")]
    if None in times:
        raise RuntimeError("no TIME lines in:\n" + text[-2000:])
    return sum(float(m.group(1)) for m in times)


def run_python(pkg, config, seed):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner = pkg.runners.SequentialRunner(settings=copy.deepcopy(config),
                                              prng=random.Random(seed))
        for cls in CLASSES[pkg].values():
            runner.class_register(cls)
        runner.main()
    return exec_time(out.getvalue())


def run_cli(args, path, seed):
    out = subprocess.run([args.pams, "run", path, "--seed", str(seed), "--plugin", args.plugin],
                         check=True, capture_output=True, text=True).stdout
    return exec_time(out)


def ci2002(agents=100, steps=500, max_normal_orders=None, fcn_class="FCNAgent", extra=None):
    with open(os.path.join(ROOT, "samples/CI2002/config.json")) as f:
        config = json.load(f)
    config["FCNAgents"]["numAgents"] = agents
    config["FCNAgents"]["class"] = fcn_class
    config["simulation"]["sessions"][1]["iterationSteps"] = steps
    if max_normal_orders is not None:
        for session in config["simulation"]["sessions"]:
            session["maxNormalOrders"] = max_normal_orders
    for name, (cls, count, keys) in (extra or {}).items():
        group = copy.deepcopy(config["FCNAgents"])
        group.update({"class": cls, "numAgents": count}, **keys)
        config[name] = group
        config["simulation"]["agents"].append(name)
    return config


def paired(sides, runs):
    """Runs each side in turn `runs` times: {name: [seconds, ...]}."""
    times = {name: [] for name in sides}
    for i in range(runs):
        for name, fn in sides.items():
            times[name].append(fn(i + 1))
    return times


def median_ratio(a, b):
    return statistics.median(x / y for x, y in zip(a, b))


def where_the_time_goes(config):
    """Shares of one pams_cpp run's execution time (setup excluded): the
    user's Python code, pams_cpp's Python layer, and the rest (the engine,
    in C++, and the bindings' calls into Python)."""
    profile = cProfile.Profile()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner = pams_cpp.runners.SequentialRunner(settings=copy.deepcopy(config),
                                                   prng=random.Random(1))
        for cls in CLASSES[pams_cpp].values():
            runner.class_register(cls)
        runner._setup()
        start = time.perf_counter()
        profile.enable()
        runner._run()
        profile.disable()
        total = time.perf_counter() - start
    stats = pstats.Stats(profile).stats
    user = layer = 0.0
    package = os.path.dirname(pams_cpp.__file__)
    # The runner's methods that call the engine: the profiler does not see
    # nanobind's functions, so their own time is the engine's.
    engine_calls = {"_run"}
    for (filename, _, function), (_, _, tottime, _, _) in stats.items():
        if filename == user_classes.__file__:
            user += tottime
        elif filename.startswith(package) and function not in engine_calls:
            layer += tottime
    # The profiler's own cost inflates the Python shares: these are upper
    # bounds for Python and a lower bound for the engine.
    return user / total, layer / total, max(0.0, 1 - (user + layer) / total)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pams", default=os.path.join(ROOT, "build/bin/pams"))
    parser.add_argument("--plugin", default=os.path.join(ROOT, "build/lib/libpams_samples.so"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="3 runs and smaller configs")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    big = (300, 2000) if args.quick else (1000, 10000)
    tmp = tempfile.mkdtemp(prefix="pams-python-bench-")

    def file_of(name, config):
        path = os.path.join(tmp, name + ".json")
        with open(path, "w") as f:
            json.dump(config, f)
        return path

    print("pams_cpp through Python against the CLI (built-in classes; median of "
          f"{runs} paired runs, setup and execution)")
    print(f"{'config':34} {'CLI ms':>9} {'Python ms':>10} {'ratio':>7}  target <= 1.3")
    cli_cases = {
        "CI2002": ci2002(),
        f"CI2002 {big[0]} agents x {big[1]} steps": ci2002(big[0], big[1], max_normal_orders=10),
        "CI2002, UserDefinedFCNAgent": ci2002(fcn_class="UserDefinedFCNAgent"),
        f"  the same, {big[0]} x {big[1]}": ci2002(big[0], big[1], 10, "UserDefinedFCNAgent"),
    }
    for name, config in cli_cases.items():
        path = file_of(re.sub(r"\W+", "_", name), config)
        times = paired({"cli": lambda s: run_cli(args, path, s),
                        "python": lambda s: run_python(pams_cpp, config, s)}, runs)
        print(f"{name:34} {statistics.median(times['cli']) * 1e3:9.2f} "
              f"{statistics.median(times['python']) * 1e3:10.2f} "
              f"{median_ratio(times['python'], times['cli']):7.2f}")

    print()
    print(f"Python agents with built-ins: PAMS 0.3.0 against pams_cpp (median of {runs} paired runs)")
    print(f"{'config':34} {'PAMS ms':>9} {'pams_cpp ms':>11} {'speedup':>8}  target >= 5")
    mixed = {
        "CI2002 + 30 CancelFCNAgents": ci2002(extra={
            "CancelFCNAgents": ("CancelFCNAgent", 30, {"cancelRate": 0.3})}),
        "CI2002 + 30 InvestDivFCNAgents": ci2002(extra={
            "InvestDivFCNAgents": ("InvestDivFCNAgent", 30,
                                   {"leverageRatio": 1.5, "diversityRatio": 0.4})}),
        "CI2002 x5 orders + 10 Keepers": ci2002(max_normal_orders=5, extra={
            "KeeperAgents": ("KeeperAgent", 10, {"maxAge": 4})}),
    }
    for name, config in mixed.items():
        times = paired({"pams": lambda s: run_python(pams, config, s),
                        "ours": lambda s: run_python(pams_cpp, config, s)}, runs)
        print(f"{name:34} {statistics.median(times['pams']) * 1e3:9.2f} "
              f"{statistics.median(times['ours']) * 1e3:11.2f} "
              f"{median_ratio(times['pams'], times['ours']):8.1f}")

    print()
    print("Where pams_cpp's execution time goes (profiled; Python shares are upper bounds):")
    for name, config in mixed.items():
        user, layer, engine = where_the_time_goes(config)
        print(f"  {name:32} user's Python {user:5.1%}, pams_cpp's Python {layer:5.1%}, "
              f"engine and bindings {engine:5.1%}")


if __name__ == "__main__":
    main()
