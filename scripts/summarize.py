#!/usr/bin/env python3
"""Print a readable summary of a pams-cpp run: a text chart of market and
fundamental price per market, and a few numbers per market and session.

Usage: summarize.py STEPS.csv [AGENTS.csv]   (standard library only)
"""
import csv
import math
import sys


def chart(times, series, width=72, height=16):
    """Plots named series (lists of floats or None) against time as text."""
    values = [v for _, ys, _ in series for v in ys if v is not None]
    lo, hi = min(values), max(values)
    if hi == lo:
        hi = lo + 1.0
    grid = [[" "] * width for _ in range(height)]
    n = len(times)
    for _, ys, mark in series:
        for col in range(width):
            i = min(n - 1, col * n // width)
            y = ys[i]
            if y is None:
                continue
            row = height - 1 - int((y - lo) / (hi - lo) * (height - 1) + 0.5)
            grid[row][col] = mark
    lines = []
    for r, row in enumerate(grid):
        label = hi - (hi - lo) * r / (height - 1)
        lines.append(f"{label:10.3f} |" + "".join(row))
    lines.append(" " * 11 + "+" + "-" * width)
    lines.append(" " * 12 + f"t={times[0]}" + " " * (width - 12) + f"t={times[-1]}")
    legend = "   ".join(f"{mark} {name}" for name, _, mark in series)
    lines.append(" " * 12 + legend)
    return "\n".join(lines)


def return_std(prices):
    """The population standard deviation of the log returns of prices (as
    pams stats computes it); 0 when there are none."""
    rets = [math.log(b / a) for a, b in zip(prices, prices[1:]) if a > 0 and b > 0]
    if not rets:
        return 0.0
    mean = sum(rets) / len(rets)
    return math.sqrt(sum((x - mean) ** 2 for x in rets) / len(rets))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    markets = {}
    for r in rows:
        markets.setdefault((int(r["market_id"]), r["market_name"]), []).append(r)
    for (mid, name), rs in sorted(markets.items()):
        times = [int(r["market_time"]) for r in rs]
        price = [float(r["market_price"]) for r in rs]
        fund = [float(r["fundamental_price"]) for r in rs]
        print(f"\nMarket {mid} ({name}): {len(rs)} steps")
        print(chart(times, [("market price", price, "*"), ("fundamental", fund, ".")]))
        volume = sum(int(r["executed_volume"]) for r in rs)
        gap = sum(abs(p - q) / q for p, q in zip(price, fund)) / len(rs)
        # The std of log returns depends on the steps it covers: over all
        # steps it includes a warm-up session's flat prices, so each figure
        # says which steps it is of (pams stats --session N gives the same
        # figure as the session's line).
        print(f"  final price {price[-1]:.5f} (fundamental {fund[-1]:.5f}); "
              f"executed volume {volume}; log-return std {return_std(price):.3e} over all "
              f"steps {times[0]}-{times[-1]}; mean |price - fundamental| / fundamental "
              f"{gap:.3%}")
        sessions = {}
        for r in rs:
            sessions.setdefault(r["session_id"], []).append(r)
        for sid, srs in sessions.items():
            p = [float(r["market_price"]) for r in srs]
            v = sum(int(r["executed_volume"]) for r in srs)
            print(f"  session {sid}: steps {srs[0]['market_time']}-{srs[-1]['market_time']}, "
                  f"price {min(p):.3f}..{max(p):.3f}, volume {v}, log-return std "
                  f"{return_std(p):.3e} over these steps")
    if len(sys.argv) > 2:
        with open(sys.argv[2], newline="") as f:
            agents = list(csv.DictReader(f))
        cash = sorted(float(a["cash_amount"]) for a in agents)
        print(f"\nAgents: {len(agents)}; cash min {cash[0]:.2f}, median "
              f"{cash[len(cash) // 2]:.2f}, max {cash[-1]:.2f}")


if __name__ == "__main__":
    main()
