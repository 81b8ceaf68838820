#!/usr/bin/env python3
"""The pams command line: exit statuses and messages for bad flags, files and
plugins (status 2, a message naming what is wrong, nothing written to a
crash), the seed printed when none is given, and that the output is the same
when the printed seed is passed back.

Also: pams validate listing every problem, --events-csv, --quiet, the
progress bar on a terminal, and an interrupted run's files.

Every way a run ends (real processes): `| head -n 3` (exit 141, files of
whole rows), SIGHUP (129), a second SIGINT on a run stuck in an agent (130
within a second), a full disk (/dev/full: exit 1 naming the file), and a
forked worker that SIGTERM ends. Outputs that would destroy an input or each
other are refused; PAMS's --config and -s are accepted; CLI11's own errors
start with "error:" and say what to do; huge values, endless sources and
the samples' plugin classes get short, clear messages.

Usage: cli_test.py --pams BIN --plugin LIB --test-agents LIB
"""
import argparse
import csv
import json
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import time
import scratch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CI2002 = os.path.join(ROOT, "samples", "CI2002", "config.json")


def run(args, *cmd):
    return subprocess.run([args.pams, *cmd], capture_output=True, text=True, timeout=120)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--test-agents", required=True)
    args = p.parse_args()
    tmp = scratch.folder("pams-cli-")
    failures = []

    def expect(name, proc, status, pattern):
        if proc.returncode != status or not re.search(pattern, proc.stderr + proc.stdout):
            failures.append(f"{name}: status {proc.returncode} (expected {status}), "
                            f"output {proc.stderr.strip()[-300:]!r} (expected /{pattern}/)")

    expect("no subcommand", run(args), 2,
           r"^error: a command is required: pams COMMAND \.\.\., COMMAND one of run, "
           r"validate, plot, stats, sweep \(see pams --help\)$")
    expect("unknown subcommand", run(args, "fly"), 2, "fly")
    expect("help", run(args, "--help"), 0, "run")
    expect("run help", run(args, "run", "--help"), 0, "--steps-csv")
    expect("missing config", run(args, "run"), 2,
           r"^error: pams run: CONFIG is missing: pams run CONFIG \[options\] "
           r"\(see pams run --help\)$")
    expect("no such config", run(args, "run", "/nonexistent.json"), 2,
           r"error: /nonexistent.json: cannot open config file")
    expect("bad seed", run(args, "run", CI2002, "--seed", "12x"), 2,
           "the seed must be an integer")
    expect("unknown flag", run(args, "run", CI2002, "--sed", "1"), 2,
           r"^error: pams run: unknown option --sed \(did you mean --seed\?\); see pams "
           r"run --help for the options$")
    expect("missing plugin", run(args, "run", CI2002, "--plugin", "/nonexistent.so"), 2,
           r"error: /nonexistent.so: cannot load plugin")
    expect("not a plugin", run(args, "run", CI2002, "--plugin", CI2002), 2,
           r"cannot load plugin")
    expect("unwritable csv",
           run(args, "run", CI2002, "--seed", "1", "--steps-csv", "/nonexistent/dir/s.csv"),
           2, r"error: /nonexistent/dir/s.csv: cannot open for writing")
    for sample, kind, name in (("user_class", "agent", "UserDefinedFCNAgent"),
                               ("market_share", "market", "ExtendedMarket")):
        expect(f"plugin class needs plugin ({name})",
               run(args, "run", os.path.join(ROOT, "samples", sample, "config.json"),
                   "--seed", "1"), 2,
               rf'unknown {kind} class "{name}": a class of PAMS\'s samples, which pams-cpp '
               r"builds as a plugin: add --plugin build/lib/libpams_samples.so")

    # Without --seed: a seed is printed, and passing it back repeats the run.
    first = run(args, "run", CI2002)
    m = re.search(r"# SEED (\d+)", first.stderr)
    if first.returncode != 0 or not m:
        failures.append(f"no seed printed: {first.stderr[-300:]!r}")
    else:
        again = run(args, "run", CI2002, "--seed", m.group(1))
        strip = lambda s: [l for l in s.splitlines() if not l.startswith("# ")]
        if strip(first.stdout) != strip(again.stdout):
            failures.append("the printed seed does not repeat the run")
    # Big and negative seeds are Python ints too.
    for seed in ("123456789012345678901234567890", "-5"):
        proc = run(args, "run", CI2002, "--seed", seed)
        if proc.returncode != 0:
            failures.append(f"seed {seed}: status {proc.returncode}")
    # CSV files are complete even though stdout is the print logger.
    steps = os.path.join(tmp, "s.csv")
    proc = run(args, "run", CI2002, "--seed", "3", "--steps-csv", steps)
    with open(steps) as f:
        rows = f.read().splitlines()
    if proc.returncode != 0 or len(rows) != 601:
        failures.append(f"steps csv has {len(rows)} lines, expected 601")

    check_validate(args, tmp, failures)
    check_events_csv(args, tmp, failures)
    check_quiet_and_progress(args, tmp, failures)
    check_pams_spelling_and_cli_errors(args, failures)
    check_output_paths(args, tmp, failures)
    check_huge_and_endless_inputs(args, tmp, failures)
    check_reader_gone(args, tmp, failures)
    check_hangup_and_second_interrupt(args, tmp, failures)
    check_write_failures(args, tmp, failures)
    check_forked_worker_signals(args, failures)
    check_missing_tensorflow_hint(args, failures)

    for f in failures:
        print("FAIL", f)
    print(f"{'ok' if not failures else 'FAILED'}: cli checks")
    sys.exit(1 if failures else 0)


