#!/usr/bin/env python3
"""The parallel runners against SequentialRunner, through `pams run`.

* identical: for every sample and for configs with maxNormalOrders 2 to 8,
  each parallel runner, numParallel 1, 2 and 4, and each start method give
  step and agent CSVs byte-identical to SequentialRunner with the same seed;
  so does a config of agents with state beyond their prng (StatefulAgent).
* faults: a worker that crashes, is killed, exits, hangs (past
  workerTimeout) or throws stops the run with exit status 1 and an error
  naming the agent, the step and the cause, within about a second (timeouts
  aside), leaving no process behind and valid CSV lines.
* interrupt: Ctrl-C (SIGINT to the process group) stops a run and its
  workers with exit status 130 and complete CSV lines.
* large_state: agents holding 1 MB and 20 MB of state (BigStateAgent, whose
  orders depend on it), whose tasks travel in messages larger than a
  socket's buffer both ways at once, give SequentialRunner's CSVs under
  every start method with numParallel 2 and maxNormalOrders 4 (the process
  runner once deadlocked there: both sides blocked sending).
* contract: the agent contract (simulator_view.h) under every runner and
  start method: ProbeAgents, whose orders depend on everything an agent may
  read (markets, sessions, the current session and time, every agent's
  public state, their own state), give step, agent and events CSVs and
  warnings (each once, in the same order) identical to SequentialRunner's;
  an agent that changes its cash in submit_orders runs under
  SequentialRunner and is refused, with its name, by the parallel runners;
  `pams run --check-parallel` finds agents that forget fields in
  save_state() (the step and the agent) and passes agents that do not.

Usage: parallel_test.py --pams BIN --plugin SAMPLES_LIB --test-agents LIB
                        [--only identical|faults|interrupt|contract|large_state]
                        [--threads-only]
"""
import argparse
import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid

from pams_samples import SAMPLES
import scratch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREADS = "MultiThreadAgentParallelRunner"
PROCESSES = "MultiProcessAgentParallelRunner"


class Checker:
    def __init__(self, args):
        self.args = args
        self.tmp = scratch.folder("pams-parallel-")
        self.failures = []
        self.count = 0

    def run(self, config, seed, runner=None, sets=(), env=None, tag="", extra=(), timeout=300):
        steps = os.path.join(self.tmp, f"steps{tag}.csv")
        agents = os.path.join(self.tmp, f"agents{tag}.csv")
        cmd = [self.args.pams, "run", os.path.join(ROOT, config), "--seed", str(seed),
               "--plugin", self.args.plugin, "--plugin", self.args.test_agents,
               "--steps-csv", steps, "--agents-csv", agents, *extra]
        if runner:
            cmd += ["--runner", runner]
        for s in sets:
            cmd += ["--set", s]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
        return proc, steps, agents

    def read(self, path):
        with open(path, encoding="utf-8") as f:
            return f.read()

    def fail(self, what):
        self.failures.append(what)
        print("FAIL", what, flush=True)


def identical(c):
    cases = [(s, 1, []) for s in SAMPLES]
    # maxNormalOrders 2..8: parallel rounds of several agents.
    for mno, config in ((2, "samples/CI2002/config.json"),
                        (3, "samples/shock_transfer/config.json"),
                        (4, "samples/market_share/config.json"),
                        (8, "samples/CI2002/config.json"),
                        (5, "samples/test/config.json")):
        cases.append((config, mno, [f"simulation.sessions[0].maxNormalOrders={mno}",
                                    f"simulation.sessions[1].maxNormalOrders={mno}"]))
    cases.append(("tests/parallel/stateful.json", 6, []))
    for config, mno, sets in cases:
        seed = 7
        ref, ref_steps, ref_agents = c.run(config, seed, sets=sets, tag="-ref")
        if ref.returncode != 0:
            c.fail(f"{config}: SequentialRunner failed: {ref.stderr[-500:]}")
            continue
        expected = (c.read(ref_steps), c.read(ref_agents))
        if expected[0].count("\n") < 100 or expected[1].count("\n") < 2:
            c.fail(f"{config}: SequentialRunner wrote almost nothing")
            continue
        variants = [(THREADS, n, None) for n in (1, 2, 4)]
        if not c.args.threads_only:
            variants += [(PROCESSES, n, "fork") for n in (1, 2, 4)]
            variants += [(PROCESSES, 2, "spawn"), (PROCESSES, 2, "forkserver")]
            if mno > 1 or config.endswith("stateful.json"):
                variants += [(PROCESSES, 4, "spawn"), (PROCESSES, 4, "forkserver")]
        for runner, n, method in variants:
            extra = [f"simulation.numParallel={n}"]
            if method:
                extra.append(f'simulation.startMethod="{method}"')
            proc, steps, agents = c.run(config, seed, runner, sets + extra)
            c.count += 1
            name = f"{config} mno={mno} {runner} numParallel={n} {method or ''}"
            if proc.returncode != 0:
                c.fail(f"{name}: exit {proc.returncode}: {proc.stderr[-500:]}")
            elif (c.read(steps), c.read(agents)) != expected:
                c.fail(f"{name}: CSVs differ from SequentialRunner's")
    print(f"identical: {c.count} parallel runs compared", flush=True)


