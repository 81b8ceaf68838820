#!/usr/bin/env python3
"""PAMS's six example notebooks (examples/*.ipynb of PAMS's repository:
CI2002, fat_finger, market_share, price_limit, shock_transfer,
trading_halt) timed as a user feels them, under PAMS 0.3.0 and under
pams_cpp, in one run of this script:

    .venv-py/bin/python bench/notebooks_bench.py --examples DIR [--pairs N]

DIR holds the notebooks (fetch masanorihirano/pams and extract its
examples/ folder; they are PAMS's, so this repository has none). Each
notebook runs in a fresh interpreter, as in a fresh kernel (or, with
--one-interpreter, all six in one, as in one kernel), cell by cell
with its import lines pointed at the module (``from pams...`` becomes
``from pams_cpp...`` for pams_cpp) and its plotting lines dropped; what it
prints goes to a buffer. The clock runs from the first cell to the last
(the interpreter's own start-up is outside it: a kernel costs the same
under both). Each figure is a median over the pairs (one run of each
side in turn, so that a slow spell of this shared machine hits both), and
each notebook's MarketStepSaver logs are compared between the two sides.

Where pams_cpp's time goes is printed per kind of cell: the import cells
(the package, and numpy where the notebook imports it), the cells that
run a simulation (``runner.main()``), and the rest (reading the saver's
logs into dicts, numpy on them).
"""
import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import time

NOTEBOOKS = ("CI2002", "fat_finger", "market_share", "price_limit", "shock_transfer",
             "trading_halt")


def rewrite(source: str, module: str) -> str:
    """The cell for `module`: imports of pams point at it, plotting lines
    become `pass` (no display here)."""
    out = []
    for line in source.splitlines():
        indent = line[: len(line) - len(line.lstrip())]
        if "plt." in line or "matplotlib" in line:
            out.append(indent + "pass")
            continue
        if module != "pams":
            line = re.sub(r"^(\s*)from pams(\.|\s)", rf"\1from {module}\2", line)
            line = re.sub(r"^(\s*)import pams(\.|\s|$)", rf"\1import {module}\2", line)
        out.append(line)
    return "\n".join(out)


def kind_of(source: str) -> str:
    if "runner.main()" in source:
        return "simulation"
    code = [s for s in source.splitlines() if s.strip() and not s.strip().startswith("#")]
    if code and all(re.match(r"\s*(import|from)\s", s) or s.strip() == "pass" for s in code):
        return "import"
    return "other"


def child(module: str, paths: list) -> None:
    """Runs notebooks one after the other in this interpreter (a namespace
    each) and prints a JSON line: per notebook, the seconds per kind of
    cell and a digest of the saver's logs."""
    import warnings

    warnings.simplefilter("ignore")  # the same warnings on both sides
    print(json.dumps([run_notebook(module, path) for path in paths]))


def run_notebook(module: str, path: str) -> dict:
    import contextlib
    import io

    with open(path) as f:
        cells = [("".join(c["source"])) for c in json.load(f)["cells"]
                 if c["cell_type"] == "code"]
    namespace = {"__name__": "__main__"}
    seconds = {"import": 0.0, "simulation": 0.0, "other": 0.0}
    digest = hashlib.sha256()
    printed = io.StringIO()
    for cell in cells:
        source = rewrite(cell, module)
        code = compile(source, path, "exec")
        start = time.perf_counter()
        with contextlib.redirect_stdout(printed):
            exec(code, namespace)
        seconds[kind_of(cell)] += time.perf_counter() - start
        if "runner.main()" in cell:
            logs = namespace["saver"].market_step_logs
            digest.update(repr([sorted(log.items()) for log in logs]).encode())
    return {"seconds": seconds, "logs": digest.hexdigest()}