BAD_MULTI = {
    "simulation": {
        "markets": ["Market", "Missing"], "agents": ["FCNAgents", "Other"],
        "sessions": [
            {"sessionName": 0, "iterationSteps": -5, "withOrderPlacement": True,
             "withOrderExecution": True, "withPrint": True},
            {"sessionName": 1, "iterationSteps": 10, "withOrderPlacement": True,
             "withOrderExecution": True, "withPrint": True, "maxNormalOrders": 1,
             "events": ["Nope"]}]},
    "Market": {"class": "Market", "tickSize": -1, "marketPrice": 300.0},
    "FCNAgents": {"class": "FCNAgent", "numAgents": 10, "markets": ["Market"],
                  "assetVolume": 50, "cashAmount": 10000,
                  "fundamentalWeight": {"expon": [1.0]}, "chartWeight": {"expon": [0.0]},
                  "noiseWeight": {"expon": [1.0]}, "noiseScale": 0.001,
                  "timeWindowSize": [100, 200], "orderMargin": [0.0, 0.1]},
    "Other": {"class": "NoSuchAgent", "markets": ["Market"]},
}


def check_validate(args, tmp, failures):
    """pams validate: a valid config passes; a config with five problems
    lists all five, each with its key path."""
    proc = run(args, "validate", CI2002)
    if proc.returncode != 0 or "valid (1 market, 100 agents" not in proc.stdout:
        failures.append(f"validate CI2002: {proc.returncode} {proc.stdout!r} {proc.stderr!r}")
    bad = os.path.join(tmp, "bad_multi.json")
    with open(bad, "w") as f:
        json.dump(BAD_MULTI, f)
    proc = run(args, "validate", bad)
    expected = [
        "error: Missing: is listed in simulation.markets but there is no entry",
        'error: Other.class: unknown agent class "NoSuchAgent"',
        "error: simulation.sessions[0].iterationSteps: must be >= 0, got -5",
        'error: simulation.sessions[1].events[0]: no entry is named "Nope"',
        "error: Market.tickSize: tick size must be a positive number, got -1",
        "5 problems found",
    ]
    missing = [e for e in expected if e not in proc.stderr]
    if proc.returncode != 2 or missing:
        failures.append(f"validate bad_multi: status {proc.returncode}, missing {missing}, "
                        f"stderr {proc.stderr!r}")
    # The same config under pams run stops at the first problem, status 2.
    proc = run(args, "run", bad, "--seed", "1")
    if proc.returncode != 2 or proc.stderr.count("error:") != 1:
        failures.append(f"run bad_multi: {proc.returncode} {proc.stderr!r}")
    proc = run(args, "validate", "/nonexistent.json")
    if proc.returncode != 2 or "cannot open config file" not in proc.stderr:
        failures.append(f"validate missing file: {proc.returncode} {proc.stderr!r}")


