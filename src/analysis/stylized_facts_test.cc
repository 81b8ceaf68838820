// ComputeStylizedFacts against values worked out independently, the NaN
// cases (undefined statistics), and the JSON and text forms.

#include "analysis/stylized_facts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace pams::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

MarketSteps Market(std::vector<double> price, std::vector<double> fundamental = {},
                   std::vector<double> volume = {}) {
  MarketSteps m;
  m.market_id = 7;
  m.market_name = "M";
  const size_t n = price.size();
  for (size_t t = 0; t < n; ++t) {
    m.session_id.push_back(0);
    m.market_time.push_back(static_cast<int64_t>(t));
  }
  m.market_price = std::move(price);
  m.fundamental_price = fundamental.empty() ? std::vector<double>(n, 100.0) : fundamental;
  m.executed_volume = volume.empty() ? std::vector<double>(n, 0.0) : volume;
  return m;
}

StylizedFacts FactsOf(MarketSteps m) {
  StepsTable table;
  table.markets.push_back(std::move(m));
  return ComputeStylizedFacts(table).at(0);
}

void ExpectClose(double actual, double expected) {
  EXPECT_NEAR(actual, expected, 1e-12 * std::max(1.0, std::fabs(expected)));
}

TEST(StylizedFactsTest, MomentsAndAutocorrelationOfASmallSeries) {
  // NaN breaks two pairs; the returns that remain are one series.
  const StylizedFacts f = FactsOf(Market({100, 110, kNaN, 99, 99, 120, 108}));
  const std::vector<double> r = {std::log(1.1), 0, std::log(120.0 / 99), std::log(0.9)};
  EXPECT_EQ(f.market_id, 7);
  EXPECT_EQ(f.market_name, "M");
  EXPECT_EQ(f.steps, 7);
  ASSERT_EQ(f.returns, 4);
  // Moments from raw sums, a different route from the library's.
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  for (double x : r) {
    s1 += x;
    s2 += x * x;
    s3 += x * x * x;
    s4 += x * x * x * x;
  }
  const double n = 4, m = s1 / n;
  const double m2 = s2 / n - m * m;
  const double m4 = s4 / n - 4 * m * s3 / n + 6 * m * m * s2 / n - 3 * m * m * m * m;
  ExpectClose(f.return_mean, m);
  ExpectClose(f.return_std, std::sqrt(m2));
  ExpectClose(f.excess_kurtosis, m4 / (m2 * m2) - 3);
  for (int k = 1; k <= 3; ++k) {
    double num = 0;
    for (int t = 0; t + k < 4; ++t) num += (r[t] - m) * (r[t + k] - m);
    ExpectClose(f.return_autocorrelation[k - 1], num / (n * m2));
  }
  // Lags as long as the series or longer are undefined.
  for (int k = 4; k <= kMaxLag; ++k) {
    EXPECT_TRUE(std::isnan(f.return_autocorrelation[k - 1])) << k;
    EXPECT_TRUE(std::isnan(f.abs_return_autocorrelation[k - 1])) << k;
  }
}

TEST(StylizedFactsTest, AlternatingReturnsAreNegativelyAutocorrelated) {
  // Returns +L, -L, +L, ... (L = log 2, so that -L is exactly log 0.5):
  // mean 0, autocorrelation (-1)^k (n - k) / n, and |returns| constant, so
  // that their autocorrelation is undefined.
  std::vector<double> price;
  for (int t = 0; t <= 100; ++t) price.push_back(t % 2 == 0 ? 100 : 200);
  const StylizedFacts f = FactsOf(Market(price));
  ASSERT_EQ(f.returns, 100);
  ExpectClose(f.return_mean, 0);
  ExpectClose(f.return_std, std::log(2.0));
  ExpectClose(f.excess_kurtosis, -2);  // a two-point law: m4 / m2^2 = 1
  for (int k = 1; k <= kMaxLag; ++k) {
    ExpectClose(f.return_autocorrelation[k - 1], (k % 2 ? -1.0 : 1.0) * (100.0 - k) / 100);
    EXPECT_TRUE(std::isnan(f.abs_return_autocorrelation[k - 1]));
  }
}

