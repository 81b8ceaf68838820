#!/usr/bin/env python3
"""A plugin built against another pams-cpp fails to load with a clear message
(exit status 2, "rebuild"), instead of running code compiled for another
layout: one built against headers of another plugin interface version, one
that needs a symbol this libpams.so lacks. The same plugin built against
these headers loads and runs.

Usage: plugin_abi_test.py --pams BIN --cxx COMPILER --include DIR --lib-dir DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import scratch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--cxx", required=True)
    p.add_argument("--include", required=True)
    p.add_argument("--lib-dir", required=True)
    args = p.parse_args()
    tmp = scratch.folder("pams-abi-")
    other = os.path.join(tmp, "other-include")
    shutil.copytree(args.include, other)
    header = os.path.join(other, "pams", "runners", "class_registry.h")
    with open(header) as f:
        text = f.read()
    text, n = re.subn(r"kPluginAbiVersion = \d+;", "kPluginAbiVersion = 999;", text)
    if n != 1:
        sys.exit("kPluginAbiVersion not found in class_registry.h")
    with open(header, "w") as f:
        f.write(text)

    def build(name, include, *flags):
        out = os.path.join(tmp, f"lib{name}.so")
        subprocess.run([args.cxx, "-std=c++20", "-O1", "-fPIC", "-shared",
                        "-ffp-contract=off", f"-I{include}", *flags,
                        os.path.join(HERE, "plugins", "abi_plugin.cc"),
                        f"-L{args.lib_dir}", "-lpams", f"-Wl,-rpath,{args.lib_dir}",
                        "-o", out], check=True)
        return out

    config = os.path.join(tmp, "config.json")
    with open(os.path.join(ROOT, "samples", "CI2002", "config.json")) as f:
        c = json.load(f)
    c["FCNAgents"]["class"] = "AbiAgent"
    with open(config, "w") as f:
        json.dump(c, f)

    failures = []
    cases = [
        ("same", build("same", args.include), 0, r"^$"),
        ("other interface", build("other", other), 2,
         r"^error: .*libother\.so: while registering its classes: class AbiAgent was "
         r"compiled against the pams-cpp plugin interface 999, but this pams-cpp "
         r"\(\S+\) has interface \d+: rebuild the plugin"),
        ("missing symbol", build("missing", args.include, "-DPAMS_NEEDS_MISSING_SYMBOL"),
         2, r"^error: .*libmissing\.so: cannot load plugin: .*undefined symbol.* "
            r"\(it was built against another version of pams-cpp"),
    ]
    for name, plugin, status, pattern in cases:
        proc = subprocess.run([args.pams, "run", config, "--seed", "1", "--quiet",
                               "--plugin", plugin], capture_output=True, text=True)
        errors = "\n".join(l for l in proc.stderr.splitlines() if l.startswith("error"))
        if proc.returncode != status or not re.search(pattern, errors, re.M):
            failures.append(f"{name}: exit {proc.returncode} (expected {status}), "
                            f"errors {errors!r} (expected /{pattern}/)")
    for f in failures:
        print("FAIL", f)
    print(f"{len(cases)} cases, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    scratch.run(main)
