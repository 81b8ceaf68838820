#!/usr/bin/env python3
"""pams plot and pams stats, end to end, on the steps CSV of real runs.

plot: the PNG has PNG's signature and an IHDR of the requested size; the SVG
parses as XML with the requested width and height; no temporary file is left.
stats --json: every value agrees, within 1e-9 relative, with the stylized
facts computed here in plain Python from the same CSV (math.fsum, no shared
code), NaN being null. Bad input (missing file, not a steps CSV, bad
extension, unwritable output, bad size): exit status 2 and a message naming
the file or flag, no crash, no file written.

Usage: analysis_test.py --pams BIN
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LAG = 10
REL_TOL = 1e-9

failures = []


def fail(message):
    failures.append(message)


def run(args, *cmd):
    return subprocess.run([args.pams, *cmd], capture_output=True, text=True, timeout=300)


# --- stylized facts, computed independently of pams ---

def number(field):
    return float(field) if field != "" else math.nan


def read_markets(path):
    """{market_id: rows} in order of first appearance, rows as dicts. A last
    line without its newline (an interrupted run's) is not a row."""
    with open(path, newline="") as f:
        text = f.read()
    if not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]
    markets = {}
    for row in csv.DictReader(text.splitlines()):
        markets.setdefault(int(row["market_id"]), []).append(row)
    return markets


def mean(xs):
    return math.fsum(xs) / len(xs) if xs else math.nan


def constant(xs):
    return not xs or min(xs) == max(xs)


def acf(xs):
    """Autocorrelations at lags 1..MAX_LAG; NaN where undefined."""
    out = [math.nan] * MAX_LAG
    if constant(xs):
        return out
    m = mean(xs)
    d = [x - m for x in xs]
    denominator = math.fsum(v * v for v in d)
    for k in range(1, MAX_LAG + 1):
        if k < len(xs):
            out[k - 1] = math.fsum(d[t] * d[t + k] for t in range(len(xs) - k)) / denominator
    return out


def hill(values, q=0.05):
    """The Hill estimate of the tail index of |values| (k = floor(q n) largest
    against the (k+1)-th); NaN where undefined."""
    x = sorted((abs(v) for v in values), reverse=True)
    k = int(q * len(x))
    if k < 1 or k >= len(x) or x[k] == 0:
        return math.nan
    total = math.fsum(math.log(v / x[k]) for v in x[:k])
    return k / total if total != 0 else math.nan


def expected_facts(market_id, rows):
    price = [number(r["market_price"]) for r in rows]
    fundamental = [number(r["fundamental_price"]) for r in rows]
    volume = [number(r["executed_volume"]) for r in rows]
    ok = lambda p: math.isfinite(p) and p > 0
    r = [math.log(b / a) for a, b in zip(price, price[1:]) if ok(a) and ok(b)]
    m = mean(r)
    std = kurtosis = math.nan
    if r:
        m2 = math.fsum((x - m) ** 2 for x in r) / len(r)
        m4 = math.fsum((x - m) ** 4 for x in r) / len(r)
        std = math.sqrt(m2)
        if not constant(r):
            kurtosis = m4 / m2 ** 2 - 3
    gaps = [abs(p / f - 1) for p, f in zip(price, fundamental)
            if math.isfinite(p) and math.isfinite(f) and f != 0]
    return {
        "market_id": market_id,
        "market_name": rows[0]["market_name"],
        "steps": len(rows),
        "returns": len(r),
        "return_mean": m,
        "return_std": std,
        "excess_kurtosis": kurtosis,
        "return_autocorrelation": acf(r),
        "abs_return_autocorrelation": acf([abs(x) for x in r]),
        "total_volume": math.fsum(v for v in volume if not math.isnan(v)),
        "mean_abs_fundamental_gap": mean(gaps),
        # Since PAMS's development branch: over the non-zero returns.
        "hill_tail_index": hill([x for x in r if x != 0.0]),
    }


def same(actual, expected):
    if isinstance(expected, float) and math.isnan(expected):
        return actual is None
    if isinstance(expected, float):
        return isinstance(actual, (int, float)) and math.isclose(
            actual, expected, rel_tol=REL_TOL, abs_tol=1e-15)
    return actual == expected


