// Axis ticks for charts: "nice" tick values (1, 2 or 5 times a power of ten)
// and their labels, so that axes read 290, 295, 300 rather than 291.37,
// 296.12, ... Private to pams_analysis (chart.cc). Pure functions;
// thread-safe.

#ifndef PAMS_SRC_ANALYSIS_CHART_TICKS_H_
#define PAMS_SRC_ANALYSIS_CHART_TICKS_H_

#include <string>
#include <vector>

namespace pams::analysis {

struct AxisTicks {
  double lo = 0;  // the axis range
  double hi = 1;
  double step = 1;             // between ticks
  std::vector<double> values;  // the ticks in [lo, hi], ascending
  int decimals = 0;            // decimals that tell every tick apart
};

// About `target` ticks covering [min, max], at least `min_step` apart (1
// for axes of whole numbers such as steps and volumes; 0 for none). With
// widen, the range is widened to the ticks around it (for prices and
// volumes: the axis ends on a labelled value); without, it is [min, max]
// (for time). A range of one value is widened around it, since an axis
// needs a span.
// REQUIRES: min <= max, both finite; target >= 1; min_step >= 0.
AxisTicks NiceTicks(double min, double max, int target, double min_step,
                    bool widen);

// The label of a tick: value with `decimals` decimals, "-0" written "0".
std::string FormatTick(double value, int decimals);

}  // namespace pams::analysis

#endif  // PAMS_SRC_ANALYSIS_CHART_TICKS_H_
