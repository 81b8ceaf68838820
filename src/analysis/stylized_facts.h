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
#include <span>
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
  // Since PAMS's development branch: the Hill estimate of the tail index
  // of the non-zero log returns (the returns in event time, as the branch's
  // validation takes them), with tail fraction kHillTailFraction; NaN when
  // undefined (see HillTailIndex).
  double hill_tail_index = 0;
};

inline constexpr double kHillTailFraction = 0.05;

// The series functions of PAMS development branch's pams.utils.
// stylized_facts (which pams_cpp.utils.stylized_facts gives on numpy, as the
// branch does; these agree with it to rounding: numpy sums pairwise, these
// left to right).
//
// log(p[t + interval] / p[t]) of the prices sampled every `interval` steps
// from the first, without the zero returns when drop_unchanged. REQUIRES:
// interval >= 1 and every price > 0 (std::invalid_argument otherwise).
std::vector<double> LogReturns(std::span<const double> prices, int interval = 1,
                               bool drop_unchanged = false);
// m4 / m2^2 - 3 with the central moments m_j = mean((x - mean)^j).
// NaN for an empty or constant series.
double ExcessKurtosis(std::span<const double> values);
// sum_{t < n - lag} (x_t - m)(x_{t+lag} - m) / sum_t (x_t - m)^2. NaN for a
// constant series or a lag outside 1..n-1.
double Autocorrelation(std::span<const double> values, int lag);
// The Hill estimator (Hill 1975) on |values| sorted in descending order:
// k / sum_{i < k} log(x_(i) / x_(k)) with k = floor(tail_fraction * n). NaN
// when tail_fraction is not in (0, 1), k < 1, x_(k) is 0 or the tail is
// constant (where the branch raises ValueError).
double HillTailIndex(std::span<const double> values,
                     double tail_fraction = kHillTailFraction);

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
