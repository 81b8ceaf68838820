#!/usr/bin/env python3
"""Random differential test: random valid PAMS configs, each run by the
reference PAMS and by pams-cpp for one or two seeds; stdout (minus the "# "
timing lines), the steps CSV and the agents CSV must be identical byte for
byte, as in differential_test.py (whose functions this reuses).

The configs are small (few agents, tens to a couple of hundred steps) and
random in every part PAMS reads: sessions (step counts including 0 and 1,
placement/execution flags, maxNormalOrders, maxHighFrequencyOrders,
highFrequencySubmitRate and their deprecated aliases), market groups
(counts, from/to, prefixes, integer and fractional tick sizes, market and
fundamental prices, drift, volatility, outstanding shares), IndexMarkets,
fundamentalCorrelations, every built-in agent and the samples' user
classes, every JsonRandom form, `extends` chains (unlisted bases, groups
extending listed groups, overridden keys), and every built-in event listed
under one or more sessions (shocks that run past the end of their session,
rules that act in every session). Only configs that both PAMS and pams-cpp
accept are generated (pams-cpp's documented stricter checks are respected).

Config i of --seed S is generated from its own random.Random("S:i"), so
`--seed S --first i --count 1` reproduces it alone (with the same flags).

Usage: random_configs_test.py --pams BIN --plugin LIB --reference-python PY
                              --count N --seed S [--keep DIR] [--first I]
                              [--jobs J] [--keep-going] [--zero-counts]
                              [--exclude-past-session-shocks]
                              [--allow-pams-failures] [--scale K] [--print-configs]

On a divergence the config (JSON, one line) and the first differing line are
printed, the config (and the outputs of both sides) are written to --keep if
given, and the exit status is 1. A config that pams-cpp refuses or fails to
run while PAMS runs it is a divergence too; one that PAMS fails to run is a
bug of this generator and also fails (--allow-pams-failures: skipped).

--keep-going     run every config before exiting
--zero-counts    also numAgents / numMarkets 0 and "agents": []
--exclude-past-session-shocks
                 keep every step of a FundamentalPriceShock inside each
                 session that lists it (pams-cpp drops the steps past the
                 end of that session: a known divergence being fixed)
--scale K        K times the steps and the agents per group
--print-configs  only print the configs (index, seeds, JSON)
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import differential_test as dt  # noqa: E402
import scratch  # noqa: E402  (tests/scratch.py: differential_test puts tests/ on the path)

# --------------------------------------------------------------------------
# Helpers shared by the generator.


def rfloat(rng, lo, hi, digits=4):
    return round(rng.uniform(lo, hi), digits)


def chance(rng, p):
    return rng.random() < p


def json_extends(whole, name, target, excludes):
    """PAMS's pams.utils.json_extends (the result's key order included)."""
    results = dict(target)
    history = [name]
    while "extends" in results:
        parent = results.pop("extends")
        if parent not in whole:
            raise ValueError(f"{name} extends missing {parent}")
        if parent in history:
            raise ValueError(f"{name} has an extending loop")
        history.append(parent)
        results = {
            **{k: v for k, v in whole[parent].items() if k not in excludes},
            **results,
        }
    return results


def group_names(name, eff, count_key):
    """Entity names of a group, as PAMS's SequentialRunner._parse_group."""
    n = 1
    lo, hi = 0, 0
    ranged = False
    if count_key in eff:
        n = int(eff[count_key])
        hi = n - 1
    if "from" in eff or "to" in eff:
        lo, hi = int(eff["from"]), int(eff["to"])
        n = hi - lo + 1
        ranged = True
    prefix = eff.get("prefix", name + ("-" if n > 1 else ""))
    numbered = ranged or n != 1
    return [prefix + (str(i) if numbered else "") for i in range(lo, hi + 1)]


def positive_definite(matrix):
    """Cholesky in pure Python: True when the symmetric matrix is PD."""
    n = len(matrix)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = matrix[i][j] - sum(low[i][k] * low[j][k] for k in range(j))
            if i == j:
                if s <= 1e-6:
                    return False
                low[i][i] = math.sqrt(s)
            else:
                low[i][j] = s / low[j][j]
    return True


