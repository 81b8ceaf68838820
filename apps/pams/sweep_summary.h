// The summary of a pams sweep: the stylized facts of every completed run,
// computed from its steps.csv, written as DIR/summary.csv (one row per seed
// and market) and DIR/summary.json (every fact, arrays included), and an
// aggregate across seeds per market for the terminal.

#ifndef PAMS_APPS_PAMS_SWEEP_SUMMARY_H_
#define PAMS_APPS_PAMS_SWEEP_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/stylized_facts.h"

namespace pams::cli {

// The facts of one run.
struct RunFacts {
  int64_t seed = 0;
  std::vector<analysis::StylizedFacts> markets;
  // Per market, in the order of `markets`: market_price of its last row
  // (NaN if that row has none).
  std::vector<double> final_market_price;
  // Non-empty if the steps CSV could not be read (markets is then empty).
  std::string error;
};

// Reads steps_csv[i] (the steps CSV of the run of seeds[i]) and computes its
// facts, on up to `threads` threads, from the rows of the given sessions
// only (all rows if sessions is empty; StepsTable::OnlySessions). Never
// throws for a bad file: the result's error says what is wrong (also when
// no row belongs to the sessions). The result has the order of seeds.
std::vector<RunFacts> ComputeRunFacts(const std::vector<int64_t>& seeds,
                                      const std::vector<std::string>& steps_csv,
                                      int threads,
                                      const std::vector<int64_t>& sessions = {});

// The contents of summary.csv: header seed,market_id,market_name,steps,
// return_mean,return_std,excess_kurtosis,return_acf_1,abs_return_acf_1,
// abs_return_acf_5,total_volume,mean_abs_fundamental_gap,final_market_price,
// then one row per run and market (runs with an error are left out).
// Numbers are the shortest text that reads back as the same double; an
// undefined statistic is "nan".
std::string SummaryCsv(const std::vector<RunFacts>& runs);

// The contents of summary.json: {"runs": [{"seed": S, "markets": [...]}]},
// each market as `pams stats --json` writes it (every field of
// StylizedFacts) plus final_market_price; NaN is null.
std::string SummaryJson(const std::vector<RunFacts>& runs);

// Per market (by id and name, in order of first appearance): the number of
// runs and the mean and standard deviation across runs of return_std,
// excess_kurtosis and the lag-1 autocorrelation of absolute returns, as a
// table for the terminal. Undefined values are left out of the aggregates.
std::string FormatAggregate(const std::vector<RunFacts>& runs);

// Writes content to path through a temporary file renamed over it, so that
// path is never seen half-written. Throws std::runtime_error naming path.
void WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace pams::cli

#endif  // PAMS_APPS_PAMS_SWEEP_SUMMARY_H_
