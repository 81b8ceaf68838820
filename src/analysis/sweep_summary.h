// The summary of a pams sweep: the stylized facts of every completed run,
// computed from its steps.csv, written as DIR/summary.csv (one row per run
// and market), DIR/summary.json (every fact, arrays included) and
// DIR/aggregate.csv (per grid point and market, each fact's mean and spread
// across seeds), and an aggregate across seeds for the terminal.
//
// `keys` are the grid's keys (empty without a grid); each run's
// point_values are the values its point gives them, as JSON text. Used by
// pams sweep and by pams_cpp.sweep, so that both write the same bytes.

#ifndef PAMS_SRC_ANALYSIS_SWEEP_SUMMARY_H_
#define PAMS_SRC_ANALYSIS_SWEEP_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/stylized_facts.h"

namespace pams::analysis {

// The facts of one run.
struct RunFacts {
  int64_t seed = 0;
  size_t point = 0;                       // the grid point (0 without a grid)
  std::vector<std::string> point_values;  // per grid key, JSON text
  std::vector<StylizedFacts> markets;
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

// The contents of summary.csv: header [the grid's keys,]seed,market_id,
// market_name,steps,return_mean,return_std,excess_kurtosis,return_acf_1,
// abs_return_acf_1,abs_return_acf_5,total_volume,mean_abs_fundamental_gap,
// final_market_price, then one row per run and market (runs with an error
// are left out). A key's column holds the point's value as JSON text.
// Numbers are the shortest text that reads back as the same double; an
// undefined statistic is "nan".
std::string SummaryCsv(const std::vector<RunFacts>& runs,
                       const std::vector<std::string>& keys = {});

// The contents of summary.json: {"runs": [{["point": {KEY: value},] "seed":
// S, "markets": [...]}]}, each market as `pams stats --json` writes it
// (every field of StylizedFacts) plus final_market_price; NaN is null.
std::string SummaryJson(const std::vector<RunFacts>& runs,
                        const std::vector<std::string>& keys = {});

// The contents of aggregate.csv: header [the grid's keys,]market_id,
// market_name,runs, then F_mean,F_std for each statistic F of summary.csv
// from return_mean on; one row per grid point and market (in order of first
// appearance). The mean and the sample standard deviation (ddof 1) are
// over the runs where F is defined; "nan" where too few are.
std::string AggregateCsv(const std::vector<RunFacts>& runs,
                         const std::vector<std::string>& keys = {});

// Per grid point and market (by id and name, in order of first appearance):
// the number of runs and the mean and standard deviation across runs of
// return_std, excess_kurtosis and the lag-1 autocorrelation of absolute
// returns, as a table for the terminal. Undefined values are left out of
// the aggregates.
std::string FormatAggregate(const std::vector<RunFacts>& runs,
                            const std::vector<std::string>& keys = {});

// Writes content to path through a temporary file renamed over it, so that
// path is never seen half-written. Throws std::runtime_error naming path.
void WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace pams::analysis

#endif  // PAMS_SRC_ANALYSIS_SWEEP_SUMMARY_H_