def decoy(value):
    """Another value of the same type (overridden, so never used)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 2 + 1.0
    return value


class Retry(Exception):
    """The draws led to a config that is not valid for both sides."""


# --------------------------------------------------------------------------
# The generator.


class Generator:
    MARKET_GROUP_NAMES = ["Market", "Spot", "Bond", "Stock", "Fx", "Asset"]
    INDEX_GROUP_NAMES = ["Index", "Etf", "Basket"]
    AGENT_GROUP_NAMES = ["FCNAgents", "Traders", "Noise", "Makers", "Arbs",
                         "Chartists", "Funds", "Bots"]
    EVENT_NAMES = ["Shock", "Limit", "Halt", "Mistake", "Crash", "Rule",
                   "FatFinger", "Jump"]

    def __init__(self, rng, zero_counts=False, exclude_past_session_shocks=False,
                 scale=1):
        self.rng = rng
        self.zero_counts = zero_counts
        self.exclude_past = exclude_past_session_shocks
        self.scale = scale  # multiplies the steps and the agents per group

    # ---- JsonRandom values -------------------------------------------------

    def jr_nonneg(self, scale):
        """A JsonRandom that always draws a value >= 0 (weights)."""
        r = self.rng
        k = r.randrange(6)
        if k == 0:
            return {"expon": [rfloat(r, 0.0, scale, 3)]}
        if k == 1:
            if chance(r, 0.7):
                return rfloat(r, 0.0, scale, 3)
            return r.choice([0, 1, 2]) if scale >= 2 else 0
        if k == 2:
            a = rfloat(r, 0.0, scale, 3)
            return [a, round(a + rfloat(r, 0.0, scale, 3), 3)]
        if k == 3:
            a = rfloat(r, 0.0, scale, 3)
            return {"uniform": [a, round(a + rfloat(r, 0.0, scale, 3), 3)]}
        if k == 4:
            return {"const": [rfloat(r, 0.0, scale, 3)]}
        return {"expon": [round(scale * r.choice([0.0, 0.25, 0.5, 1.0]), 3)]}

    def jr_any(self, center, spread):
        """A JsonRandom of any form around center (may draw negative)."""
        r = self.rng
        k = r.randrange(6)
        if k == 0:
            v = rfloat(r, center - spread, center + spread, 5)
            return int(round(v)) if chance(r, 0.2) else v
        if k == 1:
            a = rfloat(r, center - spread, center, 5)
            return [a, round(a + rfloat(r, 0.0, spread, 5), 5)]
        if k == 2:
            a = rfloat(r, center - spread, center, 5)
            return {"uniform": [a, round(a + rfloat(r, 0.0, spread, 5), 5)]}
        if k == 3:
            return {"normal": [rfloat(r, center - spread, center + spread, 5),
                               rfloat(r, 0.0, spread, 5)]}
        if k == 4:
            return {"const": [rfloat(r, center - spread, center + spread, 5)]}
        return {"expon": [rfloat(r, 0.0, abs(center) + spread, 5)]}

    def jr_int_at_least(self, lo, hi):
        """A JsonRandom whose int() is in [lo, hi] (times to live)."""
        r = self.rng
        k = r.randrange(5)
        if k == 0:
            return r.randint(lo, hi)
        if k == 1:
            a = r.randint(lo, hi)
            return [a, r.randint(a, hi)] if chance(r, 0.8) else [float(a), float(a)]
        if k == 2:
            a = r.randint(lo, hi)
            return {"uniform": [a, r.randint(a, hi)]}
        if k == 3:
            return {"const": [float(r.randint(lo, hi)) + rfloat(r, 0.0, 0.99, 2)]}
        mid = (lo + hi) / 2
        sigma = (hi - lo) / 12
        return {"normal": [round(mid, 2), round(sigma, 2)]}

    # ---- sessions ------------------------------------------------------------

    def sessions(self):
        r = self.rng
        n = r.choices([1, 2, 3, 4], weights=[2, 4, 3, 2])[0]
        budget = r.choice([20, 60, 120, 200])
        steps = []
        for _ in range(n):
            s = r.choices(
                [0, 1, 2, 3, 5, 10, 20, 40, 60, 100, 150],
                weights=[1, 2, 2, 1, 2, 3, 3, 3, 2, 2, 1])[0]
            steps.append(min(s, max(0, budget - sum(steps))))
        if sum(steps) == 0:
            steps[-1] = r.randint(1, 30)
        steps = [x * self.scale for x in steps]
        names = set()
        sessions = []
        for i, s in enumerate(steps):
            while True:
                name = r.choice([i, i, str(i), f"s{i}", float(i), "open",
                                 "close", "main", True, None])
                if str(name) not in names:
                    break
            names.add(str(name))
            placement = chance(r, 0.8)
            sess = {"sessionName": name, "iterationSteps": s,
                    "withOrderPlacement": placement,
                    "withOrderExecution": chance(r, 0.7) if placement else chance(r, 0.3),
                    "withPrint": chance(r, 0.8)}
            if chance(r, 0.5):
                sess["maxNormalOrders"] = r.choice([0, 1, 1, 2, 3, 5, 10])
            k = r.randrange(5)
            if k == 0:
                sess["maxHighFrequencyOrders"] = r.choice([0, 1, 2, 3, 5])
            elif k == 1:
                sess["maxHifreqOrders"] = r.choice([0, 1, 2])
            k = r.randrange(5)
            if k == 0:
                sess["highFrequencySubmitRate"] = r.choice(
                    [0.0, 1.0, 1, 0, rfloat(r, 0.0, 1.0, 3)])
            elif k == 1:
                sess["hifreqSubmitRate"] = r.choice([0.5, 1.0, rfloat(r, 0.0, 1.0, 3)])
            if chance(r, 0.05):
                sess["MEMO"] = "ignored"
            sessions.append(sess)
        return sessions

    # ---- extends encoding ----------------------------------------------------

    def encode(self, name, eff, listed, kind, count_key):
        """Write the group `eff` (its effective settings) under `name`, maybe
        through `extends`: an unlisted base (or a chain of two), or a listed
        group of the same kind. Returns the effective settings PAMS will see
        (inheriting from a listed group may add keys)."""
        r = self.rng
        k = r.randrange(10)
        if k < 5:
            self.config[name] = dict(eff)
            return dict(eff)
        if k < 8:
            # Unlisted base(s): move some keys up, maybe with decoys that the
            # child overrides, maybe from/to decoys (never inherited).
            keys = [x for x in eff if x not in ("from", "to")]
            if "from" in eff:
                keys = [x for x in keys if x != count_key]
            moved = [x for x in keys if chance(r, 0.5)]
            child = {x: v for x, v in eff.items() if x not in moved}
            base = {x: eff[x] for x in moved}
            for x in child:
                if x not in ("from", "to", "extends") and chance(r, 0.2):
                    base[x] = decoy(child[x])
            if chance(r, 0.15):
                base["from"], base["to"] = 7, 3  # excluded from inheritance
            base_name = self.fresh_name(name + "Base")
            if chance(r, 0.3) and base:
                # a chain: child -> mid -> base
                top = {x: v for x, v in base.items() if chance(r, 0.5)}
                mid = {x: v for x, v in base.items() if x not in top}
                top_name = self.fresh_name(name + "Root")
                mid["extends"] = top_name
                self.config[top_name] = top
                self.config[base_name] = mid
            else:
                self.config[base_name] = base
            entry = {"extends": base_name}
            items = list(child.items())
            r.shuffle(items)
            entry.update(items)
            self.config[name] = entry
            result = json_extends(self.config, name, entry,
                                  ["from", "to"] if kind != "event" else
                                  ["numMarkets", "from", "to", "prefix"])
            assert {x: result[x] for x in eff} == eff, (eff, result)
            return result
        # A listed group of the same kind.
        if not listed:
            self.config[name] = dict(eff)
            return dict(eff)
        parent = r.choice(listed)
        peff = json_extends(self.config, parent, self.config[parent],
                            ["from", "to"] if kind != "event" else
                            ["numMarkets", "from", "to", "prefix"])
        if kind != "event":
            peff = {x: v for x, v in peff.items() if x not in ("from", "to")}
        entry = {"extends": parent}
        for x, v in eff.items():
            # compared as JSON: 0 == 0.0 and 1 == true in Python, not in PAMS's checks
            if x not in peff or json.dumps(peff[x]) != json.dumps(v) or chance(r, 0.3):
                entry[x] = v
        result = json_extends(self.config, name, entry,
                              ["from", "to"] if kind != "event" else
                              ["numMarkets", "from", "to", "prefix"])
        if kind != "event":
            if "from" in result and count_key in result:
                raise Retry("count inherited with from/to")
            if "prefix" in result and "prefix" not in eff:
                raise Retry("prefix inherited")
        self.config[name] = entry
        return result

    def fresh_name(self, stem):
        i = 0
        while f"{stem}{i}" in self.config:
            i += 1
        return f"{stem}{i}"

    # ---- markets -------------------------------------------------------------

    def count_keys(self, count_key, max_n):
        r = self.rng
        k = r.randrange(10)
        if k < 4:
            return {}
        if k < 8:
            lo = 0 if self.zero_counts and chance(r, 0.1) else 1
            return {count_key: r.randint(lo, max_n)}
        a = r.randint(0, 4)
        return {"from": a, "to": a + r.randint(0, max_n - 1)}

    def market_group(self, name, shares_value):
        r = self.rng
        eff = {"class": "Market"}
        if chance(r, 0.08):
            eff["class"] = "ExtendedMarket"
            if chance(r, 0.7):
                eff["tradeVolume"] = r.randint(0, 100)
        eff.update(self.count_keys("numMarkets", 3))
        if chance(r, 0.3):
            eff["prefix"] = r.choice(["M", "S-", "mk", "X_", ""]) + name[:2]
        eff["tickSize"] = r.choice([0.01, 0.01, 0.001, 0.1, 0.05, 0.5, 0.25, 0.3,
                                    1, 1, 5, 2, 1.0, 1e-05, 0.02])
        price = r.choice([100.0, 300.0, 250, 1000.0, rfloat(r, 50, 600, 2),
                          float(r.randint(50, 600)), r.randint(50, 600)])
        k = r.randrange(4)
        if k == 0:
            eff["fundamentalPrice"] = price
        elif k == 1:
            eff["marketPrice"] = price
            eff["fundamentalPrice"] = round(price * rfloat(r, 0.9, 1.1, 3), 3)
        else:
            eff["marketPrice"] = price
        k = r.randrange(4)
        if k == 0:
            eff["fundamentalVolatility"] = rfloat(r, 0.0001, 0.01, 5)
        elif k == 1:
            eff["fundamentalVolatility"] = r.choice([0, 0.0, 0.001])
        if chance(r, 0.3):
            eff["fundamentalDrift"] = r.choice([0, 0.0, rfloat(r, -0.0005, 0.0005, 6)])
        if chance(r, 0.6):
            eff["outstandingShares"] = shares_value if chance(r, 0.7) else r.randint(1, 5000)
        if chance(r, 0.05):
            eff["MEMO"] = "comment"
        return eff

    def markets(self):
        r = self.rng
        shares_value = r.choice([1000, 100, 25000])
        n_groups = r.choices([1, 2, 3], weights=[4, 4, 2])[0]
        names = r.sample(self.MARKET_GROUP_NAMES, n_groups)
        listed = []
        self.market_eff = {}   # group -> effective settings
        self.market_names = {}  # group -> entity names
        self.index_groups = []
        for name in names:
            eff = self.market_group(name, shares_value)
            eff = self.encode(name, eff, listed, "market", "numMarkets")
            if eff["class"] == "IndexMarket":
                raise Retry("inherited IndexMarket")
            listed.append(name)
            self.market_eff[name] = eff
            self.market_names[name] = group_names(name, eff, "numMarkets")
        n_index = r.choices([0, 1, 2], weights=[5, 4, 1])[0]
        for name in r.sample(self.INDEX_GROUP_NAMES, n_index):
            # components: plain markets with shares, rarely an earlier index
            candidates = [m for g in listed for m in self.market_names[g]
                          if "outstandingShares" in self.market_eff[g]
                          and (not self.is_index(g) or chance(r, 0.2))]
            if not candidates:
                break
            comps = r.sample(candidates, r.randint(1, min(3, len(candidates))))
            eff = {"class": "IndexMarket"}
            if chance(r, 0.2):
                eff.update(self.count_keys("numMarkets", 2))
            eff["tickSize"] = r.choice([0.01, 0.1, 1, 0.5])
            comp_prices = []
            for c in comps:
                g = self.group_of_market(c)
                e = self.market_eff[g]
                comp_prices.append(float(e.get("marketPrice", e.get("fundamentalPrice"))))
            mean = sum(comp_prices) / len(comp_prices)
            price = round(mean * rfloat(r, 0.95, 1.05, 3), 2)
            if chance(r, 0.8):
                eff["marketPrice"] = price
            else:
                eff["fundamentalPrice"] = price
            if chance(r, 0.2):
                eff["fundamentalVolatility"] = 0.001
            if chance(r, 0.2):
                eff["fundamentalDrift"] = 0.0001
            if chance(r, 0.4):
                eff["outstandingShares"] = shares_value
            if chance(r, 0.05):
                eff["requires"] = comps[:1]
            eff["markets"] = comps
            eff = self.encode(name, eff, [], "market", "numMarkets")
            listed.append(name)
            self.market_eff[name] = eff
            self.market_names[name] = group_names(name, eff, "numMarkets")
            self.index_groups.append(name)
        all_names = [m for g in listed for m in self.market_names[g]]
        if len(set(all_names)) != len(all_names):
            raise Retry("market names collide")
        if not all_names:
            raise Retry("no markets")
        self.market_groups = listed
        return listed

    def group_of_market(self, market_name):
        for g, names in self.market_names.items():
            if market_name in names:
                return g
        raise KeyError(market_name)

    def is_index(self, group):
        return self.market_eff[group]["class"] == "IndexMarket"

    def plain_market_names(self):
        return [m for g in self.market_groups if not self.is_index(g)
                for m in self.market_names[g]]

    def all_market_names(self):
        return [m for g in self.market_groups for m in self.market_names[g]]

    def correlations(self):
        r = self.rng
        vol = [m for g in self.market_groups if not self.is_index(g)
               and float(self.market_eff[g].get("fundamentalVolatility", 0)) > 0
               for m in self.market_names[g]]
        if len(vol) < 2 or not chance(r, 0.5):
            return None
        pairs = []
        for _ in range(r.randint(1, 3)):
            a, b = r.sample(vol, 2)
            pairs.append([a, b, rfloat(r, -0.6, 0.6, 2)])
        # PAMS keeps the last value of a pair (either order).
        final = {}
        for a, b, c in pairs:
            final[frozenset((a, b))] = c
        idx = {m: i for i, m in enumerate(vol)}
        mat = [[1.0 if i == j else 0.0 for j in range(len(vol))] for i in range(len(vol))]
        for pair, c in final.items():
            a, b = tuple(pair)
            mat[idx[a]][idx[b]] = mat[idx[b]][idx[a]] = c
        if not positive_definite(mat):
            return None
        return {"pairwise": pairs}

    # ---- agents --------------------------------------------------------------

    def base_agent_keys(self, eff):
        r = self.rng
        eff["assetVolume"] = r.choice([50, 0, 100, [10, 60], {"normal": [50, 5]},
                                       {"const": [30]}, {"uniform": [0, 100]},
                                       {"expon": [20.0]}, 10.7])
        eff["cashAmount"] = r.choice([10000, 1000.5, [5000, 15000],
                                      {"normal": [10000, 100]}, {"expon": [1000.0]},
                                      {"const": [2500]}, {"uniform": [0, 1]}, 0])

    def fcn_keys(self, eff):
        r = self.rng
        # Chart following feeds on itself: with few agents and long windows
        # a chart weight that is not small against the fundamental weight
        # drives prices to overflow or to 0 (PAMS raises), so it stays small
        # and comes with a fundamental weight bounded away from 0.
        chart_scale = r.choice([0.0, 0.0, 0.02, 0.05, 0.1])
        if chart_scale > 0:
            lo = rfloat(r, 0.5, 1.5, 2)
            eff["fundamentalWeight"] = r.choice(
                [lo, [lo, round(lo + 1, 2)], {"uniform": [lo, 2.0]}, {"const": [lo]}])
        else:
            eff["fundamentalWeight"] = self.jr_nonneg(2.0)
        eff["chartWeight"] = self.jr_nonneg(chart_scale)
        eff["noiseWeight"] = self.jr_nonneg(2.0)
        if all(is_zero(eff[k]) for k in ("fundamentalWeight", "chartWeight",
                                          "noiseWeight")) or chance(r, 0.05):
            # all three weights 0 would divide by zero (PAMS raises)
            eff["fundamentalWeight"] = {"expon": [1.0]}
        # long windows only without chart following; noise that moves the
        # expected price by more than ~20% swamps thin books as well
        tws_hi = r.choice([5, 20, 50] if chart_scale > 0 else [5, 20, 50, 100, 200])
        cap = 0.2 / tws_hi
        eff["noiseScale"] = r.choice([min(0.001, cap), 0.0001, min(0.003, cap), 0,
                                      self.jr_any(min(0.001, cap / 2), min(0.001, cap / 2))])
        eff["timeWindowSize"] = self.jr_int_at_least(max(1, tws_hi // 2), tws_hi)
        margin = r.choice(["absent", "fixed", "normal", None])
        if margin == "normal":
            eff["marginType"] = "normal"
            eff["orderMargin"] = r.choice([0.0, 0.5, rfloat(r, 0, 2.0, 3),
                                           [0.0, 1.0], {"uniform": [0.1, 0.5]},
                                           {"expon": [0.3]}])
        else:
            if margin != "absent":
                eff["marginType"] = margin
            eff["orderMargin"] = r.choice([0.0, 0.05, 0.1, 0, [0.0, 0.1],
                                           {"uniform": [0.0, 0.05]},
                                           {"const": [0.02]}, [0.0, 0.01]])
        # The fundamental term moves the expected log price by about
        # timeWindowSize / meanReversionTime times the gap: more than 1
        # overshoots and the price diverges, so meanReversionTime stays at
        # least timeWindowSize (values below 1 count as 1: a window of 1).
        if chance(r, 0.4):
            eff["meanReversionTime"] = self.jr_int_at_least(tws_hi, tws_hi * 3)
            if chance(r, 0.1):
                eff["timeWindowSize"] = r.choice([1, [1.0, 1.9], {"const": [1.5]}])
                eff["meanReversionTime"] = r.choice([0, -3, 0.5, 1])
        if chance(r, 0.05):
            # keys of later PAMS versions' FCNAgent: PAMS 0.3.0 ignores them
            eff["chartFollowRate"] = r.choice([0.0, 0.5, 1.0])
            eff["isLimitOrder"] = chance(r, 0.5)

    def agent_group(self, name, cls):
        r = self.rng
        eff = {"class": cls}
        eff.update(self.count_keys(
            "numAgents", (8 if "FCN" in cls or cls == "TestAgent" else 3) * self.scale))
        if chance(r, 0.2):
            eff["prefix"] = r.choice(["a", "Agent-", "T_", ""]) + name[:3]
        plain_groups = [g for g in self.market_groups if not self.is_index(g)]
        if cls == "ArbitrageAgent":
            # (not an index group of numMarkets 0: PAMS knows no such group)
            usable = [g for g in self.index_groups
                      if self.arb_ok(g) and self.market_names[g]]
            idx = r.sample(usable, r.randint(1, len(usable)))
            needed = list(idx)
            for g in needed:  # grows: an index may be a component
                if not self.is_index(g):
                    continue
                for c in self.market_eff[g]["markets"]:
                    cg = self.group_of_market(c)
                    if cg not in needed:
                        needed.append(cg)
            extra = [g for g in plain_groups if g not in needed and self.market_names[g]
                     and chance(r, 0.3)]
            markets = needed + extra
            r.shuffle(markets)
        elif cls in ("FCNAgent", "TestAgent", "UserDefinedFCNAgent") and chance(r, 0.04):
            markets = []  # an agent that trades nowhere
        else:
            # not a group of numMarkets 0: PAMS knows no such group (KeyError)
            pool = [g for g in self.market_groups if self.market_names[g]]
            markets = r.sample(pool, r.randint(1, len(pool)))
        eff["markets"] = markets
        self.base_agent_keys(eff)
        if cls in ("FCNAgent", "MarketShareFCNAgent", "UserDefinedFCNAgent"):
            self.fcn_keys(eff)
        elif cls == "MarketMakerAgent":
            names = [m for g in markets for m in self.market_names[g]]
            if not names:
                raise Retry("market maker without markets")
            eff["targetMarket"] = r.choice(names)
            eff["netInterestSpread"] = r.choice([0.02, 0.05, 0.0, 0.1, [0.01, 0.05], -0.01,
                                                 {"uniform": [0.0, 0.03]},
                                                 {"normal": [0.03, 0.005]}])
            if chance(r, 0.6):
                eff["orderTimeLength"] = self.jr_int_at_least(1, 10)
        elif cls == "ArbitrageAgent":
            eff["orderVolume"] = r.randint(1, 3)
            eff["orderThresholdPrice"] = r.choice([0.5, 1, 0.0, 2.0, rfloat(r, 0, 5, 2), -1.0])
            if chance(r, 0.6):
                eff["orderTimeLength"] = r.randint(1, 5)
        if chance(r, 0.05):
            eff["MEMO"] = "comment"
        return eff

    def arb_ok(self, index_group):
        comps = self.market_eff[index_group]["markets"]
        shares = {self.market_eff[self.group_of_market(c)]["outstandingShares"]
                  for c in comps}
        return len(shares) == 1

    def agents(self):
        r = self.rng
        n_groups = r.choices([1, 2, 3, 4], weights=[3, 4, 3, 1])[0]
        if self.zero_counts and chance(r, 0.08):
            n_groups = 0
        classes = ["FCNAgent"] * 6 + ["MarketShareFCNAgent"] * 2 + ["TestAgent"] * 2 + \
            ["MarketMakerAgent"] * 2 + ["UserDefinedFCNAgent"]
        if any(self.arb_ok(g) and self.market_names[g] for g in self.index_groups):
            classes += ["ArbitrageAgent"] * 4
        listed = []
        self.agent_eff = {}
        names = []
        for gname in r.sample(self.AGENT_GROUP_NAMES, n_groups):
            cls = r.choice(classes)
            eff = self.agent_group(gname, cls)
            eff = self.encode(gname, eff, listed, "agent", "numAgents")
            self.check_agent(gname, eff)
            listed.append(gname)
            self.agent_eff[gname] = eff
            names += group_names(gname, eff, "numAgents")
        if len(set(names)) != len(names):
            raise Retry("agent names collide")
        self.agent_groups = listed
        return listed

    def check_agent(self, gname, eff):
        """What inheritance from a listed group may have broken."""
        cls = eff["class"]
        if "FCN" in cls and "meanReversionTime" in eff:
            # an inherited meanReversionTime may be short for this window
            mrt_lo = max(int(jr_bounds(eff["meanReversionTime"])[0]), 1)
            if jr_bounds(eff["timeWindowSize"])[1] >= 2 and \
                    mrt_lo < int(jr_bounds(eff["timeWindowSize"])[1]):
                raise Retry("meanReversionTime shorter than timeWindowSize")
        markets = eff["markets"]
        names = [m for g in markets for m in self.market_names[g]]
        if cls == "MarketMakerAgent" and eff["targetMarket"] not in names:
            raise Retry("market maker target not accessible")
        if cls == "MarketShareFCNAgent" and not names:
            raise Retry("market share agent without markets")
        if cls == "ArbitrageAgent":
            if not isinstance(eff.get("orderTimeLength", 1), int):
                raise Retry("inherited a JsonRandom orderTimeLength")
            for g in markets:
                if self.is_index(g):
                    if not self.arb_ok(g):
                        raise Retry("arbitrage on unequal shares")
                    for c in self.market_eff[g]["markets"]:
                        if self.group_of_market(c) not in markets:
                            raise Retry("arbitrage component not accessible")

    def order_markets(self):
        """Names of the markets that can receive orders."""
        out = set()
        for eff in self.agent_eff.values():
            if eff.get("numAgents", 1) == 0:
                continue
            names = [m for g in eff["markets"] for m in self.market_names[g]]
            if eff["class"] == "MarketMakerAgent":
                out.add(eff["targetMarket"])
            elif eff["class"] == "ArbitrageAgent":
                for g in eff["markets"]:
                    if self.is_index(g):
                        for idx in self.market_names[g]:
                            out.add(idx)
                        out.update(self.market_eff[g]["markets"])
            else:
                out.update(names)
        return out

    # ---- events --------------------------------------------------------------

    def event(self, cls, session_steps):
        """Settings of one event; session_steps: the number of steps of the
        first session that lists it (trigger times go up to a few past it)."""
        r = self.rng
        eff = {"class": cls}
        names = self.all_market_names()
        plain = self.plain_market_names()
        if cls == "FundamentalPriceShock":
            eff["target"] = r.choice(plain)
            eff["triggerTime"] = r.randint(0, session_steps + 5)
            eff["priceChangeRate"] = r.choice([rfloat(r, -0.3, 0.3, 3), 0.1, -0.1, 0, 1])
            k = r.randrange(4)
            if k == 0:
                eff["shockTimeLength"] = r.choice([0, 1, 2, 3, 5, 10])
            elif k == 1:
                eff["shockTimeLength"] = r.randint(1, 4)
        elif cls == "PriceLimitRule":
            must = sorted(self.order_markets())
            targets = must + [m for m in names if m not in must and chance(r, 0.5)]
            r.shuffle(targets)
            if targets and chance(r, 0.1):
                targets.append(targets[0])  # repeats are ignored
            # pams-cpp refuses an empty targetMarkets and a negative
            # triggerChangeRate, which PAMS accepts (docs/config.md, "stricter").
            if not targets:
                targets = [r.choice(names)]
            eff["targetMarkets"] = targets
            eff["triggerChangeRate"] = r.choice([rfloat(r, 0.005, 0.2, 3), 0.05, 0.0,
                                                 0.3, 0.01])
            if chance(r, 0.05):
                eff["referenceMarket"] = names[0]
        elif cls == "TradingHaltRule":
            eff["targetMarkets"] = r.sample(names, r.randint(0 if chance(r, 0.05) else 1,
                                                         len(names)))
            eff["triggerChangeRate"] = r.choice([rfloat(r, 0.002, 0.1, 3), 0.05, 0.01,
                                                 0.0, -0.02])
            eff["haltingTimeLength"] = r.choice([0, 1, 2, 5, 10, 30, r.randint(0, 50)])
            if chance(r, 0.05):
                eff["referenceMarket"] = names[0]
        elif cls == "OrderMistakeShock":
            eff["target"] = r.choice(names)
            eff["triggerTime"] = r.randint(0, session_steps + 3)
            eff["priceChangeRate"] = r.choice([rfloat(r, -0.3, 0.3, 3), 0.05, -0.05, 0.0])
            eff["orderVolume"] = r.randint(1, 50)
            eff["orderTimeLength"] = r.randint(1, 50)
            if chance(r, 0.05):
                eff["agent"] = "x"
        if chance(r, 0.15):
            eff["enabled"] = chance(r, 0.6)
        return eff

    def past_session(self, eff, sessions, listings):
        """Whether a FundamentalPriceShock has a step past the end of a
        session that lists it."""
        if eff["class"] != "FundamentalPriceShock":
            return False
        if not eff.get("enabled", True):
            return False
        length = eff.get("shockTimeLength", 1)
        if length == 0:
            return False
        for i in listings:
            if eff["triggerTime"] + length > sessions[i]["iterationSteps"]:
                return True
        return False

    def events(self, sessions):
        r = self.rng
        n = r.choices([0, 1, 2, 3, 4, 5], weights=[2, 3, 3, 2, 1, 1])[0]
        classes = ["FundamentalPriceShock", "PriceLimitRule", "TradingHaltRule",
                   "OrderMistakeShock"]
        listed = []
        for name in r.sample(self.EVENT_NAMES, n):
            cls = r.choice(classes)
            listings = [r.randrange(len(sessions))]
            if chance(r, 0.25):
                listings.append(r.randrange(len(sessions)))
            eff = self.event(cls, sessions[listings[0]]["iterationSteps"])
            if self.exclude_past and self.past_session(eff, sessions, listings):
                # keep all its steps inside every session that lists it
                shortest = min(sessions[i]["iterationSteps"] for i in listings)
                length = eff.get("shockTimeLength", 1)
                if shortest < length:
                    continue
                eff["triggerTime"] = r.randint(0, shortest - length)
            eff = self.encode(name, eff, listed, "event", None)
            if self.exclude_past and self.past_session(eff, sessions, listings):
                raise Retry("past-session shock")
            listed.append(name)
            for i in listings:
                sessions[i].setdefault("events", []).append(name)
        for s in sessions:
            if "events" not in s and chance(r, 0.05):
                s["events"] = []
        return listed

    # ---- the whole config ----------------------------------------------------

    def generate(self):
        for _ in range(1000):
            state = self.rng.getstate()
            try:
                return self._generate()
            except Retry:
                # draws go on from where they were: deterministic
                self.rng.setstate(state)
                self.rng.random()
        raise RuntimeError("no valid config after 1000 tries")

    def _generate(self):
        self.config = {"simulation": {}}
        sim = self.config["simulation"]
        sessions = self.sessions()
        sim["markets"] = self.markets()
        corr = self.correlations()
        if corr:
            sim["fundamentalCorrelations"] = corr
        elif chance(self.rng, 0.03):
            sim["fundamentalCorrelations"] = self.rng.choice([{}, {"pairwise": []}])
        sim["agents"] = self.agents()
        self.events(sessions)
        sim["sessions"] = sessions
        if chance(self.rng, 0.05):
            # entries nothing refers to are ignored, whatever they hold
            self.config[self.fresh_name("Comment")] = self.rng.choice(
                ["text", [1, 2], 3.5, None, {"class": "Nothing"}])
        # the simulation object first, like hand-written configs
        out = {"simulation": sim}
        out.update((k, v) for k, v in self.config.items() if k != "simulation")
        return out


def jr_bounds(value):
    """Bounds of what a JsonRandom value draws (normal: 6 sigma)."""
    if isinstance(value, (int, float)):
        return value, value
    if isinstance(value, list):
        return value[0], value[1]
    ((kind, args),) = value.items()
    if kind == "const":
        return args[0], args[0]
    if kind == "uniform":
        return args[0], args[1]
    if kind == "normal":
        return args[0] - 6 * args[1], args[0] + 6 * args[1]
    return 0.0, math.inf


def is_zero(value):
    """Whether a JsonRandom value can draw 0 (weights: all 0 divide by 0)."""
    if isinstance(value, (int, float)):
        return value == 0
    if isinstance(value, list):
        return value[0] == 0 and value[1] == 0
    (args,) = value.values()
    if "uniform" in value:
        return args[0] == 0 and args[1] == 0
    return args[0] == 0


def has_past_session_shock(config):
    """Whether a config has an enabled FundamentalPriceShock with a step past
    the end of a session that lists it (the divergence being fixed)."""
    sessions = config["simulation"]["sessions"]
    for s in sessions:
        for name in s.get("events", []):
            eff = json_extends(config, name, config[name],
                               ["numMarkets", "from", "to", "prefix"])
            if eff.get("class") != "FundamentalPriceShock" or not eff.get("enabled", True):
                continue
            length = eff.get("shockTimeLength", 1)
            if length and eff["triggerTime"] + length > s["iterationSteps"]:
                return True
    return False


def dumps(config, rng):
    """The config as one line of JSON. Sometimes one key of one object is
    written twice, a decoy value first (at the start of the object) and the
    real one in its place: as with Python's json, the last value wins."""
    targets = [(name, None) for name, v in config.items()
               if name != "simulation" and isinstance(v, dict) and v]
    targets += [("simulation", i) for i in range(len(config["simulation"]["sessions"]))]
    if not rng.random() < 0.1:
        return json.dumps(config)
    name, i = rng.choice(targets)
    obj = config[name] if i is None else config["simulation"]["sessions"][i]
    keys = [k for k in obj if k not in ("extends", "events")]
    if not keys:
        return json.dumps(config)
    key = rng.choice(keys)
    other = decoy(obj[key])
    if other == obj[key]:
        other = "decoy"
    marker = {"__dup__": True}
    body = json.dumps({key: other})[1:-1]
    if i is None:
        text_obj = json.dumps(obj)
        out = dict(config)
        out[name] = marker
        text = json.dumps(out)
        return text.replace(json.dumps(marker), "{" + body + ", " + text_obj[1:], 1)
    sessions = list(config["simulation"]["sessions"])
    text_obj = json.dumps(sessions[i])
    sessions[i] = marker
    out = dict(config)
    out["simulation"] = dict(config["simulation"], sessions=sessions)
    text = json.dumps(out)
    return text.replace(json.dumps(marker), "{" + body + ", " + text_obj[1:], 1)