TEST(StylizedFactsTest, UndefinedStatisticsAreNaN) {
  const StylizedFacts flat = FactsOf(Market({300, 300, 300, 300}));
  EXPECT_EQ(flat.returns, 3);
  EXPECT_EQ(flat.return_mean, 0);
  EXPECT_EQ(flat.return_std, 0);
  EXPECT_TRUE(std::isnan(flat.excess_kurtosis));
  EXPECT_TRUE(std::isnan(flat.return_autocorrelation[0]));

  const StylizedFacts one = FactsOf(Market({300}));
  EXPECT_EQ(one.returns, 0);
  EXPECT_TRUE(std::isnan(one.return_mean));
  EXPECT_TRUE(std::isnan(one.return_std));
  EXPECT_TRUE(std::isnan(one.excess_kurtosis));

  // Non-positive prices give no return (the log is undefined).
  EXPECT_EQ(FactsOf(Market({100, 0, -5, 100, 101})).returns, 1);
}

TEST(StylizedFactsTest, VolumeAndFundamentalGap) {
  const StylizedFacts f =
      FactsOf(Market({110, 90, kNaN, 100}, {100, 100, 100, kNaN}, {3, kNaN, 4, 0}));
  EXPECT_EQ(f.total_volume, 7);
  ExpectClose(f.mean_abs_fundamental_gap, (0.1 + 0.1) / 2);
  EXPECT_TRUE(std::isnan(FactsOf(Market({100}, {0})).mean_abs_fundamental_gap));
}

TEST(StylizedFactsTest, JsonHasEveryFieldAndNullForNaN) {
  StepsTable table;
  table.markets.push_back(Market({100, 101, 100, 102}));
  table.markets.push_back(Market({300}));
  table.markets[1].market_id = 8;
  table.markets[1].market_name = "N";
  const std::vector<StylizedFacts> facts = ComputeStylizedFacts(table);
  const std::string text = StylizedFactsToJson(facts);
  ASSERT_EQ(text.back(), '\n');
  const Json json = Json::parse(text);
  EXPECT_EQ(json, StylizedFactsToJsonValue(facts));
  ASSERT_EQ(json["markets"].size(), 2u);
  const Json& a = json["markets"][0];
  std::vector<std::string> keys;
  for (const auto& [key, value] : a.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "market_id", "market_name", "steps", "returns", "return_mean",
                      "return_std", "excess_kurtosis", "return_autocorrelation",
                      "abs_return_autocorrelation", "total_volume",
                      "mean_abs_fundamental_gap", "hill_tail_index"}));
  EXPECT_EQ(a["market_id"], 7);
  EXPECT_EQ(a["returns"], 3);
  EXPECT_EQ(a["return_mean"].get<double>(), facts[0].return_mean);
  ASSERT_EQ(a["return_autocorrelation"].size(), static_cast<size_t>(kMaxLag));
  EXPECT_EQ(a["return_autocorrelation"][0].get<double>(), facts[0].return_autocorrelation[0]);
  EXPECT_TRUE(a["return_autocorrelation"][3].is_null());
  const Json& b = json["markets"][1];
  EXPECT_EQ(b["market_name"], "N");
  EXPECT_TRUE(b["return_mean"].is_null());
  EXPECT_TRUE(b["excess_kurtosis"].is_null());
  EXPECT_EQ(b["total_volume"], 0.0);
}

TEST(StylizedFactsTest, TextNamesEachMarketAndSaysNA) {
  StepsTable table;
  table.markets.push_back(Market({300}));
  const std::string text = FormatStylizedFacts(ComputeStylizedFacts(table));
  EXPECT_NE(text.find("market 7 (M): 1 steps, 0 log returns"), std::string::npos) << text;
  EXPECT_NE(text.find("excess kurtosis"), std::string::npos) << text;
  EXPECT_NE(text.find("n/a"), std::string::npos) << text;
}

// The series functions of the development branch's pams.utils, against
// values worked out by hand.
TEST(StylizedFactsSeriesTest, LogReturns) {
  const std::vector<double> r = LogReturns(std::vector<double>{100, 110, 99});
  ASSERT_EQ(r.size(), 2u);
  ExpectClose(r[0], std::log(1.1));
  ExpectClose(r[1], std::log(0.9));
  // Every other price: 100, 99, 100 (the trailing 120 is not sampled).
  const std::vector<double> r2 =
      LogReturns(std::vector<double>{100, 110, 99, 108.9, 100, 120}, 2);
  ASSERT_EQ(r2.size(), 2u);
  ExpectClose(r2[0], std::log(0.99));
  ExpectClose(r2[1], std::log(100.0 / 99.0));
  // Unchanged periods dropped after sampling.
  const std::vector<double> r3 =
      LogReturns(std::vector<double>{100, 100, 110, 110, 110, 99, 99}, 1, true);
  ASSERT_EQ(r3.size(), 2u);
  ExpectClose(r3[0], std::log(1.1));
  EXPECT_EQ(LogReturns(std::vector<double>{100, 100, 100}, 1, true).size(), 0u);
  EXPECT_THROW(LogReturns(std::vector<double>{100, 101}, 0), std::invalid_argument);
  EXPECT_THROW(LogReturns(std::vector<double>{100, 0, 101}), std::invalid_argument);
}

