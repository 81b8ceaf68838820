// Stylized facts of a simulated market: what market-simulation papers report
// to show that simulated prices behave like real ones (fat tails, volatility
// clustering, no linear predictability), computed from a StepsTable.
//
// Returns are log returns of market_price between consecutive rows of a
// market: r_t = log(p_t / p_{t-1}). A pair with a NaN or non-positive price
// on either side gives no return, and the returns that remain are treated as
// one series (a gap does not restart it). Every step of the file counts,
// including sessions without trading (their returns are 0).
//
// Pure functions; thread-safe.

#ifndef PAMS_SRC_ANALYSIS_STYLIZED_FACTS_H_
#define PAMS_SRC_ANALYSIS_STYLIZED_FACTS_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/steps_table.h"
#include "pams/config/json.h"

namespace pams::analysis {

inline constexpr int kMaxLag = 10;

struct StylizedFacts {
  int64_t market_id = 0;
  std::string market_name;
  int64_t steps = 0;      // rows of the market
  int64_t returns = 0;    // log returns used
  double return_mean = 0;
  double return_std = 0;  // population standard deviation (ddof 0)
  double excess_kurtosis = 0;  // m4 / m2^2 - 3 (0 for a normal law)
  // Autocorrelation at lags 1..kMaxLag (index 0 is lag 1), the usual
  // estimator sum((x_t - m)(x_{t+k} - m)) / sum((x_t - m)^2), with m the
  // mean of the whole series.
  std::array<double, kMaxLag> return_autocorrelation{};
  std::array<double, kMaxLag> abs_return_autocorrelation{};
  double total_volume = 0;  // sum of executed_volume (NaN fields skipped)
  // Mean of |market_price / fundamental_price - 1| over the steps where both
  // are known (and the fundamental price is not 0).
  double mean_abs_fundamental_gap = 0;
};

// One entry per market of the table, in the table's order. Statistics that
// are undefined (no returns, zero variance, a lag not shorter than the
// series, no step with both prices) are NaN.
std::vector<StylizedFacts> ComputeStylizedFacts(const StepsTable& table);

// Human-readable table (what `pams stats` prints): a block per market.
std::string FormatStylizedFacts(const std::vector<StylizedFacts>& facts);

// JSON (`pams stats --json`): {"markets": [{"market_id": ..., ...}, ...]}
// with the fields of StylizedFacts under the same names and the
// autocorrelations as arrays (element 0 is lag 1). NaN is null.
// StylizedFactsToJson is the text, indented by 2, ending with a newline.
Json StylizedFactsToJsonValue(const std::vector<StylizedFacts>& facts);
std::string StylizedFactsToJson(const std::vector<StylizedFacts>& facts);

}  // namespace pams::analysis

#endif  // PAMS_SRC_ANALYSIS_STYLIZED_FACTS_H_