def check_stats(args, name, steps):
    proc = run(args, "stats", steps, "--json")
    if proc.returncode != 0:
        fail(f"{name}: stats --json: status {proc.returncode}: {proc.stderr.strip()}")
        return
    try:
        got = json.loads(proc.stdout)["markets"]
    except (ValueError, KeyError) as e:
        fail(f"{name}: stats --json is not the expected JSON ({e}): {proc.stdout[:200]!r}")
        return
    markets = read_markets(steps)
    if [m.get("market_id") for m in got] != list(markets):
        fail(f"{name}: markets {[m.get('market_id') for m in got]}, expected {list(markets)}")
        return
    for actual, (market_id, rows) in zip(got, markets.items()):
        expected = expected_facts(market_id, rows)
        if list(actual) != list(expected):
            fail(f"{name} market {market_id}: keys {list(actual)}, expected {list(expected)}")
            continue
        for key, value in expected.items():
            if isinstance(value, list):
                if len(actual[key]) != len(value) or not all(
                        same(a, e) for a, e in zip(actual[key], value)):
                    fail(f"{name} market {market_id} {key}: {actual[key]}, expected {value}")
            elif not same(actual[key], value):
                fail(f"{name} market {market_id} {key}: {actual[key]!r}, expected {value!r}")
    text = run(args, "stats", steps)
    for market_id, rows in markets.items():
        header = f"market {market_id} ({rows[0]['market_name']}): {len(rows)} steps"
        if text.returncode != 0 or header not in text.stdout or "excess kurtosis" not in text.stdout:
            fail(f"{name}: stats text lacks {header!r}: {text.stdout[:300]!r}")


# --- charts ---

def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def svg_size(path):
    root = ET.parse(path).getroot()
    if root.tag != "{http://www.w3.org/2000/svg}svg":
        return None
    px = lambda v: int(float(re.fullmatch(r"([0-9.]+)(px)?", v).group(1)))
    return px(root.get("width")), px(root.get("height"))


def check_plot(args, name, steps, out_dir):
    cases = [("chart.png", [], (1200, 800), png_size),
             ("chart-small.png", ["--width", "700", "--height", "420"], (700, 420), png_size),
             ("chart.svg", ["--width", "640", "--height", "480", "--title", "a title"],
              (640, 480), svg_size)]
    for file_name, flags, size, read_size in cases:
        path = os.path.join(out_dir, f"{name}-{file_name}")
        proc = run(args, "plot", steps, "-o", path, *flags)
        if proc.returncode != 0:
            fail(f"{name}: plot {file_name}: status {proc.returncode}: {proc.stderr.strip()}")
            continue
        try:
            got = read_size(path)
        except (ET.ParseError, OSError, AttributeError, TypeError) as e:
            got = f"unreadable ({e})"
        if got != size:
            fail(f"{name}: {file_name} has size {got}, expected {size}")


def expect_error(args, name, cmd, pattern, must_not_exist=None):
    proc = run(args, *cmd)
    output = proc.stderr + proc.stdout
    if proc.returncode != 2 or not re.search(pattern, output):
        fail(f"{name}: status {proc.returncode} (expected 2), output {output.strip()[-300:]!r} "
             f"(expected /{pattern}/)")
    if re.search(r"terminate called|Traceback|what\(\)|Aborted", output):
        fail(f"{name}: crashed: {output.strip()[-300:]!r}")
    if must_not_exist and os.path.exists(must_not_exist):
        fail(f"{name}: {must_not_exist} was written")