def generate_config(seed, index, zero_counts=False, exclude_past=False, scale=1):
    """Config `index` of --seed `seed`: (its JSON text, the dict it loads
    as, the simulation seeds)."""
    rng = random.Random(f"{seed}:{index}")
    config = Generator(rng, zero_counts, exclude_past, scale).generate()
    text = dumps(config, rng)
    assert json.loads(text) == config
    seeds = []
    for _ in range(rng.choice([1, 2])):
        k = rng.random()
        if k < 0.8:
            seeds.append(rng.randint(0, 2**31))
        elif k < 0.95:
            seeds.append(rng.randint(-5, 100))
        else:
            seeds.append(rng.choice([1, -1]) * rng.randint(2**32, 2**70))
    return text, config, seeds


# --------------------------------------------------------------------------
# The driver.


def run_side(cmd, env=None):
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, errors="replace")
    return proc.returncode, proc.stdout, proc.stderr


def compare(args, env, config_path, seed, workdir, tag):
    """Runs one config and seed on both sides. Returns None when identical,
    else a dict describing the difference."""
    files = {side: {kind: os.path.join(workdir, f"{tag}-{side}-{seed}-{kind}.csv")
                    for kind in ("steps", "agents")} for side in ("ref", "cpp")}
    ref_rc, ref_out, ref_err = run_side(
        [args.reference_python, dt.REFERENCE_SCRIPT,
         config_path, "--seed", str(seed), "--check-env",
         "--steps-csv", files["ref"]["steps"], "--agents-csv", files["ref"]["agents"]],
        env=env)
    cpp_rc, cpp_out, cpp_err = run_side(
        [args.pams, "run", config_path, "--seed", str(seed), "--plugin", args.plugin,
         "--steps-csv", files["cpp"]["steps"], "--agents-csv", files["cpp"]["agents"]])
    if ref_rc != 0 or cpp_rc != 0:
        if ref_rc != 0 and "reference environment is wrong" in ref_err:
            sys.exit(ref_err)
        what = ("PAMS fails (a generator bug: configs must run in PAMS)" if ref_rc != 0
                else "pams-cpp fails where PAMS runs")
        last = (ref_err.strip().splitlines() or [""])[-1]
        return {"kind": "error", "what": what, "seed": seed, "last": last,
                "detail": f"PAMS exit {ref_rc}: {ref_err.strip()[-1500:]}\n"
                          f"pams-cpp exit {cpp_rc}: {cpp_err.strip()[-1500:]}"}
    pairs = [("stdout", dt.without_timings(ref_out), dt.without_timings(cpp_out))]
    outputs = {"pams-stdout.txt": ref_out, "cpp-stdout.txt": cpp_out}
    for kind in ("steps", "agents"):
        with open(files["ref"][kind], encoding="utf-8") as f:
            ref = f.read()
        with open(files["cpp"][kind], encoding="utf-8") as f:
            cpp = f.read()
        pairs.append((kind + " csv", ref, cpp))
        outputs[f"pams-{kind}.csv"], outputs[f"cpp-{kind}.csv"] = ref, cpp
    for name, ref, cpp in pairs:
        if ref != cpp:
            return {"kind": "diff", "what": f"{name} differs", "seed": seed,
                    "detail": dt.first_difference(ref, cpp), "outputs": outputs}
        if not ref.strip():
            return {"kind": "diff", "what": f"{name} is empty", "seed": seed,
                    "detail": ""}
    for side in ("ref", "cpp"):
        for path in files[side].values():
            os.remove(path)
    return None