TEST(StylizedFactsSeriesTest, ExcessKurtosis) {
  ExpectClose(ExcessKurtosis(std::vector<double>{1, -1, 1, -1}), -2.0);
  // 0 x7 and 10: mean 1.25, m2 = 87.5 / 8, m4 = 5878.90625 / 8.
  ExpectClose(ExcessKurtosis(std::vector<double>{0, 0, 0, 0, 0, 0, 0, 10}),
              (5878.90625 / 8) / ((87.5 / 8) * (87.5 / 8)) - 3);
  // The discrete uniform law on 0..9: -6 (n^2 + 1) / (5 (n^2 - 1)).
  ExpectClose(ExcessKurtosis(std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}),
              -606.0 / 495.0);
  EXPECT_TRUE(std::isnan(ExcessKurtosis(std::vector<double>{1, 1, 1})));
  EXPECT_TRUE(std::isnan(ExcessKurtosis(std::vector<double>{})));
}

TEST(StylizedFactsSeriesTest, Autocorrelation) {
  const std::vector<double> x = {1, 2, 3, 4, 5};
  ExpectClose(Autocorrelation(x, 1), 0.4);   // (2 + 0 + 0 + 2) / 10
  ExpectClose(Autocorrelation(x, 2), -0.1);  // (0 - 1 + 0) / 10
  ExpectClose(Autocorrelation(std::vector<double>{1, -1, 1, -1}, 1), -0.75);
  ExpectClose(Autocorrelation(std::vector<double>{1, -1, 1, -1}, 2), 0.5);
  EXPECT_TRUE(std::isnan(Autocorrelation(x, 0)));
  EXPECT_TRUE(std::isnan(Autocorrelation(x, 5)));
  EXPECT_TRUE(std::isnan(Autocorrelation(std::vector<double>{2, 2, 2}, 1)));
}

TEST(StylizedFactsSeriesTest, HillTailIndex) {
  // Pareto quantiles (i / 1000)^-0.5: k = 50, log(x_(j) / x_(51)) =
  // 0.5 log(51 / j), so the estimate is 50 / (0.5 (50 log 51 - log 50!)).
  std::vector<double> v;
  for (int i = 1; i <= 1000; ++i) v.push_back(std::pow(i / 1000.0, -0.5));
  ExpectClose(HillTailIndex(v, 0.05), 50 / (0.5 * (50 * std::log(51.0) - std::lgamma(51.0))));
  // Both tails pooled: signs do not matter.
  for (size_t i = 0; i < v.size(); i += 2) v[i] = -v[i];
  ExpectClose(HillTailIndex(v, 0.05), 50 / (0.5 * (50 * std::log(51.0) - std::lgamma(51.0))));
  EXPECT_TRUE(std::isnan(HillTailIndex(std::vector<double>{1, 2, 3}, 0.0)));
  EXPECT_TRUE(std::isnan(HillTailIndex(std::vector<double>{1, 2, 3}, 1.0)));
  EXPECT_TRUE(std::isnan(HillTailIndex(std::vector<double>{1, 2, 3}, 0.05)));  // k = 0
  std::vector<double> zeros(90, 0.0);
  zeros.insert(zeros.end(), 10, 1.0);
  EXPECT_TRUE(std::isnan(HillTailIndex(zeros, 0.5)));  // threshold 0
  EXPECT_TRUE(std::isnan(HillTailIndex(std::vector<double>(100, 1.0), 0.05)));
}

TEST(StylizedFactsTest, HillTailIndexOfTheChanges) {
  // 20 price changes (|log 1.5|, |log 1.2|, then 18 of |log 1.01|) and 20
  // unchanged steps: over the 20 changes k = 1 and the estimate is
  // 1 / log(log 1.5 / log 1.2); with the zeros, k would be 2.
  std::vector<double> prices = {100, 150, 125};
  for (int i = 0; i < 18; ++i) prices.push_back(i % 2 == 0 ? 125 * 1.01 : 125);
  for (int i = 0; i < 20; ++i) prices.push_back(prices.back());
  const StylizedFacts f = FactsOf(Market(prices));
  EXPECT_EQ(f.returns, 40);
  EXPECT_NEAR(f.hill_tail_index, 1 / std::log(std::log(1.5) / std::log(1.2)), 1e-9);
}

}  // namespace
}  // namespace pams::analysis
