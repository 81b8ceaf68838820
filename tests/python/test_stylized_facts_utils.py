"""pams_cpp.utils.stylized_facts (PAMS's development branch): values worked
out by hand, scipy's kurtosis, Pareto quantiles for the Hill estimator, the
errors; the branch's validation gate on pams_cpp; and pams stats's Hill tail
index against these functions."""
import copy
import csv
import json
import math
import os
import random
import subprocess
import tempfile

import numpy as np
import pytest
from scipy import stats

from pams_cpp.runners import SequentialRunner
from pams_cpp.utils import autocorrelation
from pams_cpp.utils import excess_kurtosis
from pams_cpp.utils import hill_tail_index
from pams_cpp.utils import log_returns
from pams_cpp.utils.stylized_facts import log_returns as same_function


def test_log_returns():
    assert same_function is log_returns
    assert log_returns([100.0, 110.0, 99.0]).tolist() == [math.log(110.0) - math.log(100.0),
                                                          math.log(99.0) - math.log(110.0)]
    # Sampled every 2 steps: 100, 99, 100 (the trailing 120 is not sampled).
    assert log_returns([100.0, 110.0, 99.0, 108.9, 100.0, 120.0], interval=2).tolist() == \
        pytest.approx([math.log(0.99), math.log(100 / 99)])
    assert len(log_returns(list(range(1, 22)), interval=10)) == 2
    assert len(log_returns([100.0])) == 0
    assert log_returns([100.0, 100.0, 110.0, 110.0, 99.0], drop_unchanged=True).tolist() == \
        pytest.approx([math.log(1.1), math.log(0.9)])
    for bad in [dict(prices=[100.0, 101.0], interval=0), dict(prices=[100.0, 0.0]),
                dict(prices=[100.0, -1.0])]:
        with pytest.raises(ValueError):
            log_returns(**bad)


def test_excess_kurtosis():
    assert excess_kurtosis([1.0, -1.0, 1.0, -1.0]) == pytest.approx(-2.0)
    # 0 x7 and 10: mean 1.25, m2 = 87.5 / 8, m4 = 5878.90625 / 8.
    assert excess_kurtosis([0.0] * 7 + [10.0]) == pytest.approx(
        (5878.90625 / 8) / (87.5 / 8) ** 2 - 3)
    rng = np.random.default_rng(0)
    for values in [rng.standard_normal(1000), rng.standard_t(5, 1000)]:
        assert excess_kurtosis(values) == pytest.approx(stats.kurtosis(values), rel=1e-12)
    for bad in [[], [1.0, 1.0, 1.0]]:
        with pytest.raises(ValueError):
            excess_kurtosis(bad)


def test_autocorrelation():
    x = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert autocorrelation(x, lag=1) == pytest.approx(0.4)   # (2 + 0 + 0 + 2) / 10
    assert autocorrelation(x, lag=2) == pytest.approx(-0.1)  # (0 - 1 + 0) / 10
    assert autocorrelation([1.0, -1.0, 1.0, -1.0], lag=2) == pytest.approx(0.5)
    for lag in [0, 5]:
        with pytest.raises(ValueError):
            autocorrelation(x, lag=lag)
    with pytest.raises(ValueError):
        autocorrelation([2.0, 2.0, 2.0], lag=1)


def test_hill_tail_index():
    # Pareto quantiles (i / 1000)^-0.5: k = 50 and log(x_(j) / x_(51)) =
    # 0.5 log(51 / j), so 50 / (0.5 (50 log 51 - log 50!)).
    values = [(i / 1000) ** -0.5 for i in range(1, 1001)]
    expected = 50 / (0.5 * (50 * math.log(51) - math.lgamma(51)))
    assert hill_tail_index(values) == pytest.approx(expected, rel=1e-12)
    assert hill_tail_index([-v if i % 2 else v for i, v in enumerate(values)]) == \
        pytest.approx(expected, rel=1e-12)
    for alpha in [1.5, 3.0]:
        pareto = [(i / 10000) ** (-1 / alpha) for i in range(1, 10001)]
        assert hill_tail_index(pareto, tail_fraction=0.05) == pytest.approx(alpha, rel=0.02)
    for bad in [dict(values=[1.0, 2.0], tail_fraction=0.0), dict(values=[1.0, 2.0, 3.0]),
                dict(values=[0.0] * 90 + [1.0] * 10, tail_fraction=0.5),
                dict(values=[1.0] * 100)]:
        with pytest.raises(ValueError):
            hill_tail_index(**bad)


# The branch's validation gate: samples/CI2002 with shorter windows,
# narrower margins, slower mean reversion, 1,000 + 20,000 steps.
GATE = {
    "simulation": {
        "markets": ["Market"], "agents": ["FCNAgents"],
        "sessions": [
            {"sessionName": 0, "iterationSteps": 1000, "withOrderPlacement": True,
             "withOrderExecution": False, "withPrint": False},
            {"sessionName": 1, "iterationSteps": 20000, "withOrderPlacement": True,
             "withOrderExecution": True, "withPrint": False}]},
    "Market": {"class": "Market", "tickSize": 0.00001, "marketPrice": 300.0},
    "FCNAgents": {
        "class": "FCNAgent", "numAgents": 100, "markets": ["Market"], "assetVolume": 50,
        "cashAmount": 10000, "fundamentalWeight": {"expon": [1.0]},
        "chartWeight": {"expon": [0.0]}, "noiseWeight": {"expon": [1.0]},
        "meanReversionTime": {"uniform": [400, 800]}, "noiseScale": 0.001,
        "timeWindowSize": [10, 50], "orderMargin": [0.0, 0.01]},
}


@pytest.mark.parametrize("seed", [0, 1])
def test_validation_gate(seed):
    runner = SequentialRunner(settings=copy.deepcopy(GATE), prng=random.Random(seed))
    runner._setup()
    runner._run()
    prices = runner.simulator.markets[0].get_market_prices()
    r = log_returns(prices[1000:], drop_unchanged=True)
    assert len(r) > 5000
    assert excess_kurtosis(r) > 3.0
    assert 1.5 < hill_tail_index(r, tail_fraction=0.05) < 4.5
    assert all(abs(autocorrelation(r, lag)) < 0.1 for lag in range(1, 21))
    assert autocorrelation(np.abs(r), 1) > 0.1
    assert np.mean([autocorrelation(np.abs(r), lag) for lag in range(1, 11)]) > 0.02


def test_pams_stats_reports_the_hill_index():
    cli = os.environ.get("PAMS_CLI")
    if not cli:
        pytest.skip("PAMS_CLI (the pams command) is not set")  # only outside ctest
    config = copy.deepcopy(GATE)
    config["simulation"]["sessions"][1]["iterationSteps"] = 5000
    with tempfile.TemporaryDirectory() as tmp:
        path, steps = os.path.join(tmp, "c.json"), os.path.join(tmp, "s.csv")
        with open(path, "w") as f:
            json.dump(config, f)
        subprocess.run([cli, "run", path, "--seed", "2", "--quiet", "--steps-csv", steps],
                       check=True, capture_output=True)
        out = subprocess.run([cli, "stats", steps, "--json"], check=True,
                             capture_output=True, text=True).stdout
        with open(steps) as f:
            prices = [float(row["market_price"]) for row in csv.DictReader(f)]
    hill = json.loads(out)["markets"][0]["hill_tail_index"]
    # pams stats: the non-zero log returns of the whole file.
    r = np.array([math.log(b / a) for a, b in zip(prices, prices[1:])])
    assert hill == pytest.approx(hill_tail_index(r[r != 0.0]), rel=1e-9)
