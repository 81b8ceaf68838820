#!/usr/bin/env python3
"""The complete example of docs/plugins.md, as the page gives it: its C++
plugin is compiled against these headers and library and its config run,
and what the page says of it holds:

* the steps CSV is identical under SequentialRunner and under
  MultiProcessAgentParallelRunner (3 workers, spawn);
* executed_volume is 0 for steps 200 to 219 (the pause) and trades resume
  at step 220;
* `pams run --check-parallel` passes, and reports the agent when the
  example's save_state/load_state are taken out.

Usage: install_docs_example.py --pams BIN --cxx COMPILER --include DIR --lib-dir DIR
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import scratch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "plugins.md")


def block_after(text, label, language):
    """The fenced block that follows the line `label`: (past the HTML comments
    between them: tests/docs_examples_test.py's markers)."""
    m = re.search(re.escape(f"`{label}`:") + r"\s*(?:<!--.*?-->\s*)*```" + language +
                  r"\n(.*?)```", text, re.S)
    if not m:
        sys.exit(f"docs/plugins.md: no {language} block after `{label}`:")
    return m.group(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--cxx", required=True)
    p.add_argument("--include", required=True)
    p.add_argument("--lib-dir", required=True)
    args = p.parse_args()
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    source = block_after(doc, "mean_reversion.cc", "cpp")
    config = block_after(doc, "config.json", "json")
    tmp = scratch.folder("pams-docs-")
    with open(os.path.join(tmp, "config.json"), "w") as f:
        f.write(config)

    def build(name, code):
        src = os.path.join(tmp, name + ".cc")
        with open(src, "w") as f:
            f.write(code)
        lib = os.path.join(tmp, f"lib{name}.so")
        # The page's build line, with this build's paths.
        subprocess.run([args.cxx, "-std=c++20", "-O2", "-ffp-contract=off", "-fPIC",
                        "-shared", f"-I{args.include}", src, f"-L{args.lib_dir}",
                        "-lpams", f"-Wl,-rpath,{args.lib_dir}", "-o", lib], check=True)
        return lib

    def run(lib, *extra, check=True):
        proc = subprocess.run([args.pams, "run", "config.json", "--plugin", lib,
                               "--seed", "1", "--quiet", *extra], cwd=tmp,
                              capture_output=True, text=True, timeout=300)
        if check and proc.returncode != 0:
            sys.exit(f"pams run {' '.join(extra)} failed: {proc.stderr[-800:]}")
        return proc

    failures = []
    lib = build("mean_reversion", source)
    run(lib, "--steps-csv", "steps.csv")
    run(lib, "--runner", "MultiProcessAgentParallelRunner",
        "--set", "simulation.numParallel=3", "--set", 'simulation.startMethod="spawn"',
        "--steps-csv", "steps-mp.csv")
    with open(os.path.join(tmp, "steps.csv")) as f:
        steps = f.read()
    with open(os.path.join(tmp, "steps-mp.csv")) as f:
        if f.read() != steps:
            failures.append("steps.csv and steps-mp.csv differ")
    volume = {int(r["market_time"]): int(r["executed_volume"])
              for r in csv.DictReader(steps.splitlines())}
    if any(volume[t] != 0 for t in range(200, 220)):
        failures.append("executed_volume is not 0 for steps 200-219")
    if volume[220] == 0 or sum(volume[t] for t in range(100, 200)) == 0:
        failures.append("no trades before the pause or at step 220")
    proc = run(lib, "--check-parallel", check=False)
    if proc.returncode != 0 or "gives SequentialRunner's results" not in proc.stdout:
        failures.append(f"--check-parallel on the example: {proc.stdout[-400:]}")

    # Without save_state/load_state the process runner's workers lose the
    # agent's open order: --check-parallel must say so.
    forgetful = re.sub(r"\n  // open_order_ changes after setup\(\).*?\n  }\n", "\n",
                       source, flags=re.S)
    if "save_state" in forgetful:
        sys.exit("could not take save_state/load_state out of the example")
    proc = run(build("forgetful", forgetful), "--check-parallel", check=False)
    if proc.returncode != 1 or not re.search(
            r"differs from SequentialRunner at step \d+.*Likely cause: agent "
            r"MeanReversionAgents-\d+ \(MeanReversionAgent\)", proc.stdout, re.S):
        failures.append(f"--check-parallel without save_state: exit {proc.returncode}, "
                        f"{proc.stdout[-600:]}")
    for f in failures:
        print("FAIL", f)
    print(f"docs/plugins.md example: {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    scratch.run(main)