def processes_with_tag(tag):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if tag.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def complete_csv(path):
    """Every line has all 14 columns (a run cut short keeps whole lines)."""
    if not os.path.exists(path):
        return True
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        return False
    return all(len(row) == 14 for row in csv.reader(text.splitlines()))


def faults(c):
    cases = [
        ("crash", PROCESSES, "fork", "killed by signal 11"),
        ("crash", PROCESSES, "spawn", "killed by signal 11"),
        ("crash", PROCESSES, "forkserver", "killed by signal 11"),
        ("kill", PROCESSES, "fork", "killed by signal 9"),
        ("exit", PROCESSES, "spawn", "exited with status 3"),
        ("hang", PROCESSES, "fork", "did not answer within 1 s"),
        ("hang", PROCESSES, "forkserver", "did not answer within 1 s"),
        ("throw", PROCESSES, "fork", "deliberate failure"),
        ("throw", PROCESSES, "spawn", "deliberate failure"),
        ("throw", THREADS, None, "deliberate failure"),
    ]
    for fault, runner, method, cause in cases:
        tag = "PAMS_TEST_TAG=" + uuid.uuid4().hex
        env = dict(os.environ, PAMS_TEST_TAG=tag.split("=", 1)[1])
        sets = [f'Faulty.fault="{fault}"', "simulation.numParallel=2",
                "simulation.workerTimeout=1"]
        if method:
            sets.append(f'simulation.startMethod="{method}"')
        start = time.monotonic()
        proc, steps, _ = c.run("tests/parallel/faulty.json", 3, runner, sets, env=env,
                               tag="-fault")
        elapsed = time.monotonic() - start
        c.count += 1
        name = f"fault {fault} {runner} {method or ''}"
        errors = [l for l in proc.stderr.splitlines() if l.startswith("error: ")]
        if proc.returncode != 1:
            c.fail(f"{name}: exit {proc.returncode}, expected 1")
        step = re.search(r"at step (\d+)", errors[0]) if len(errors) == 1 else None
        if len(errors) != 1 or "Faulty (FaultyAgent)" not in errors[0] or \
                not step or int(step.group(1)) < 150 or cause not in errors[0]:
            c.fail(f"{name}: error {errors!r}, expected the agent, a step >= 150 "
                   f"(faultStep) and '{cause}'")
        limit = 6.0 if fault == "hang" else 4.0
        if elapsed > limit:
            c.fail(f"{name}: took {elapsed:.1f} s")
        time.sleep(0.2)
        left = processes_with_tag(tag.split("=", 1)[1])
        if left:
            c.fail(f"{name}: processes left behind: {left}")
        if not complete_csv(steps):
            c.fail(f"{name}: the steps CSV has an incomplete line")
    print(f"faults: {len(cases)} cases", flush=True)


def interrupt(c):
    for runner, method in ((PROCESSES, "fork"), (PROCESSES, "spawn"), (THREADS, None),
                           ("SequentialRunner", None)):
        tag = uuid.uuid4().hex
        env = dict(os.environ, PAMS_TEST_TAG=tag)
        steps = os.path.join(c.tmp, "interrupt.csv")
        cmd = [c.args.pams, "run", os.path.join(ROOT, "tests/parallel/busy.json"),
               "--seed", "1", "--plugin", c.args.test_agents, "--steps-csv", steps,
               "--runner", runner, "--set", "simulation.numParallel=2",
               "--set", "simulation.sessions[1].iterationSteps=100000"]
        if method:
            cmd += ["--set", f'simulation.startMethod="{method}"']
        # A new process group, as a shell gives a job; Ctrl-C signals it all.
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, env=env, start_new_session=True)
        time.sleep(1.5)
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            c.fail(f"interrupt {runner} {method or ''}: still running 10 s after SIGINT")
            continue
        stopped = time.monotonic() - sent
        c.count += 1
        name = f"interrupt {runner} {method or ''}"
        if proc.returncode != 130:
            c.fail(f"{name}: exit {proc.returncode}, expected 130: {err[-300:]}")
        if "interrupted" not in err:
            c.fail(f"{name}: no 'interrupted' message: {err[-300:]}")
        if stopped > 2.0:
            c.fail(f"{name}: took {stopped:.1f} s to stop")
        time.sleep(0.2)
        if processes_with_tag(tag):
            c.fail(f"{name}: processes left behind")
        if not complete_csv(steps):
            c.fail(f"{name}: the steps CSV has an incomplete line")
    print("interrupt: 4 cases", flush=True)