def run_one(args, env, workdir, index):
    text, config, seeds = generate_config(args.seed, index, args.zero_counts,
                                          args.exclude_past_session_shocks, args.scale)
    tag = f"config-{args.seed}-{index}"
    path = os.path.join(workdir, tag + ".json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    problems = []
    for seed in seeds:
        problem = compare(args, env, path, seed, workdir, tag)
        if problem:
            problem["seeds"] = seeds
            problems.append(problem)
            break
    steps = sum(s["iterationSteps"] for s in config["simulation"]["sessions"])
    for problem in problems:
        if has_past_session_shock(config):
            problem["note"] = ("(this config has a FundamentalPriceShock with steps past "
                               "the end of a session that lists it: the known divergence; "
                               "--exclude-past-session-shocks leaves such shocks out)")
    return index, text, seeds, steps, problems


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pams", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--reference-python", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--first", type=int, default=0, help="index of the first config")
    p.add_argument("--keep", help="directory for the configs that diverge")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--keep-going", action="store_true")
    p.add_argument("--zero-counts", action="store_true",
                   help='also generate numAgents/numMarkets 0 and "agents": []')
    p.add_argument("--exclude-past-session-shocks", action="store_true",
                   help="keep every FundamentalPriceShock inside the sessions that list it")
    p.add_argument("--allow-pams-failures", action="store_true",
                   help="report configs that PAMS itself fails to run as skipped "
                        "instead of failing (the generator should not make them)")
    p.add_argument("--scale", type=int, default=1,
                   help="multiply the steps and the agents per group (bigger configs)")
    p.add_argument("--print-configs", action="store_true")
    args = p.parse_args()
    if args.print_configs:
        for i in range(args.first, args.first + args.count):
            text, _, seeds = generate_config(args.seed, i, args.zero_counts,
                                             args.exclude_past_session_shocks, args.scale)
            print(i, json.dumps(seeds), text)
        return
    if not os.path.exists(args.reference_python):
        sys.exit(f"reference Python {args.reference_python} is missing: run "
                 "`make test` (it runs scripts/setup-reference.sh) or that script")
    env = dict(os.environ, **dt.REFERENCE_ENV)
    env["PYTHONPATH"] = dt.REFERENCE_PYTHONPATH
    workdir = scratch.folder("pams-random-")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    start = time.time()
    failures = 0
    skipped = 0
    done = 0
    total_steps = 0
    indices = range(args.first, args.first + args.count)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_one, args, env, workdir, i) for i in indices]
        for fut in futures:
            index, text, seeds, steps, problems = fut.result()
            done += 1
            total_steps += steps * len(seeds)
            for problem in problems:
                if args.allow_pams_failures and problem["what"].startswith("PAMS fails"):
                    skipped += 1
                    print(f"config {index} of --seed {args.seed}: skipped, PAMS fails "
                          f"with seed {problem['seed']}: "
                          f"{problem['last'][-200:]}")
                    continue
                failures += 1
                print(f"config {index} of --seed {args.seed} (seeds {seeds}): "
                      f"seed {problem['seed']}: {problem['what']}")
                print("config: " + text)
                print(problem["detail"])
                if "note" in problem:
                    print(problem["note"])
                print(f"(again: --seed {args.seed} --first {index} --count 1"
                      + (" --zero-counts" if args.zero_counts else "")
                      + (" --exclude-past-session-shocks"
                         if args.exclude_past_session_shocks else "")
                      + (f" --scale {args.scale}" if args.scale != 1 else "") + ")")
                if args.keep:
                    base = os.path.join(args.keep, f"config-{args.seed}-{index}")
                    with open(base + ".json", "w", encoding="utf-8") as f:
                        f.write(text + "\n")
                    with open(base + ".txt", "w", encoding="utf-8") as f:
                        f.write(f"seed {problem['seed']}: {problem['what']}\n"
                                f"{problem['detail']}\n")
                    for name, text in problem.get("outputs", {}).items():
                        with open(f"{base}-{problem['seed']}-{name}", "w",
                                  encoding="utf-8") as f:
                            f.write(text)
                    print(f"kept in {base}.json")
                sys.stdout.flush()
            if failures and not args.keep_going:
                for f in futures:
                    f.cancel()
                break
    print(f"{done} configs, {total_steps} steps in all, {failures} diverging, "
          + (f"{skipped} skipped, " if skipped else "")
          + f"{time.time() - start:.1f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    scratch.run(main)
