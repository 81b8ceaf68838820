// The validation gate of PAMS's development branch (its
// tests/validation/test_stylized_facts.py), on the engine: 100 FCN agents
// trade for 1,000 warm-up steps without execution and 20,000 with, seeds 0
// and 1; the returns in event time (price changes after the warm-up) must
// show the stylized facts of real markets with the branch's thresholds:
// more than 5,000 returns, excess kurtosis > 3, a Hill tail index in
// (1.5, 4.5), |ACF| < 0.1 at lags 1-20, ACF(|r|, 1) > 0.1 and a mean
// ACF(|r|) over lags 1-10 > 0.02.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "analysis/stylized_facts.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"
#include "pams/simulator/simulator.h"

namespace pams::analysis {
namespace {

constexpr int kWarmUpSteps = 1000;

// The branch's CONFIG: samples/CI2002 with shorter time windows, narrower
// margins, slower mean reversion and longer sessions.
Json GateConfig() {
  return Json::parse(R"({
    "simulation": {
      "markets": ["Market"],
      "agents": ["FCNAgents"],
      "sessions": [
        {"sessionName": 0, "iterationSteps": 1000, "withOrderPlacement": true,
         "withOrderExecution": false, "withPrint": false},
        {"sessionName": 1, "iterationSteps": 20000, "withOrderPlacement": true,
         "withOrderExecution": true, "withPrint": false}
      ]
    },
    "Market": {"class": "Market", "tickSize": 0.00001, "marketPrice": 300.0},
    "FCNAgents": {
      "class": "FCNAgent", "numAgents": 100, "markets": ["Market"],
      "assetVolume": 50, "cashAmount": 10000,
      "fundamentalWeight": {"expon": [1.0]}, "chartWeight": {"expon": [0.0]},
      "noiseWeight": {"expon": [1.0]}, "meanReversionTime": {"uniform": [400, 800]},
      "noiseScale": 0.001, "timeWindowSize": [10, 50], "orderMargin": [0.0, 0.01]
    }
  })");
}

std::vector<double> EventTimeReturns(uint64_t seed) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  std::unique_ptr<Runner> runner = registry.create_runner(
      "SequentialRunner", GateConfig(), Random(seed), nullptr, "runner");
  runner->setup();
  runner->run();
  const std::span<const double> prices = runner->simulator().market(0).market_prices();
  return LogReturns(prices.subspan(kWarmUpSteps), 1, /*drop_unchanged=*/true);
}

class StylizedFactsGateTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(StylizedFactsGateTest, ReturnsShowTheStylizedFacts) {
  const std::vector<double> r = EventTimeReturns(GetParam());
  EXPECT_GT(r.size(), 5000u);
  EXPECT_GT(ExcessKurtosis(r), 3.0);
  const double hill = HillTailIndex(r, 0.05);
  EXPECT_GT(hill, 1.5);
  EXPECT_LT(hill, 4.5);
  for (int lag = 1; lag <= 20; ++lag) {
    EXPECT_LT(std::fabs(Autocorrelation(r, lag)), 0.1) << "lag " << lag;
  }
  std::vector<double> abs_r(r.size());
  for (size_t i = 0; i < r.size(); ++i) abs_r[i] = std::fabs(r[i]);
  EXPECT_GT(Autocorrelation(abs_r, 1), 0.1);
  double mean = 0;
  for (int lag = 1; lag <= 10; ++lag) mean += Autocorrelation(abs_r, lag);
  EXPECT_GT(mean / 10, 0.02);
  RecordProperty("returns", static_cast<int>(r.size()));
}

INSTANTIATE_TEST_SUITE_P(Seeds, StylizedFactsGateTest, ::testing::Values(0u, 1u));

}  // namespace
}  // namespace pams::analysis
