// StepsTable: a `pams run --steps-csv` file read back into per-market series,
// for charts (chart.h), stylized facts (stylized_facts.h) and sweeps.
//
// Values are stored as read: an empty field (PAMS's None) is NaN. Rows of a
// market keep the file's order. Immutable once read; may be shared between
// threads for reading.

#ifndef PAMS_SRC_ANALYSIS_STEPS_TABLE_H_
#define PAMS_SRC_ANALYSIS_STEPS_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pams::analysis {

// One market's rows, one element per step.
struct MarketSteps {
  int64_t market_id = 0;
  std::string market_name;
  std::vector<int64_t> session_id;
  std::vector<int64_t> market_time;
  std::vector<double> market_price;
  std::vector<double> fundamental_price;
  std::vector<double> executed_volume;
};

struct StepsTable {
  // In order of first appearance in the file (market-id order for files
  // written by pams run).
  std::vector<MarketSteps> markets;

  // Reads a steps CSV (the header of StepsCsvLogger; other columns are
  // ignored, so that files with extra columns still read). Throws
  // ConfigError naming the file, line and column on a missing file, a
  // missing column or a malformed number. An interrupted run's file reads up
  // to its last complete row.
  static StepsTable ReadCsv(const std::string& path);

  // The rows of the given sessions only (e.g. without a warm-up session
  // whose flat prices would distort return statistics); markets left with
  // no row are dropped.
  StepsTable OnlySessions(const std::vector<int64_t>& session_ids) const;
};

// name for a one-line display (a table row, a chart heading): line breaks,
// tabs and other control characters shown as \n, \r, \t and \xNN, so that
// a market named "a\nb" does not break the line.
std::string PrintableName(const std::string& name);

}  // namespace pams::analysis

#endif  // PAMS_SRC_ANALYSIS_STEPS_TABLE_H_
