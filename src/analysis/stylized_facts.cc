#include "analysis/stylized_facts.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace pams::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool IsPrice(double p) { return std::isfinite(p) && p > 0; }

// log(p_t / p_{t-1}) for each pair of consecutive valid prices.
std::vector<double> ValidLogReturns(const std::vector<double>& price) {
  std::vector<double> returns;
  for (size_t t = 1; t < price.size(); ++t) {
    if (IsPrice(price[t - 1]) && IsPrice(price[t])) {
      returns.push_back(std::log(price[t] / price[t - 1]));
    }
  }
  return returns;
}

// Summed left to right, so that a plain Python loop gives the same bits
// (tests/analysis_test.py checks against one).
double Mean(const std::vector<double>& x) {
  if (x.empty()) return kNaN;
  double sum = 0;
  for (double v : x) sum += v;
  return sum / static_cast<double>(x.size());
}

// A series whose values are all equal has no defined variance-based
// statistic; testing equality directly avoids a rounding residue of the mean
// standing in for a variance.
bool IsConstant(const std::vector<double>& x) {
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  return lo == x.end() || *lo == *hi;
}

// Autocorrelations at lags 1..kMaxLag.
std::array<double, kMaxLag> Autocorrelation(const std::vector<double>& x) {
  std::array<double, kMaxLag> acf;
  acf.fill(kNaN);
  if (IsConstant(x)) return acf;
  const double m = Mean(x);
  std::vector<double> d(x.size());
  double denominator = 0;
  for (size_t t = 0; t < x.size(); ++t) {
    d[t] = x[t] - m;
    denominator += d[t] * d[t];
  }
  for (int k = 1; k <= kMaxLag; ++k) {
    if (static_cast<size_t>(k) >= x.size()) break;
    double numerator = 0;
    for (size_t t = 0; t + k < x.size(); ++t) numerator += d[t] * d[t + k];
    acf[k - 1] = numerator / denominator;
  }
  return acf;
}

StylizedFacts ComputeForMarket(const MarketSteps& m) {
  StylizedFacts f;
  f.market_id = m.market_id;
  f.market_name = m.market_name;
  f.steps = static_cast<int64_t>(m.market_price.size());

  const std::vector<double> r = ValidLogReturns(m.market_price);
  f.returns = static_cast<int64_t>(r.size());
  f.return_mean = Mean(r);
  f.return_std = f.excess_kurtosis = kNaN;
  if (!r.empty()) {
    double m2 = 0, m4 = 0;
    for (double v : r) {
      const double d = v - f.return_mean;
      m2 += d * d;
      m4 += (d * d) * (d * d);
    }
    const double n = static_cast<double>(r.size());
    m2 /= n;
    m4 /= n;
    f.return_std = std::sqrt(m2);
    if (!IsConstant(r)) f.excess_kurtosis = m4 / (m2 * m2) - 3;
  }
  f.return_autocorrelation = Autocorrelation(r);
  std::vector<double> abs_r(r.size());
  std::transform(r.begin(), r.end(), abs_r.begin(),
                 [](double v) { return std::fabs(v); });
  f.abs_return_autocorrelation = Autocorrelation(abs_r);

  f.total_volume = 0;
  for (double v : m.executed_volume) {
    if (!std::isnan(v)) f.total_volume += v;
  }

  std::vector<double> gaps;
  for (size_t t = 0; t < m.market_price.size(); ++t) {
    const double p = m.market_price[t];
    const double fp = m.fundamental_price[t];
    if (std::isfinite(p) && std::isfinite(fp) && fp != 0) {
      gaps.push_back(std::fabs(p / fp - 1));
    }
  }
  f.mean_abs_fundamental_gap = Mean(gaps);

  std::vector<double> changes;
  for (double v : r) {
    if (v != 0.0) changes.push_back(v);
  }
  f.hill_tail_index = HillTailIndex(changes);
  return f;
}

std::string FormatNumber(double v) {
  return std::isnan(v) ? "n/a" : fmt::format("{:.6g}", v);
}

Json NumberOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json ArrayOrNulls(const std::array<double, kMaxLag>& values) {
  Json array = Json::array();
  for (double v : values) array.push_back(NumberOrNull(v));
  return array;
}

}  // namespace

std::vector<double> LogReturns(std::span<const double> prices, int interval,
                               bool drop_unchanged) {
  if (interval < 1) throw std::invalid_argument("interval must be positive");
  for (double p : prices) {
    if (!(p > 0)) throw std::invalid_argument("prices must be positive");
  }
  std::vector<double> out;
  for (size_t t = static_cast<size_t>(interval); t < prices.size(); t += interval) {
    // numpy: np.diff(np.log(p)), a difference of logarithms.
    const double r = std::log(prices[t]) - std::log(prices[t - interval]);
    if (drop_unchanged && r == 0.0) continue;
    out.push_back(r);
  }
  return out;
}

