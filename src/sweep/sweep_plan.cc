// What a sweep runs (see sweep_plan.h).

#include "sweep/sweep_plan.h"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "pams/errors.h"
#include "support/int_ranges.h"

namespace pams::sweep {

namespace {

// A non-negative integer that fits in int64, or a ConfigError naming what.
int64_t ParseSeed(const std::string& text, const std::string& item, const std::string& what) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || text[0] == '+' || text[0] == '-' || error != std::errc() ||
      ptr != end) {
    throw ConfigError(what, "expected seeds such as 1-100 or 1,5,9 (non-negative integers "
                            "and ranges A-B), got \"" + item + "\"");
  }
  return value;
}

}  // namespace

SweepNames CliNames() { return {"--seeds", "--grid", "--set", "--runner"}; }

SweepNames PythonNames() { return {"seeds", "grid", "sets", "runner"}; }

std::vector<int64_t> ParseSeeds(const std::string& text, const std::string& what) {
  std::vector<int64_t> seeds;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) throw ConfigError(what, "an empty item in \"" + text + "\"");
    const size_t dash = item.find('-');
    int64_t first = 0;
    int64_t last = 0;
    if (dash == std::string::npos) {
      first = last = ParseSeed(item, item, what);
    } else {
      first = ParseSeed(item.substr(0, dash), item, what);
      last = ParseSeed(item.substr(dash + 1), item, what);
      if (first > last) {
        throw ConfigError(what, "a range A-B needs A <= B, got \"" + item + "\"");
      }
    }
    // Checked before the range is expanded, so that 0-999999999999 fails
    // at once.
    if (last - first >= kMaxRuns - static_cast<int64_t>(seeds.size())) {
      throw ConfigError(what, fmt::format("at most {} runs", kMaxRuns));
    }
    for (int64_t k = 0; k <= last - first; ++k) seeds.push_back(first + k);
  }
  if (!text.empty() && text.back() == ',') {
    throw ConfigError(what, "an empty item in \"" + text + "\"");
  }
  if (seeds.empty()) {
    throw ConfigError(what, "expected seeds such as 1-100 or 1,5,9, got \"" + text + "\"");
  }
  std::vector<int64_t> sorted = seeds;
  std::sort(sorted.begin(), sorted.end());
  const auto repeated = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeated != sorted.end()) {
    throw ConfigError(what, fmt::format("a seed is given twice: {}", *repeated));
  }
  return seeds;
}

std::string FormatSeeds(const std::vector<int64_t>& seeds) { return FormatIntRanges(seeds); }

std::vector<GridAxis> ParseGrid(const std::vector<Assignment>& grid,
                                const std::vector<Assignment>& sets, const SweepNames& names) {
  std::vector<GridAxis> axes;
  for (const Assignment& assignment : grid) {
    if (assignment.key.empty()) {
      throw ConfigError(names.grid, "an empty key: expected a config key such as "
                                    "FCNAgents.fundamentalWeight");
    }
    GridAxis axis;
    axis.key = assignment.key;
    const std::string what = names.grid + " " + axis.key;
    const Json values = ParseJson(assignment.value, what);
    if (!values.is_array() || values.empty()) {
      throw ConfigError(what, "expected a non-empty JSON array of the values the key "
                              "takes, e.g. [0.5, 1.0], got " + assignment.value);
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
    for (const Assignment& set : sets) {
      if (set.key == axis.key) {
        throw ConfigError(what, "the key is also given to " + names.sets +
                                    "; give it to one of them: with a key also in " +
                                    names.sets + ", which value a run takes is not obvious");
      }
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

SweepPlan::SweepPlan(const SweepSpec& spec)
    : names_(spec.names),
      grid_(ParseGrid(spec.grid, spec.sets, spec.names)),
      sets_(spec.sets),
      seeds_(ParseSeeds(spec.seeds, spec.names.seeds)) {
  for (const GridAxis& axis : grid_) {
    if (points_ * axis.values.size() * seeds_.size() > static_cast<size_t>(kMaxRuns)) {
      throw ConfigError(names_.grid, fmt::format("at most {} runs (grid points times seeds)",
                                                 kMaxRuns));
    }
    points_ *= axis.values.size();
  }
  runs_.reserve(points_ * seeds_.size());
  for (size_t point = 0; point < points_; ++point) {
    for (int64_t seed : seeds_) runs_.push_back({point, seed});
  }
}

std::vector<std::string> SweepPlan::Keys() const {
  std::vector<std::string> keys;
  for (const GridAxis& axis : grid_) keys.push_back(axis.key);
  return keys;
}

Json SweepPlan::ApplySets(Json config) const {
  for (const Assignment& set : sets_) ApplyAssignment(set, names_.sets, &config);
  return config;
}

std::vector<std::string> SweepPlan::PointValues(size_t point) const {
  // The last axis varies fastest, as in nested loops over the grid's keys
  // in the order given.
  std::vector<std::string> values(grid_.size());
  for (size_t a = grid_.size(); a-- > 0;) {
    const size_t n = grid_[a].values.size();
    values[a] = grid_[a].values[point % n].dump();
    point /= n;
  }
  return values;
}

std::vector<Assignment> SweepPlan::PointAssignments(size_t point) const {
  const std::vector<std::string> values = PointValues(point);
  std::vector<Assignment> assignments;
  for (size_t a = 0; a < grid_.size(); ++a) assignments.push_back({grid_[a].key, values[a]});
  return assignments;
}

std::vector<std::string> SweepPlan::PointSets(size_t point) const {
  std::vector<std::string> sets;
  for (const Assignment& assignment : PointAssignments(point)) {
    sets.push_back(AssignmentText(assignment));
  }
  return sets;
}

std::string SweepPlan::PointText(size_t point) const {
  return AssignmentsText(PointAssignments(point));
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

std::string AssignmentsText(const std::vector<Assignment>& assignments) {
  std::string text;
  for (const Assignment& assignment : assignments) {
    if (!text.empty()) text += ", ";
    text += AssignmentText(assignment);
  }
  return text;
}

}  // namespace pams::sweep
