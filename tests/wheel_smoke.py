#!/usr/bin/env python3
"""What an installed pams_cpp wheel must do on a machine with no compiler
and no -dev packages: run PAMS's CI2002 with SequentialRunner and a
StepsCsvLogger, and draw its chart (cairo, which the wheel carries).

Run by the interpreter of the venv the wheel was installed into, never from
the source tree: tests/wheel_test.py (make test) and cibuildwheel's
test-command (pyproject.toml). Checks what it can alone: pams_cpp comes from
the venv, its extension loads the libraries the wheel carries
(pams_cpp.libs/) and no system copy of them, the CSV has a row per step,
the chart is a PNG, the metadata has the license. Exits 1 naming what is
wrong.

Usage: wheel_smoke.py --config CI2002.json --out-dir DIR [--seed N]
"""
import argparse
import importlib.metadata
import os
import random
import sys


def loaded_libraries():
    """The shared libraries this process has mapped (Linux)."""
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and ".so" in fields[5]:
                paths.add(fields[5])
    return paths


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    problems = []

    import pams_cpp
    from pams_cpp import analysis
    from pams_cpp.logs import StepsCsvLogger
    from pams_cpp.runners import SequentialRunner

    package = os.path.dirname(os.path.abspath(pams_cpp.__file__))
    if not package.startswith(os.path.realpath(sys.prefix)) and not package.startswith(sys.prefix):
        problems.append(f"pams_cpp imported from {package}, not from the venv {sys.prefix}")

    steps_csv = os.path.join(args.out_dir, "steps.csv")
    runner = SequentialRunner(settings=args.config, prng=random.Random(args.seed),
                              logger=StepsCsvLogger(steps_csv))
    runner.main()
    with open(steps_csv) as f:
        rows = f.read().splitlines()
    sessions = runner.settings["simulation"]["sessions"]
    steps = sum(s["iterationSteps"] for s in sessions)
    if len(rows) != 1 + steps:  # CI2002 has one market: a row per step
        problems.append(f"{steps_csv} has {len(rows)} lines, expected 1 + {steps}")

    chart = os.path.join(args.out_dir, "chart.png")
    analysis.plot(steps_csv, chart, width=600, height=400, title="CI2002")
    with open(chart, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            problems.append(f"{chart} is not a PNG")
    facts = analysis.stylized_facts(steps_csv)
    if len(facts) != 1:
        problems.append(f"stylized facts of {len(facts)} markets, expected 1")

    # The wheel's copies of cairo, fmt and the rest, not the system's.
    libraries = loaded_libraries()
    carried = [p for p in libraries if "/pams_cpp.libs/" in p]
    for name in ("libcairo", "libfmt"):
        if not any(os.path.basename(p).startswith(name + "-") for p in carried):
            problems.append(f"no {name} from pams_cpp.libs/ loaded")
        system = [p for p in libraries
                  if os.path.basename(p).startswith(name + ".") and "/pams_cpp.libs/" not in p]
        if system:
            problems.append(f"the system's {system} loaded")

    metadata = importlib.metadata.metadata("pams-cpp")
    if metadata.get("License") != "EPL-1.0":
        problems.append(f"License metadata {metadata.get('License')!r}, expected 'EPL-1.0'")
    files = [str(f) for f in importlib.metadata.files("pams-cpp") or []]
    if not any(f.endswith(".dist-info/licenses/LICENSE") or f.endswith(".dist-info/LICENSE")
               for f in files):
        problems.append("no LICENSE in the wheel's dist-info")

    for problem in problems:
        print("FAIL: " + problem)
    if problems:
        return 1
    print(f"wheel ok: pams_cpp {pams_cpp.__version__} from {package}, {len(rows) - 1} steps, "
          f"chart {os.path.getsize(chart)} bytes, {len(carried)} carried libraries loaded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
