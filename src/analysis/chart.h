// Charts of a simulation's steps, drawn with cairo: per market, the market
// price and the fundamental price over time with the session boundaries
// marked (dashed lines, "session N"), and the executed volume in a panel
// below. Up to 4 markets get a price and a volume panel each, stacked; more
// markets (or too little height for a panel each) share one price panel, a
// colour per market, and one panel of stacked volumes. NaN prices are gaps in
// the lines. PNG or SVG by the file's extension.
//
// Thread-safe (each call draws its own surface).

#ifndef PAMS_SRC_ANALYSIS_CHART_H_
#define PAMS_SRC_ANALYSIS_CHART_H_

#include <string>

#include "analysis/steps_table.h"

namespace pams::analysis {

// The sizes WriteChart accepts, in pixels (PNG) or CSS pixels (SVG).
inline constexpr int kMinChartWidth = 320;
inline constexpr int kMinChartHeight = 240;
inline constexpr int kMaxChartSize = 8192;

struct ChartOptions {
  int width = 1200;
  int height = 800;
  std::string title;  // empty: none
};

// Writes the chart of table to path (".png" or ".svg", in any case). The
// file is written beside path under a temporary name and renamed into place,
// so that a failure leaves no partial chart (and an existing file at path
// untouched). Throws ConfigError naming the path if the extension is
// neither, the size is out of range, the table has no rows or the file
// cannot be written.
void WriteChart(const StepsTable& table, const std::string& path,
                const ChartOptions& options = {});

// Checks, before a long run, that WriteChart could write path: its
// extension, and that a file can be created beside it. Throws ConfigError
// naming the path.
void CheckChartPath(const std::string& path);

}  // namespace pams::analysis

#endif  // PAMS_SRC_ANALYSIS_CHART_H_