double ExcessKurtosis(std::span<const double> values) {
  if (values.empty()) return kNaN;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (*lo == *hi) return kNaN;
  double sum = 0;
  for (double v : values) sum += v;
  const double mean = sum / static_cast<double>(values.size());
  double m2 = 0, m4 = 0;
  for (double v : values) {
    const double d = v - mean;
    m2 += d * d;
    m4 += (d * d) * (d * d);
  }
  m2 /= static_cast<double>(values.size());
  m4 /= static_cast<double>(values.size());
  return m4 / (m2 * m2) - 3.0;
}

double Autocorrelation(std::span<const double> values, int lag) {
  const size_t n = values.size();
  if (lag < 1 || static_cast<size_t>(lag) >= n) return kNaN;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (*lo == *hi) return kNaN;
  double sum = 0;
  for (double v : values) sum += v;
  const double mean = sum / static_cast<double>(n);
  double denominator = 0, numerator = 0;
  for (size_t t = 0; t < n; ++t) {
    const double d = values[t] - mean;
    denominator += d * d;
    if (t + lag < n) numerator += d * (values[t + lag] - mean);
  }
  return numerator / denominator;
}

double HillTailIndex(std::span<const double> values, double tail_fraction) {
  if (!(0.0 < tail_fraction && tail_fraction < 1.0)) return kNaN;
  std::vector<double> sorted(values.size());
  std::transform(values.begin(), values.end(), sorted.begin(),
                 [](double v) { return std::fabs(v); });
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  // Python's int(q * n): toward zero.
  const size_t k = static_cast<size_t>(tail_fraction * static_cast<double>(sorted.size()));
  if (k < 1 || k >= sorted.size()) return kNaN;
  const double threshold = sorted[k];
  if (threshold == 0.0) return kNaN;
  double log_excess = 0;
  for (size_t i = 0; i < k; ++i) log_excess += std::log(sorted[i] / threshold);
  if (log_excess == 0.0) return kNaN;
  return static_cast<double>(k) / log_excess;
}

std::vector<StylizedFacts> ComputeStylizedFacts(const StepsTable& table) {
  std::vector<StylizedFacts> facts;
  for (const MarketSteps& m : table.markets) facts.push_back(ComputeForMarket(m));
  return facts;
}

std::string FormatStylizedFacts(const std::vector<StylizedFacts>& facts) {
  std::string out;
  for (const StylizedFacts& f : facts) {
    if (!out.empty()) out += "\n";
    out += fmt::format("market {} ({}): {} steps, {} log returns\n", f.market_id,
                       PrintableName(f.market_name), f.steps, f.returns);
    auto row = [&](const char* label, const std::string& value) {
      out += fmt::format("  {:<34}{:>12}\n", label, value);
    };
    row("return mean", FormatNumber(f.return_mean));
    row("return std", FormatNumber(f.return_std));
    row("excess kurtosis (fat tails: > 0)", FormatNumber(f.excess_kurtosis));
    row("total executed volume", FormatNumber(f.total_volume));
    row("mean |price / fundamental - 1|", FormatNumber(f.mean_abs_fundamental_gap));
    row("Hill tail index (5% of changes)", FormatNumber(f.hill_tail_index));
    out += "  autocorrelation at lag";
    for (int k = 1; k <= kMaxLag; ++k) out += fmt::format("{:>8}", k);
    out += "\n    returns             ";
    for (double v : f.return_autocorrelation) {
      out += fmt::format("{:>8}", std::isnan(v) ? "n/a" : fmt::format("{:.3f}", v));
    }
    out += "\n    |returns|           ";
    for (double v : f.abs_return_autocorrelation) {
      out += fmt::format("{:>8}", std::isnan(v) ? "n/a" : fmt::format("{:.3f}", v));
    }
    out += "\n";
  }
  return out;
}

Json StylizedFactsToJsonValue(const std::vector<StylizedFacts>& facts) {
  Json markets = Json::array();
  for (const StylizedFacts& f : facts) {
    Json m = Json::object();
    m["market_id"] = f.market_id;
    m["market_name"] = f.market_name;
    m["steps"] = f.steps;
    m["returns"] = f.returns;
    m["return_mean"] = NumberOrNull(f.return_mean);
    m["return_std"] = NumberOrNull(f.return_std);
    m["excess_kurtosis"] = NumberOrNull(f.excess_kurtosis);
    m["return_autocorrelation"] = ArrayOrNulls(f.return_autocorrelation);
    m["abs_return_autocorrelation"] = ArrayOrNulls(f.abs_return_autocorrelation);
    m["total_volume"] = NumberOrNull(f.total_volume);
    m["mean_abs_fundamental_gap"] = NumberOrNull(f.mean_abs_fundamental_gap);
    m["hill_tail_index"] = NumberOrNull(f.hill_tail_index);
    markets.push_back(std::move(m));
  }
  Json root = Json::object();
  root["markets"] = std::move(markets);
  return root;
}

std::string StylizedFactsToJson(const std::vector<StylizedFacts>& facts) {
  // A market name that is not UTF-8 must not make the output fail.
  return StylizedFactsToJsonValue(facts).dump(2, ' ', false,
                                              Json::error_handler_t::replace) +
         "\n";
}

}  // namespace pams::analysis
