#!/usr/bin/env python3
"""Soak test: a long run (CI2002, 10^6 steps in its second session) completes
and its memory stays sound. Resting orders expire, so the order books stay
small for the whole run (at most a few hundred orders); the histories are
the only thing that grows, linearly in the steps: the memory added per step
in the second half of the run is no more than in the first half (plus
slack for the allocator's granularity), and stays under 200 bytes a step
($PAMS_SOAK_MAX_BYTES_PER_STEP: the sanitizer job allows more).

Prints the memory figures (RSS samples from /proc every 20 ms).

Usage: soak_test.py --pams BIN [--steps N]
"""
import argparse
import csv
import os
import subprocess
import sys
import time
import scratch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CI2002 = os.path.join(ROOT, "samples", "CI2002", "config.json")


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--steps", type=int, default=1_000_000)
    args = p.parse_args()
    tmp = scratch.folder("pams-soak-")
    steps_csv = os.path.join(tmp, "steps.csv")
    proc = subprocess.Popen(
        [args.pams, "run", CI2002, "--seed", "11", "--quiet", "--steps-csv", steps_csv,
         "--set", f"simulation.sessions[1].iterationSteps={args.steps}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples = []  # (seconds, MiB)
    start = time.monotonic()
    while proc.poll() is None:
        m = rss_mib(proc.pid)
        if m is not None:
            samples.append((time.monotonic() - start, m))
        time.sleep(0.02)
    out, err = proc.communicate()
    failures = []
    if proc.returncode != 0:
        failures.append(f"the run failed ({proc.returncode}): {err[-500:]}")
    # Order books: the most resting orders at any step.
    max_book = 0
    rows = 0
    with open(steps_csv, newline="") as f:
        for r in csv.DictReader(f):
            rows += 1
            max_book = max(max_book, int(r["n_buy_book"]) + int(r["n_sell_book"]))
    os.remove(steps_csv)
    total_steps = args.steps + 100
    if rows != total_steps:
        failures.append(f"{rows} step rows, expected {total_steps}")
    if max_book > 1000:
        failures.append(f"the order books reached {max_book} resting orders")
    # Memory: RSS at 10%, 50% and 90% of the run's duration.
    if len(samples) < 10:
        failures.append(f"too few memory samples ({len(samples)}): the run was too short")
    else:
        duration = samples[-1][0]

        def at(fraction):
            return min(samples, key=lambda s: abs(s[0] - fraction * duration))

        (t1, m1), (t5, m5), (t9, m9) = at(0.1), at(0.5), at(0.9)
        peak = max(m for _, m in samples)
        steps_per_s = total_steps / duration
        first = (m5 - m1) * 2**20 / ((t5 - t1) * steps_per_s)
        second = (m9 - m5) * 2**20 / ((t9 - t5) * steps_per_s)
        print(f"{total_steps} steps in {duration:.2f} s; RSS {m1:.1f} MiB at 10%, "
              f"{m5:.1f} MiB at 50%, {m9:.1f} MiB at 90%, peak {peak:.1f} MiB; "
              f"growth {first:.1f} B/step (10-50%), {second:.1f} B/step (50-90%); "
              f"order books at most {max_book} resting orders")
        limit = float(os.environ.get("PAMS_SOAK_MAX_BYTES_PER_STEP", "200"))
        if second > limit or first > limit:
            failures.append(f"memory grows by more than {limit:.0f} bytes a step")
        if second > first * 1.5 + 16:
            failures.append("memory grows faster in the second half: not linear")
    for f in failures:
        print("FAIL", f)
    print("ok: soak" if not failures else "FAILED: soak")
    return 1 if failures else 0


if __name__ == "__main__":
    scratch.run(main)