def large_state(c):
    config = "tests/parallel/big_state.json"
    n = 0
    for size, steps in ((1_000_000, 80), (20_000_000, 30)):
        sets = [f"BigStateAgents.stateBytes={size}",
                f"simulation.sessions[1].iterationSteps={steps}"]
        ref, ref_steps, ref_agents = c.run(config, 5, sets=sets, tag="-big-ref")
        if ref.returncode != 0:
            c.fail(f"large_state {size}: SequentialRunner failed: {ref.stderr[-500:]}")
            continue
        expected = (c.read(ref_steps), c.read(ref_agents))
        for runner, method in ((PROCESSES, "fork"), (PROCESSES, "spawn"),
                               (PROCESSES, "forkserver"), (THREADS, None)):
            extra = sets + ["simulation.numParallel=2"]
            if method:
                extra.append(f'simulation.startMethod="{method}"')
            name = f"large_state {size} bytes {runner} {method or ''}"
            start = time.monotonic()
            try:
                proc, steps_csv, agents_csv = c.run(config, 5, runner, extra, timeout=60)
            except subprocess.TimeoutExpired:
                c.fail(f"{name}: still running after 60 s (deadlock?)")
                continue
            n += 1
            c.count += 1
            if proc.returncode != 0:
                c.fail(f"{name}: exit {proc.returncode}: {proc.stderr[-500:]}")
            elif (c.read(steps_csv), c.read(agents_csv)) != expected:
                c.fail(f"{name}: CSVs differ from SequentialRunner's")
            print(f"{name}: {time.monotonic() - start:.2f} s", flush=True)
    print(f"large_state: {n} runs compared", flush=True)


