// What a pams sweep runs (see sweep_plan.h).

#include "sweep_plan.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include <fmt/format.h>

#include "pams/errors.h"
#include "util/int_ranges.h"

namespace pams::cli {

namespace {

// A non-negative integer that fits in int64, or a ConfigError naming --seeds.
int64_t ParseSeed(const std::string& text, const std::string& item) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || text[0] == '+' || text[0] == '-' || error != std::errc() ||
      ptr != end) {
    throw ConfigError("--seeds", "expected a non-negative integer or a range A-B, "
                                 "got \"" + item + "\"");
  }
  return value;
}

// The key of a --set or --grid assignment (the text before '=').
std::string AssignmentKey(const std::string& assignment) {
  return assignment.substr(0, assignment.find('='));
}

}  // namespace

std::vector<int64_t> ParseSeeds(const std::string& text) {
  std::vector<int64_t> seeds;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) {
      throw ConfigError("--seeds", "an empty item in \"" + text + "\"");
    }
    const size_t dash = item.find('-');
    int64_t first = 0;
    int64_t last = 0;
    if (dash == std::string::npos) {
      first = last = ParseSeed(item, item);
    } else {
      first = ParseSeed(item.substr(0, dash), item);
      last = ParseSeed(item.substr(dash + 1), item);
      if (first > last) {
        throw ConfigError("--seeds", "a range A-B needs A <= B, got \"" + item + "\"");
      }
    }
    // Checked before the range is expanded, so that 0-999999999999 fails
    // at once.
    if (last - first >= kMaxRuns - static_cast<int64_t>(seeds.size())) {
      throw ConfigError("--seeds", fmt::format("at most {} runs", kMaxRuns));
    }
    for (int64_t k = 0; k <= last - first; ++k) seeds.push_back(first + k);
  }
  if (!text.empty() && text.back() == ',') {
    throw ConfigError("--seeds", "an empty item in \"" + text + "\"");
  }
  if (seeds.empty()) {
    throw ConfigError("--seeds", "expected seeds such as 1-100 or 1,5,9, got \"" +
                                     text + "\"");
  }
  std::vector<int64_t> sorted = seeds;
  std::sort(sorted.begin(), sorted.end());
  const auto repeated = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeated != sorted.end()) {
    throw ConfigError("--seeds", fmt::format("seed {} is given twice", *repeated));
  }
  return seeds;
}

std::string FormatSeeds(const std::vector<int64_t>& seeds) {
  return FormatIntRanges(seeds);
}

std::vector<GridAxis> ParseGrid(const std::vector<std::string>& grid,
                                const std::vector<std::string>& sets) {
  std::vector<GridAxis> axes;
  for (const std::string& assignment : grid) {
    const size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError("--grid", "expected KEY=JSON_ARRAY, e.g. "
                                  "'FCNAgents.fundamentalWeight=[0.5,1.0]', got \"" +
                                      assignment + "\"");
    }
    GridAxis axis;
    axis.key = assignment.substr(0, eq);
    const std::string what = "--grid " + axis.key;
    const Json values = ParseJson(assignment.substr(eq + 1), what);
    if (!values.is_array() || values.empty()) {
      throw ConfigError(what, "expected a non-empty JSON array of the values the key "
                              "takes, e.g. [0.5, 1.0], got " +
                                  assignment.substr(eq + 1));
    }
    for (const Json& value : values) {
      if (std::find(axis.values.begin(), axis.values.end(), value) != axis.values.end()) {
        throw ConfigError(what, "the value " + value.dump() + " is given twice");
      }
      axis.values.push_back(value);
    }
    for (const GridAxis& other : axes) {
      if (other.key == axis.key) throw ConfigError(what, "the key is given twice");
    }
    for (const std::string& set : sets) {
      if (AssignmentKey(set) == axis.key) {
        throw ConfigError(what, "the key is also given to --set; give it to one of them");
      }
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

SweepPlan::SweepPlan(const SweepOptions& options)
    : grid_(ParseGrid(options.grid, options.sets)), seeds_(ParseSeeds(options.seeds)) {
  for (const GridAxis& axis : grid_) {
    if (points_ * axis.values.size() * seeds_.size() > static_cast<size_t>(kMaxRuns)) {
      throw ConfigError("--grid", fmt::format("at most {} runs (grid points times seeds)",
                                              kMaxRuns));
    }
    points_ *= axis.values.size();
  }
  runs_.reserve(points_ * seeds_.size());
  for (size_t point = 0; point < points_; ++point) {
    for (int64_t seed : seeds_) runs_.push_back({point, seed});
  }
}

std::vector<std::string> SweepPlan::PointValues(size_t point) const {
  // The last axis varies fastest, as in nested loops over the --grid flags
  // in the order given.
  std::vector<std::string> values(grid_.size());
  for (size_t a = grid_.size(); a-- > 0;) {
    const size_t n = grid_[a].values.size();
    values[a] = grid_[a].values[point % n].dump();
    point /= n;
  }
  return values;
}

std::vector<std::string> SweepPlan::PointSets(size_t point) const {
  std::vector<std::string> sets = PointValues(point);
  for (size_t a = 0; a < grid_.size(); ++a) sets[a] = grid_[a].key + "=" + sets[a];
  return sets;
}

std::string SweepPlan::PointText(size_t point) const {
  std::string text;
  for (const std::string& set : PointSets(point)) {
    if (!text.empty()) text += ", ";
    text += set;
  }
  return text;
}

Json SweepPlan::PointObject(size_t point) const {
  const std::vector<std::string> values = PointValues(point);
  Json object = Json::object();
  for (size_t a = 0; a < grid_.size(); ++a) object[grid_[a].key] = Json::parse(values[a]);
  return object;
}

std::string SweepPlan::RunName(const SweepRun& run) const {
  if (grid_.empty()) return fmt::format("seed-{}", run.seed);
  return fmt::format("p{}-seed-{}", run.point, run.seed);
}

bool SweepPlan::IsRunName(const std::string& name) {
  if (name.rfind("seed-", 0) == 0) return true;
  if (name.size() < 2 || name[0] != 'p') return false;
  size_t i = 1;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
  return i > 1 && name.compare(i, 6, "-seed-") == 0;
}

Json SweepPlan::GridRecord() const {
  Json record = Json::array();
  for (const GridAxis& axis : grid_) record.push_back({axis.key, axis.values});
  return record;
}

}  // namespace pams::cli
