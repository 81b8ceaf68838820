// Charts of a simulation's steps, drawn with cairo: per market, the market
// and fundamental prices over time with the session boundaries marked, and
// the executed volume in a panel below. PNG or SVG by the file's extension.
// Thread-safe (each call draws its own surface).

#ifndef PAMS_ANALYSIS_CHART_H_
#define PAMS_ANALYSIS_CHART_H_

#include <string>

#include "pams/analysis/steps_table.h"

namespace pams::analysis {

struct ChartOptions {
  int width = 1200;   // pixels (PNG) or points (SVG)
  int height = 800;
  std::string title;  // empty: none
};

// Writes the chart of table to path (".png" or ".svg"). Throws ConfigError
// naming the path if the extension is neither or the file cannot be
// written.
void WriteChart(const StepsTable& table, const std::string& path,
                const ChartOptions& options = {});

}  // namespace pams::analysis

#endif  // PAMS_ANALYSIS_CHART_H_
