"""PAMS's objects built by hand, driven at random: hand_built_fuzz_runs.py
calls their public and underscore methods in random sequences, from fixed
seeds, with right and wrong arguments (None, strings, negative and huge
ints, NaN, objects of other classes, orders placed or canceled before,
calls before set-up), in an interpreter of its own. Whatever a call raises,
the interpreter must live on (no segfault, no abort, no hang) and no
message may be C++'s or nanobind's (`vector::_M_range_check`,
"incompatible function arguments", ...).

More seeds, to look for crashes by hand (each sequence prints its seed
before it runs, so a crash names the seed to replay with --log):

    python tests/python/hand_built_fuzz_runs.py fuzz /tmp/out.json 0 9999 60
"""
import json
import os
import subprocess
import sys

RUNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hand_built_fuzz_runs.py")

# About 50,000 calls: a few seconds here, well under a minute on one slow CPU.
SEEDS = (0, 999)
STEPS = 60


def test_random_calls_on_objects_built_by_hand_never_crash(tmp_path):
    out = tmp_path / "fuzz.json"
    done = subprocess.run([sys.executable, RUNS, "fuzz", str(out), str(SEEDS[0]),
                           str(SEEDS[1]), str(STEPS)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=600)
    seeds = [line for line in done.stderr.splitlines() if line.startswith("seed ")]
    assert done.returncode == 0, (
        f"the fuzzer's interpreter died (status {done.returncode}) in {seeds[-1:]}; replay "
        f"with --log PATH:\n{done.stderr[-4000:]}")
    report = json.loads(out.read_text())
    assert report["sequences"] == SEEDS[1] - SEEDS[0] + 1
    # The sequences call a lot, and most calls raise something somewhere.
    assert report["calls"] > 100 * report["sequences"] / 3
    assert sum(report["raised"].values()) > report["calls"] / 10
    assert report["raw"] == [], "messages with C++ or nanobind text:\n" + "\n".join(
        f"seed {r['seed']} call {r['step']} {r['call']}: {r['error']}: {r['message'][:300]}"
        for r in report["raw"][:20])