def check_events_csv(args, tmp, failures):
    """--events-csv agrees with --steps-csv: one order row per order counted
    by the markets, executions adding up to the executed volume."""
    steps, events = os.path.join(tmp, "es.csv"), os.path.join(tmp, "ee.csv")
    proc = run(args, "run", os.path.join(ROOT, "samples", "fat_finger", "config.json"),
               "--seed", "2", "--steps-csv", steps, "--events-csv", events)
    if proc.returncode != 0:
        failures.append(f"events csv run: {proc.stderr!r}")
        return
    with open(steps) as f:
        srows = list(csv.DictReader(f))
    with open(events) as f:
        erows = list(csv.DictReader(f))
    kinds = {k: [r for r in erows if r["kind"] == k]
             for k in ("order", "cancel", "execution", "expiration")}
    n_orders = sum(int(r["n_buy_orders"]) + int(r["n_sell_orders"]) for r in srows)
    volume = sum(int(r["executed_volume"]) for r in srows)
    if len(kinds["order"]) != n_orders:
        failures.append(f"events csv: {len(kinds['order'])} order rows, markets count {n_orders}")
    if sum(int(r["volume"]) for r in kinds["execution"]) != volume:
        failures.append("events csv: executed volumes do not add up")
    if not kinds["expiration"] or len(erows) != sum(len(v) for v in kinds.values()):
        failures.append("events csv: no expirations, or an unknown kind")
    ids = [int(r["order_id"]) for r in kinds["order"]]
    if ids != sorted(ids) or len(set(ids)) != len(ids):
        failures.append("events csv: order ids not unique and increasing")