def check_errors(args, steps, tmp):
    config = os.path.join(ROOT, "samples", "CI2002", "config.json")
    out = os.path.join(tmp, "err.png")
    missing = os.path.join(tmp, "missing.csv")
    header_only = os.path.join(tmp, "header.csv")
    with open(steps) as f, open(header_only, "w") as g:
        g.write(f.readline())
    for command in ("plot", "stats"):
        extra = ["-o", out] if command == "plot" else []
        expect_error(args, f"{command} missing file", [command, missing, *extra],
                     re.escape(f"error: {missing}: cannot open the steps CSV file"), out)
        expect_error(args, f"{command} not a steps CSV", [command, config, *extra],
                     re.escape(f'error: {config}:1: no column "session_id"'), out)
        expect_error(args, f"{command} a directory", [command, tmp, *extra],
                     re.escape(f"error: {tmp}: is a directory"), out)
        expect_error(args, f"{command} header only", [command, header_only, *extra],
                     re.escape(f"error: {header_only}: no rows"), out)
        expect_error(args, f"{command} no file", [command],
                     rf"(?m)^error: pams {command}: STEPS.csv is missing: pams {command} "
                     rf"STEPS.csv \[options\] \(see pams {command} --help\)$")
    expect_error(args, "plot no output", ["plot", steps],
                 r"(?m)^error: pams plot: --output FILE is required \(see pams plot --help\)$")
    bad_ext = os.path.join(tmp, "chart.jpg")
    expect_error(args, "plot bad extension", ["plot", steps, "-o", bad_ext],
                 re.escape(f"error: {bad_ext}: a chart's file name must end in .png or .svg"),
                 bad_ext)
    unwritable = os.path.join(tmp, "no", "such", "dir", "chart.png")
    expect_error(args, "plot unwritable output", ["plot", steps, "-o", unwritable],
                 re.escape(f"error: {unwritable}: cannot write the chart"), unwritable)
    taken = os.path.join(tmp, "taken.png")
    os.mkdir(taken)
    expect_error(args, "plot output is a directory", ["plot", steps, "-o", taken],
                 re.escape(f"error: {taken}: cannot write the chart"))
    for flag, value in (("--width", "abc"), ("--width", "10"), ("--height", "0"),
                        ("--height", "100000"), ("--width", "12.5")):
        expect_error(args, f"plot {flag} {value}", ["plot", steps, "-o", out, flag, value],
                     re.escape(f"{flag}: must be a whole number of pixels") + ".*" +
                     re.escape(f'got "{value}"'), out)
    # A failed plot leaves an existing chart as it was.
    with open(out, "w") as f:
        f.write("old")
    expect_error(args, "plot over a chart from a bad CSV", ["plot", config, "-o", out],
                 "no column")
    with open(out) as f:
        if f.read() != "old":
            fail("a failed plot changed the existing chart")
    os.remove(out)


ODD_NAME = 'M, "odd"\nname'


def check_odd_names(args, tmp, plain_steps):
    """A market named with a comma, quotes and a line break: pams run
    --steps-csv --plot, then pams plot and pams stats read the file back (the
    writer quotes the name, RFC 4180, and the reader takes it whole); the
    facts are those of the same run under a plain name."""
    with open(os.path.join(ROOT, "samples", "CI2002", "config.json")) as f:
        config = json.load(f)
    config["simulation"]["markets"] = [ODD_NAME]
    config[ODD_NAME] = config.pop("Market")
    config["FCNAgents"]["markets"] = [ODD_NAME]
    path = os.path.join(tmp, "odd.json")
    with open(path, "w") as f:
        json.dump(config, f)
    steps, chart = os.path.join(tmp, "odd.csv"), os.path.join(tmp, "odd-run.png")
    proc = run(args, "run", path, "--seed", "1", "--quiet", "--steps-csv", steps,
               "--plot", chart)
    if proc.returncode != 0 or not os.path.exists(chart):
        fail(f"odd names: pams run --plot: status {proc.returncode}: {proc.stderr[-300:]!r}")
        return
    with open(steps, newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) != 601 or any(r[2] != ODD_NAME for r in rows[1:]):
        fail(f"odd names: steps.csv has {len(rows)} records, names {rows[1][2]!r}")
    proc = run(args, "plot", steps, "-o", os.path.join(tmp, "odd.svg"))
    if proc.returncode != 0:
        fail(f"odd names: pams plot: status {proc.returncode}: {proc.stderr[-300:]!r}")
    proc = run(args, "stats", steps, "--json")
    plain = run(args, "stats", plain_steps, "--json")
    if proc.returncode != 0:
        fail(f"odd names: pams stats: status {proc.returncode}: {proc.stderr[-300:]!r}")
    else:
        got = json.loads(proc.stdout)["markets"]
        expected = json.loads(plain.stdout)["markets"]
        expected[0]["market_name"] = ODD_NAME
        if got != expected:
            fail(f"odd names: pams stats {str(got)[:200]} != {str(expected)[:200]}")
    text = run(args, "stats", steps)
    if text.returncode != 0 or not text.stdout.startswith(
            'market 0 (M, "odd"\\nname): 600 steps'):
        fail(f"odd names: the table's heading {text.stdout[:80]!r}")


