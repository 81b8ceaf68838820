#include "chart_ticks.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace pams::analysis {

AxisTicks NiceTicks(double min, double max, int target, double min_step,
                    bool widen) {
  if (max == min) {
    const double half = min == 0 ? 1 : std::fabs(min) * 0.01;
    min -= half;
    max += half;
  }
  const double raw = (max - min) / std::max(target, 1);
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  // The nice step nearest to raw on a logarithmic scale.
  const double nice = fraction < 1.5 ? 1 : fraction < 3.5 ? 2 : fraction < 7.5 ? 5 : 10;
  AxisTicks ticks;
  ticks.step = std::max(nice * magnitude, min_step);
  ticks.lo = widen ? std::floor(min / ticks.step) * ticks.step : min;
  ticks.hi = widen ? std::ceil(max / ticks.step) * ticks.step : max;
  // Multiples of step computed from an integer index, not by adding step
  // repeatedly, so that rounding errors do not pile up; the tolerance keeps
  // the ends that rounding puts a hair outside the range. The bound on the
  // count only matters for absurd ranges (an overflow to infinity).
  const double tolerance = ticks.step * 1e-9;
  const double first = std::ceil((ticks.lo - tolerance) / ticks.step);
  for (double i = first; i < first + 1000; ++i) {
    double v = i * ticks.step;
    if (v > ticks.hi + tolerance) break;
    if (std::fabs(v) < tolerance) v = 0;
    ticks.values.push_back(v);
  }
  ticks.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(ticks.step) + 1e-9)));
  return ticks;
}

std::string FormatTick(double value, int decimals) {
  std::string text = fmt::format("{:.{}f}", value, decimals);
  // A tiny negative value rounds to "-0" or "-0.00".
  if (text[0] == '-' && text.find_first_not_of("-0.") == std::string::npos) {
    text.erase(0, 1);
  }
  return text;
}

}  // namespace pams::analysis