def check_quiet_and_progress(args, tmp, failures):
    """--quiet prints no step lines; on a terminal, a long run shows a
    progress bar on stderr; an interrupted run leaves complete CSV rows."""
    proc = run(args, "run", CI2002, "--seed", "1", "--quiet")
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != 2 or not all(l.startswith("# ") for l in lines):
        failures.append(f"--quiet printed {proc.stdout[:200]!r}")
    long_run = ["--set", "simulation.sessions[1].iterationSteps=100000000"]
    events = os.path.join(tmp, "interrupted.csv")
    master, slave = pty.openpty()
    child = subprocess.Popen([args.pams, "run", CI2002, "--seed", "1", *long_run,
                              "--events-csv", events],
                             stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    time.sleep(2.5)
    child.send_signal(signal.SIGINT)
    output = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    status = child.wait(timeout=30)
    os.close(master)
    text = output.decode(errors="replace")
    if not re.search(r"\] +\d+% session 1  \d+/100000100 steps +[\d.]+[kM]? steps/s  ETA", text):
        failures.append(f"no progress bar on a terminal: {text[-300:]!r}")
    if status != 130 or "interrupted" not in text:
        failures.append(f"interrupted run: status {status}, {text[-200:]!r}")
    with open(events, "rb") as f:
        data = f.read()
    rows = data.split(b"\n")
    if not data.endswith(b"\n") or len(rows) < 1000 or any(
            r.count(b",") != 12 for r in rows[:-1]):
        failures.append("the interrupted run's events csv is not complete rows")
    # --plot: a PNG of the default size, from a temporary steps file.
    chart = os.path.join(tmp, "chart.png")
    proc = run(args, "run", CI2002, "--seed", "1", "--quiet", "--plot", chart)
    with open(chart, "rb") as f:
        head = f.read(24)
    if proc.returncode != 0 or head[:8] != b"\x89PNG\r\n\x1a\n" or \
            struct.unpack(">II", head[16:24]) != (1200, 800):
        failures.append(f"--plot: status {proc.returncode}, header {head!r}")
    proc = run(args, "run", CI2002, "--seed", "1", "--plot", os.path.join(tmp, "c.gif"))
    if proc.returncode != 2 or "must end in .png or .svg" not in proc.stderr or \
            "# EXECUTION TIME" in proc.stdout:
        failures.append(f"--plot with a bad name did not fail before the run: {proc.stderr!r}")
    # Not a terminal: no bar.
    proc = subprocess.run([args.pams, "run", CI2002, "--seed", "1",
                           "--set", "simulation.sessions[1].iterationSteps=1500000"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if "steps/s" in proc.stderr:
        failures.append("a progress bar was drawn on a pipe")


LONG_RUN = ["--set", "simulation.sessions[1].iterationSteps=100000000"]


def whole_rows(path, fields):
    """Whether the file is a header and whole CSV rows of `fields` fields,
    ending with a line break. Returns (ok, number of data rows)."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.endswith(b"\n"):
        return False, 0
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return all(len(r) == fields for r in rows), len(rows) - 1


def check_pams_spelling_and_cli_errors(args, failures):
    """PAMS's sample scripts take --config FILE and -s SEED: the same run as
    CONFIG --seed. CLI11's own errors start with "error:", name the command
    and say what to read or do."""
    plain = run(args, "run", CI2002, "--seed", "7")
    aliases = run(args, "run", "--config", CI2002, "-s", "7")
    strip = lambda s: [l for l in s.splitlines() if not l.startswith("# ")]
    if aliases.returncode != 0 or strip(aliases.stdout) != strip(plain.stdout) or \
            not strip(plain.stdout):
        failures.append(f"--config/-s: status {aliases.returncode}, {aliases.stderr[-200:]!r}")
    cases = [
        (["run", CI2002, "--seed"], r"^error: pams run: --seed needs a value \(INT\), e\.g\. "
                                    r"--seed 1 \(see pams run --help\)$"),
        (["run", "--config"], r"^error: pams run: --config needs a value"),
        (["run", CI2002, "--steps-csv"], r"^error: pams run: --steps-csv needs a value \(FILE\)"),
        (["run", CI2002, "extra"], r"^error: pams run: unexpected argument extra: pams run "
                                   r"CONFIG \[options\]"),
        (["run", CI2002, "--seed", "x" * 100000], r"^error: pams run: --seed: the seed must be "
                                                  r"an integer, got \"x+\[\.\.\. "),
        (["sweep", CI2002], r"^error: pams sweep: --seeds SEEDS is required \(see pams sweep "
                            r"--help\)$"),
        (["sweep", CI2002, "--seeds", "1-2", "--jobs", "many", "--out", "/tmp/x"],
         r"^error: pams sweep: .*--jobs.*\(see pams sweep --help\)$"),
        (["--bogus"], r"^error: unknown option --bogus: pams COMMAND \[options\]"),
        (["stats", "--sesion", "1", "x.csv"], r"unknown option --sesion \(did you mean "
                                              r"--session\?\)"),
    ]
    for cmd, pattern in cases:
        proc = run(args, *cmd)
        lines = proc.stderr.splitlines()
        if proc.returncode != 2 or len(lines) != 1 or not re.search(pattern, lines[0]) or \
                len(lines[0]) > 500:
            failures.append(f"pams {' '.join(c[:20] for c in cmd)}: status {proc.returncode}, "
                            f"stderr {proc.stderr[:300]!r} (expected /{pattern}/)")


def check_output_paths(args, tmp, failures):
    """An output that is an input, or another output, is refused with exit
    status 2 before anything is written, however the file is named (./,
    a symlink, a hard link, stdout redirected to it)."""
    d = os.path.join(tmp, "paths")
    os.makedirs(d)
    config = os.path.join(d, "config.json")
    with open(CI2002) as f, open(config, "w") as g:
        g.write(f.read())
    with open(config, "rb") as f:
        original = f.read()
    steps = os.path.join(d, "out.csv")
    os.symlink(config, os.path.join(d, "link.json"))
    os.link(config, os.path.join(d, "hard.json"))
    os.symlink(os.path.join(d, "later.csv"), os.path.join(d, "dangling.csv"))
    cases = [
        (["--steps-csv", config], r"--steps-csv \S+config.json: is the same file as CONFIG"),
        (["--agents-csv", os.path.join(d, ".", "config.json")], "is the same file as CONFIG"),
        (["--events-csv", os.path.join(d, "link.json")], "is the same file as CONFIG"),
        (["--plot", os.path.join(d, "hard.json")], "is the same file as CONFIG"),
        (["--steps-csv", steps, "--agents-csv", os.path.join(d, "..", "paths", "out.csv")],
         r"--agents-csv \S+: is the same file as --steps-csv \S+out.csv; give each output "
         r"a file of its own"),
        (["--steps-csv", os.path.join(d, "later.csv"), "--events-csv",
          os.path.join(d, "dangling.csv")], "is the same file as --steps-csv"),
        (["--steps-csv", args.plugin, "--plugin", args.plugin], "is the same file as --plugin"),
    ]
    for extra, pattern in cases:
        proc = run(args, "run", config, "--seed", "1", "--quiet", *extra)
        if proc.returncode != 2 or not re.search("error: .*" + pattern, proc.stderr) or \
                "# EXECUTION TIME" in proc.stdout:
            failures.append(f"outputs {extra}: status {proc.returncode}, {proc.stderr[-300:]!r}")
    with open(config, "rb") as f:
        if f.read() != original:
            failures.append("a refused output changed the config")
    if os.path.exists(steps) or os.path.exists(os.path.join(d, "later.csv")):
        failures.append("a refused run created its outputs")
    # stdout redirected to the steps CSV: the step lines would be mixed in.
    redirected = os.path.join(d, "both.csv")
    with open(redirected, "w") as out:
        proc = subprocess.run([args.pams, "run", config, "--seed", "1", "--steps-csv",
                               redirected], stdout=out, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 2 or "is the same file as stdout, where the step lines go " \
                               "(--quiet prints none)" not in proc.stderr:
        failures.append(f"stdout as --steps-csv: {proc.returncode} {proc.stderr[-300:]!r}")
    # A CSV on stdout ("-", with --quiet) is the whole of stdout: the timing
    # lines go to stderr.
    proc = run(args, "run", config, "--seed", "1", "--quiet", "--steps-csv", "-")
    records = list(csv.reader(proc.stdout.splitlines()))
    if proc.returncode != 0 or len(records) != 601 or \
            any(len(r) != 14 for r in records) or "# EXECUTION TIME" not in proc.stderr:
        failures.append(f"--steps-csv - --quiet: status {proc.returncode}, {len(records)} "
                        f"records, last {proc.stdout[-120:]!r}")
    # Devices may take several outputs.
    proc = run(args, "run", config, "--seed", "1", "--quiet", "--steps-csv", "/dev/null",
               "--agents-csv", "/dev/null")
    if proc.returncode != 0:
        failures.append(f"/dev/null twice: {proc.returncode} {proc.stderr[-300:]!r}")


def check_huge_and_endless_inputs(args, tmp, failures):
    """Messages stay short (< 500 bytes) whatever the input, and sources that
    never end are refused at 64 MiB."""
    with open(CI2002) as f:
        config = json.load(f)
    big = dict(config)
    big["FCNAgents"] = dict(config["FCNAgents"], **{"class": "x" * 50_000_000})
    path = os.path.join(tmp, "big.json")
    with open(path, "w") as f:
        json.dump(big, f)
    for command in ("run", "validate"):
        proc = run(args, command, path)
        errors = [l for l in proc.stderr.splitlines() if l.startswith("error: ")]
        first = errors[0] if errors else ""
        if proc.returncode != 2 or len(errors) != 1 or len(proc.stderr) > 1000 or \
                not first.startswith('error: FCNAgents.class: unknown agent class "xxxx') or \
                "bytes cut ...]" not in first or len(first) > 500:
            failures.append(f"50 MB class name ({command}): status {proc.returncode}, "
                            f"{len(proc.stderr)} bytes: {proc.stderr[:200]!r}")
    proc = run(args, "run", CI2002, "--set", "FCNAgents.numAgents=\"" + "y" * 100000 + "\"")
    if proc.returncode != 2 or len(proc.stderr.splitlines()[-1]) > 500 or \
            'FCNAgents.numAgents: expected an integer' not in proc.stderr:
        failures.append(f"100 KB --set value: {proc.returncode} {proc.stderr[-300:]!r}")
    limit = "the config is larger than 64 MiB, the most pams reads (is this a config file?)"
    fifo = os.path.join(tmp, "endless.fifo")
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"yes '{{\"a\": 1}}' > {fifo}"],
                              stderr=subprocess.DEVNULL)
    sources = [("/dev/zero", None), ("/dev/urandom", None), (fifo, None),
               ("-", "/dev/zero")]
    for source, stdin in sources:
        for command in ("run", "validate"):
            start = time.monotonic()
            with open(stdin or os.devnull, "rb") as f:
                try:
                    proc = subprocess.run([args.pams, command, source], stdin=f,
                                          capture_output=True, text=True, errors="replace",
                                          timeout=30)
                except subprocess.TimeoutExpired:
                    failures.append(f"{command} {source}: still running after 30 s")
                    continue
            name = "stdin" if source == "-" else source
            if proc.returncode != 2 or f"error: {name}: {limit}" not in proc.stderr:
                failures.append(f"{command} {source}: status {proc.returncode}, "
                                f"{proc.stderr[-300:]!r}")
            if time.monotonic() - start > 10:
                failures.append(f"{command} {source}: took {time.monotonic() - start:.1f} s")
            if source == fifo and command == "run":
                # A FIFO's writer is gone once read: start another one.
                writer.wait(timeout=10)
                writer = subprocess.Popen(["sh", "-c", f"yes '{{\"a\": 1}}' > {fifo}"],
                                          stderr=subprocess.DEVNULL)
    writer.wait(timeout=10)
    # stdin is a config source.
    with open(CI2002, "rb") as f:
        proc = subprocess.run([args.pams, "validate", "-"], stdin=f, capture_output=True,
                              text=True)
    if proc.returncode != 0 or "stdin: valid" not in proc.stdout:
        failures.append(f"validate - < config: {proc.returncode} {proc.stdout!r} {proc.stderr!r}")


def check_reader_gone(args, tmp, failures):
    """`pams run ... | head -n 3`: the reader goes away, the run stops (exit
    141, nothing on stderr but the config's warnings) and its files hold
    whole rows."""
    steps, events = os.path.join(tmp, "head-steps.csv"), os.path.join(tmp, "head-events.csv")
    proc = subprocess.run(
        ["bash", "-c", f'"$0" run {CI2002} --seed 1 {" ".join(LONG_RUN)} --steps-csv {steps} '
                       f'--events-csv {events} | head -n 3; exit "${{PIPESTATUS[0]}}"',
         args.pams], capture_output=True, text=True, timeout=60)
    if proc.returncode != 141 or len(proc.stdout.splitlines()) != 3 or "error" in proc.stderr:
        failures.append(f"| head -n 3: status {proc.returncode}, stdout "
                        f"{proc.stdout[:100]!r}, stderr {proc.stderr[-300:]!r}")
    for path, fields in ((steps, 14), (events, 13)):
        ok, n = whole_rows(path, fields)
        if not ok or n < 100:
            failures.append(f"| head -n 3: {os.path.basename(path)} is not whole rows ({n})")


def check_hangup_and_second_interrupt(args, tmp, failures):
    """SIGHUP (the terminal closed) stops a run as SIGTERM does: exit 129,
    whole rows. A run stuck in an agent (FaultyAgent "hang") ignores the
    first SIGINT (it stops at the end of a step that never ends) and exits
    at once on the second, its steps CSV holding every step before the
    stuck one."""
    steps = os.path.join(tmp, "hup.csv")
    child = subprocess.Popen([args.pams, "run", CI2002, "--seed", "1", *LONG_RUN, "--quiet",
                              "--steps-csv", steps], stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    child.send_signal(signal.SIGHUP)
    _, stderr = child.communicate(timeout=30)
    ok, n = whole_rows(steps, 14)
    if child.returncode != 129 or not ok or n < 1000 or "interrupted" not in stderr:
        failures.append(f"SIGHUP: status {child.returncode}, whole rows {ok} ({n}), "
                        f"{stderr[-200:]!r}")

    with open(os.path.join(ROOT, "tests", "parallel", "faulty.json")) as f:
        config = json.load(f)
    config["Faulty"]["fault"] = "hang"
    config["Faulty"]["faultStep"] = 300
    path = os.path.join(tmp, "hang.json")
    with open(path, "w") as f:
        json.dump(config, f)
    steps = os.path.join(tmp, "hang.csv")
    child = subprocess.Popen([args.pams, "run", path, "--seed", "1", "--plugin",
                              args.test_agents, "--quiet", "--steps-csv", steps],
                             stderr=subprocess.PIPE, text=True)
    # Stuck once the process sleeps (the agent's sleep(1) loop) for a while.
    deadline = time.monotonic() + 60
    asleep = 0
    while time.monotonic() < deadline and asleep < 6:
        asleep = asleep + 1 if process_state(child.pid) == "S" else 0
        time.sleep(0.05)
    time.sleep(0.2)
    child.send_signal(signal.SIGINT)
    time.sleep(0.5)
    still_running = child.poll() is None
    start = time.monotonic()
    child.send_signal(signal.SIGINT)
    try:
        _, stderr = child.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        child.kill()
        _, stderr = child.communicate()
    elapsed = time.monotonic() - start
    ok, n = whole_rows(steps, 14)
    if not still_running or child.returncode != 130 or elapsed > 1.0 or not ok or n != 300 \
            or "again exits at once" not in stderr:
        failures.append(f"second SIGINT on a stuck run: running after the first "
                        f"{still_running}, status {child.returncode} after {elapsed:.2f} s, "
                        f"whole rows {ok} ({n}, expected 300), {stderr[-300:]!r}")


def check_write_failures(args, tmp, failures):
    """A full disk (/dev/full) fails the run with exit status 1 and a message
    naming the file (or stdout), and never goes unreported."""
    for flag in ("--steps-csv", "--agents-csv", "--events-csv"):
        proc = run(args, "run", CI2002, "--seed", "1", "--quiet", flag, "/dev/full")
        if proc.returncode != 1 or \
                "error: /dev/full: writing failed: No space left on device" not in proc.stderr:
            failures.append(f"{flag} /dev/full: status {proc.returncode}, "
                            f"{proc.stderr[-300:]!r}")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([args.pams, "run", CI2002, "--seed", "1"], stdout=full,
                              stderr=subprocess.PIPE, text=True)
    if proc.returncode != 1 or \
            "error: stdout: writing failed: No space left on device" not in proc.stderr:
        failures.append(f"stdout /dev/full: status {proc.returncode}, {proc.stderr[-300:]!r}")


def check_forked_worker_signals(args, failures):
    """Workers forked from pams (startMethod fork) do not keep its SIGTERM
    handler: SIGTERM sent to a worker alone ends it, and the run reports the
    dead worker (exit 1)."""
    busy = os.path.join(ROOT, "tests", "parallel", "busy.json")
    child = subprocess.Popen(
        [args.pams, "run", busy, "--seed", "1", "--plugin", args.test_agents, "--quiet",
         "--runner", "MultiProcessAgentParallelRunner", "--set",
         'simulation.startMethod="fork"', "--set", "simulation.numParallel=2", "--set",
         "BusyAgents.busyMicroseconds=2000"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    workers = []
    while time.monotonic() < deadline and len(workers) < 2:
        workers = children(child.pid)
        time.sleep(0.05)
    if len(workers) < 2:
        child.kill()
        child.communicate()
        failures.append(f"fork workers: found {workers}")
        return
    time.sleep(0.3)
    os.kill(workers[0], signal.SIGTERM)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and os.path.exists(f"/proc/{workers[0]}") and \
            not zombie(workers[0]):
        time.sleep(0.02)
    alive = os.path.exists(f"/proc/{workers[0]}") and not zombie(workers[0])
    try:
        _, stderr = child.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        child.kill()
        _, stderr = child.communicate()
    if alive or child.returncode != 1:
        failures.append(f"SIGTERM to a forked worker: still alive {alive}, run status "
                        f"{child.returncode}, {stderr[-300:]!r}")


def check_missing_tensorflow_hint(args, failures):
    """Without TensorFlow, the message names the pinned version and `make
    tensorflow`, and what was tried, in a few lines."""
    env = dict(os.environ, PAMS_TENSORFLOW_LIBRARY="/nonexistent/libtensorflow_cc.so.2")
    proc = subprocess.run([args.pams, "run", os.path.join(ROOT, "samples", "tensorflow",
                                                          "config.json"), "--seed", "1"],
                          capture_output=True, text=True, env=env, timeout=60)
    message = proc.stderr[proc.stderr.find("error: "):]
    if proc.returncode != 2 or "`make tensorflow` installs the pinned tensorflow-cpu " \
            "2.21.0 into .venv-tf" not in message or "Tried:" not in message or \
            "/nonexistent/libtensorflow_cc.so.2" not in message or len(message) > 520:
        failures.append(f"missing TensorFlow: status {proc.returncode}, {message[-600:]!r}")


def children(pid):
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(p))
        except (OSError, IndexError, ValueError):
            pass
    return sorted(found)


def process_state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def zombie(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


if __name__ == "__main__":
    scratch.run(main)