def contract(c):
    config = "tests/parallel/contract.json"

    def run(runner, sets, tag):
        events = os.path.join(c.tmp, f"events{tag}.csv")
        proc, steps, agents = c.run(config, 5, runner, list(sets) + [], tag=tag,
                                    extra=["--events-csv", events])
        warnings = [l for l in proc.stderr.splitlines() if l.startswith("warning: ")]
        return proc, (c.read(steps), c.read(agents), c.read(events)), warnings

    ref, expected, ref_warnings = run(None, [], "-contract-ref")
    if ref.returncode != 0:
        c.fail(f"contract: SequentialRunner failed: {ref.stderr[-500:]}")
        return
    probes = [w for w in ref_warnings if "probe " in w]
    if len(probes) != 8:
        c.fail(f"contract: expected 8 probe warnings, got {probes!r}")
    variants = [(THREADS, n, None) for n in (1, 2, 4)]
    if not c.args.threads_only:
        variants += [(PROCESSES, n, m) for m in ("fork", "spawn", "forkserver")
                     for n in (2, 4)]
        variants.append((PROCESSES, 2, "fork-timeout"))
        # Workers pinned to CPUs: the same results.
        variants += [(PROCESSES, 2, "fork-pinned"), (PROCESSES, 2, "spawn-pinned")]
    for runner, n, method in variants:
        sets = [f"simulation.numParallel={n}"]
        if method == "fork-timeout":  # every task in a worker, even lone ones
            sets += ['simulation.startMethod="fork"', "simulation.workerTimeout=60"]
        elif method and method.endswith("-pinned"):
            # fork: each its share; spawn: each the CPU given (which the
            # other worker's replica may not use).
            cpus = sorted(os.sched_getaffinity(0))[:2][::-1]
            sets += [f'simulation.startMethod="{method[:-7]}"',
                     "simulation.workerCpuAffinity=" +
                     ("true" if method == "fork-pinned" else json.dumps(cpus))]
        elif method:
            sets.append(f'simulation.startMethod="{method}"')
        proc, got, warnings = run(runner, sets, "-contract")
        c.count += 1
        name = f"contract {runner} numParallel={n} {method or ''}"
        if proc.returncode != 0:
            c.fail(f"{name}: exit {proc.returncode}: {proc.stderr[-500:]}")
            continue
        for what, a, b in zip(("steps", "agents", "events"), got, expected):
            if a != b:
                c.fail(f"{name}: the {what} CSV differs from SequentialRunner's")
        # The runner's own note about parallelism aside, the same warnings.
        own = [w for w in warnings if "in parallel" not in w]
        if own != ref_warnings:
            c.fail(f"{name}: warnings {own!r}, SequentialRunner's {ref_warnings!r}")

    # Nothing to run in parallel (CI2002: maxNormalOrders 1): one warning says
    # so, and the run is SequentialRunner's.
    for runner in ([THREADS] if c.args.threads_only else [THREADS, PROCESSES]):
        proc, steps, _ = c.run("samples/CI2002/config.json", 3, runner,
                               ["simulation.numParallel=2"], tag="-single")
        notes = [l for l in proc.stderr.splitlines() if "runs nothing in parallel" in l]
        c.count += 1
        if proc.returncode != 0 or len(notes) != 1:
            c.fail(f"CI2002 {runner}: exit {proc.returncode}, notes {notes!r}")

    # A bad workerCpuAffinity is refused before the run, naming the key.
    if not c.args.threads_only:
        for value, message in (('"yes"', "simulation.workerCpuAffinity: expected true"),
                               ("[0, 4096]", "simulation.workerCpuAffinity[1]: CPU 4096 is "
                                             "not one this process may run on")):
            proc, _, _ = c.run(config, 5, PROCESSES, [f"simulation.workerCpuAffinity={value}"],
                               tag="-affinity")
            c.count += 1
            if proc.returncode != 2 or message not in proc.stderr:
                c.fail(f"workerCpuAffinity={value}: exit {proc.returncode}, {proc.stderr[-300:]}")

    fee = "tests/parallel/fee.json"
    proc, _, _ = c.run(fee, 1, None, [], tag="-fee")
    if proc.returncode != 0:
        c.fail(f"fee: SequentialRunner refused it: {proc.stderr[-300:]}")
    fee_variants = [(THREADS, None)]
    if not c.args.threads_only:
        fee_variants += [(PROCESSES, "fork"), (PROCESSES, "spawn")]
    for runner, method in fee_variants:
        sets = ["simulation.numParallel=2"]
        if method:
            sets.append(f'simulation.startMethod="{method}"')
        proc, _, _ = c.run(fee, 1, runner, sets, tag="-fee")
        c.count += 1
        errors = [l for l in proc.stderr.splitlines() if l.startswith("error: ")]
        if proc.returncode != 1 or len(errors) != 1 or \
                not re.search(r"agent Payers-\d \(FeeAgent\) failed in submit_orders "
                              r"at step \d+: it changed its cash", errors[0]):
            c.fail(f"fee {runner} {method or ''}: exit {proc.returncode}, {errors!r}")
    checks = () if c.args.threads_only else (
        ("tests/parallel/stateful.json", None, 0),
        ("tests/parallel/contract.json", None, 0),
        ("tests/parallel/stateful.json", "ForgetfulAgent", 1))
    for config, agent_class, status in checks:
        sets = [f'StatefulAgents.class="{agent_class}"'] if agent_class else []
        proc, _, _ = c.run(config, 2, None, sets, tag="-check", extra=["--check-parallel"])
        c.count += 1
        name = f"--check-parallel {config} {agent_class or ''}"
        if proc.returncode != status:
            c.fail(f"{name}: exit {proc.returncode}, expected {status}: "
                   f"{proc.stdout[-500:]} {proc.stderr[-300:]}")
        elif status == 1 and not re.search(
                r"differs from SequentialRunner at step \d+\n.*\n.*\n  Likely cause: "
                r"agent StatefulAgents-\d+ \(ForgetfulAgent\)", proc.stdout):
            c.fail(f"{name}: no step and agent named: {proc.stdout[-600:]}")
        elif status == 0 and "gives SequentialRunner's results" not in proc.stdout:
            c.fail(f"{name}: {proc.stdout[-300:]}")
    print(f"contract: {len(variants)} runs compared, {len(fee_variants)} refused, "
          f"--check-parallel {len(checks)} cases", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--test-agents", required=True)
    p.add_argument("--only", choices=["identical", "faults", "interrupt", "contract",
                                      "large_state"])
    p.add_argument("--threads-only", action="store_true",
                   help="identical: only MultiThreadAgentParallelRunner (the "
                        "ThreadSanitizer job)")
    args = p.parse_args()
    c = Checker(args)
    for name, fn in (("identical", identical), ("faults", faults),
                     ("interrupt", interrupt), ("contract", contract),
                     ("large_state", large_state)):
        if args.only in (None, name):
            fn(c)
    print(f"{c.count} runs, {len(c.failures)} failures")
    sys.exit(1 if c.failures else 0)


if __name__ == "__main__":
    scratch.run(main)