def check_same_file(args, tmp, steps):
    """pams plot -o naming its own input (here through a symlink) is refused
    before anything is written."""
    source = os.path.join(tmp, "steps-as.png")
    shutil.copy(steps, source)
    link = os.path.join(tmp, "link.png")
    os.symlink(source, link)
    for out in (source, link):
        expect_error(args, f"plot -o its input ({os.path.basename(out)})",
                     ["plot", source, "-o", out],
                     re.escape(f"error: --output {out}: is the same file as STEPS.csv "
                               f"{source}"))
    with open(source, "rb") as a, open(steps, "rb") as b:
        if a.read() != b.read():
            fail("plot -o its input changed the input")


def check_demo_summary(args, steps):
    """make demo's summary (scripts/summarize.py) says which steps each return
    std covers: all steps, and each session's, the latter being the figure
    of pams stats --session for that session."""
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "summarize.py"), steps],
                          capture_output=True, text=True, timeout=60)
    stats = run(args, "stats", steps, "--session", "1", "--json")
    facts = json.loads(stats.stdout)["markets"][0] if stats.returncode == 0 else {}
    session = re.search(r"session 1: steps 100-599, .*log-return std (\S+) over these steps",
                        proc.stdout)
    if proc.returncode != 0 or "log-return std" not in proc.stdout or \
            not re.search(r"log-return std \S+ over all steps 0-599", proc.stdout) or \
            not session or not facts or \
            session.group(1) != f"{facts['return_std']:.3e}":
        fail(f"demo summary: the return std figures are not labelled or do not match "
             f"pams stats --session 1 ({facts.get('return_std')}): {proc.stdout[-600:]!r}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pams", required=True)
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="pams-analysis-")
    try:
        runs = {}
        for name, config in (("CI2002", "samples/CI2002/config.json"),
                             ("shock_transfer", "samples/shock_transfer/config.json")):
            steps = os.path.join(tmp, f"{name}.csv")
            proc = run(args, "run", os.path.join(ROOT, config), "--seed", "1",
                       "--steps-csv", steps)
            if proc.returncode != 0:
                fail(f"{name}: pams run: status {proc.returncode}: {proc.stderr[-300:]}")
                continue
            runs[name] = steps
        # Gaps: market prices blanked (PAMS's None), a fundamental price of
        # 0, and a last row cut short as by an interrupted run.
        if "shock_transfer" in runs:
            with open(runs["shock_transfer"], newline="") as f:
                rows = list(csv.reader(f))
            header = rows[0]
            price, fundamental = header.index("market_price"), header.index("fundamental_price")
            for i, row in enumerate(rows[1:], 1):
                if 400 <= i < 520 and row[1] == "1":
                    row[price] = ""
                if i == 700:
                    row[fundamental] = "0"
            gaps = os.path.join(tmp, "gaps.csv")
            with open(gaps, "w", newline="") as f:
                csv.writer(f, lineterminator="\n").writerows(rows)
            with open(gaps) as f:
                text = f.read()
            with open(os.path.join(tmp, "cut.csv"), "w") as f:
                f.write(text[:-20])  # the last line loses its end and newline
            runs["gaps"] = gaps
            runs["cut"] = os.path.join(tmp, "cut.csv")

        for name, steps in runs.items():
            check_stats(args, name, steps)
            check_plot(args, name, steps, tmp)
        if "cut" in runs:
            got = json.loads(run(args, "stats", runs["cut"], "--json").stdout)
            if [m["steps"] for m in got["markets"]] != [600, 600, 599]:
                fail(f"cut: steps {[m['steps'] for m in got['markets']]}, expected the "
                     "cut row ignored")
        if "CI2002" in runs:
            check_errors(args, runs["CI2002"], tmp)
            check_odd_names(args, tmp, runs["CI2002"])
            check_same_file(args, tmp, runs["CI2002"])
            check_demo_summary(args, runs["CI2002"])
            # --session 1: the facts of session 1's rows only.
            rows = [r for r in read_markets(runs["CI2002"])[0] if r["session_id"] == "1"]
            proc = run(args, "stats", runs["CI2002"], "--session", "1", "--json")
            got = json.loads(proc.stdout)["markets"][0] if proc.returncode == 0 else {}
            expected = expected_facts(0, rows)
            if got.get("steps") != 500 or not all(
                    same(got.get(k), v) for k, v in expected.items() if not isinstance(v, list)):
                fail(f"stats --session 1: {proc.returncode} {str(got)[:300]}")
        leftovers = [n for n in os.listdir(tmp) if ".tmp" in n]
        if leftovers:
            fail(f"temporary files left: {leftovers}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print("analysis: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