def run_child(module: str, paths: list) -> list:
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", module, *paths],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--examples", default=os.environ.get("PAMS_EXAMPLES"),
                   help="the folder of PAMS's example notebooks")
    p.add_argument("--pairs", type=int, default=5)
    p.add_argument("--one-interpreter", action="store_true",
                   help="run the six notebooks one after the other in one interpreter (one "
                        "kernel for all: the imports are paid once) instead of one each")
    p.add_argument("--child", nargs="+", metavar="MODULE NOTEBOOK", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child[0], args.child[1:])
        return
    if not args.examples:
        sys.exit("notebooks_bench.py: give --examples DIR, the examples/ folder of PAMS's "
                 "repository (github.com/masanorihirano/pams; the notebooks are not in this one)")
    paths = {n: os.path.join(args.examples, n + ".ipynb") for n in NOTEBOOKS}
    missing = [p for p in paths.values() if not os.path.isfile(p)]
    if missing:
        sys.exit(f"notebooks_bench.py: no such notebook: {', '.join(missing)}")

    times = {(n, m): [] for n in NOTEBOOKS for m in ("pams", "pams_cpp")}
    kinds = {(n, m): [] for n in NOTEBOOKS for m in ("pams", "pams_cpp")}
    groups = [list(NOTEBOOKS)] if args.one_interpreter else [[n] for n in NOTEBOOKS]
    for pair in range(args.pairs):
        for group in groups:
            order = ("pams", "pams_cpp") if pair % 2 == 0 else ("pams_cpp", "pams")
            results = {m: run_child(m, [paths[n] for n in group]) for m in order}
            for i, name in enumerate(group):
                if results["pams"][i]["logs"] != results["pams_cpp"][i]["logs"]:
                    sys.exit(f"{name}: pams_cpp's logs differ from PAMS's")
                for m, r in results.items():
                    times[(name, m)].append(sum(r[i]["seconds"].values()))
                    kinds[(name, m)].append(r[i]["seconds"])

    where = "one interpreter for all six" if args.one_interpreter else "a fresh interpreter each"
    print(f"PAMS's notebooks, {where}, first cell to last, medians of "
          f"{args.pairs} pairs (logs identical):")
    print(f"{'notebook':16} {'PAMS 0.3.0':>11} {'pams_cpp':>9} {'ratio':>6}   "
          f"pams_cpp: import / simulation / other cells")
    totals = {"pams": 0.0, "pams_cpp": 0.0}
    sums = {"import": 0.0, "simulation": 0.0, "other": 0.0}
    simulations = {"pams": 0.0, "pams_cpp": 0.0}
    for name in NOTEBOOKS:
        a = statistics.median(times[(name, "pams")])
        b = statistics.median(times[(name, "pams_cpp")])
        totals["pams"] += a
        totals["pams_cpp"] += b
        ratio = statistics.median(x / y for x, y in zip(times[(name, "pams")],
                                                        times[(name, "pams_cpp")]))
        split = {k: statistics.median(s[k] for s in kinds[(name, "pams_cpp")]) for k in sums}
        for k in sums:
            sums[k] += split[k]
        for m in simulations:
            simulations[m] += statistics.median(s["simulation"] for s in kinds[(name, m)])
        print(f"{name:16} {a * 1e3:9.1f}ms {b * 1e3:7.1f}ms {ratio:5.1f}x   "
              f"{split['import'] * 1e3:.1f} / {split['simulation'] * 1e3:.1f} / "
              f"{split['other'] * 1e3:.1f} ms")
    print(f"{'all six':16} {totals['pams'] * 1e3:9.1f}ms {totals['pams_cpp'] * 1e3:7.1f}ms "
          f"{totals['pams'] / totals['pams_cpp']:5.1f}x   "
          f"{sums['import'] * 1e3:.1f} / {sums['simulation'] * 1e3:.1f} / "
          f"{sums['other'] * 1e3:.1f} ms")
    print(f"the simulation cells alone: PAMS {simulations['pams'] * 1e3:.1f} ms, pams_cpp "
          f"{simulations['pams_cpp'] * 1e3:.1f} ms: "
          f"{simulations['pams'] / simulations['pams_cpp']:.1f}x")


if __name__ == "__main__":
    main()
