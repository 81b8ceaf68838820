// What a sweep runs: the plan made of its seeds, its grid and its sets, the
// cartesian product of the grid's points with the seeds, each run with its
// directory name and the assignments of its point. `pams sweep` and
// pams_cpp.sweep both make their plan here, so that they accept the same
// input, refuse the same input with the same message (naming it as each
// face calls it: SweepNames) and run the same runs in the same order. The
// plan is a pure function of its input, so that every process of a sweep
// (the local coordinator, each MPI rank, a Python executor's workers) makes
// the same one.
//
// Internal to our two faces (the pams tool and the Python extension), not
// libpams's API: its rules are those of the CLI's flags, and it is built
// with the summary (src/analysis), which libpams does not depend on.

#ifndef PAMS_SRC_SWEEP_SWEEP_PLAN_H_
#define PAMS_SRC_SWEEP_SWEEP_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "pams/config/json.h"
#include "sweep/assignment.h"

namespace pams::sweep {

// How a face calls a sweep's inputs, for the messages that name them.
struct SweepNames {
  std::string seeds;
  std::string grid;
  std::string sets;
  std::string runner;
};

// The pams tool's flags, and pams_cpp.sweep's arguments.
SweepNames CliNames();
SweepNames PythonNames();

// The most runs one sweep may have (points times seeds).
constexpr int64_t kMaxRuns = 1'000'000;

// Parses seeds text: comma-separated seeds and ranges A-B (A <= B, both
// included), e.g. "1-100", "1,5,9", "1-10,20-30", into the seeds in the given
// order. Throws ConfigError naming `what` on anything else, on a seed given
// twice, and on more than kMaxRuns seeds.
std::vector<int64_t> ParseSeeds(const std::string& text, const std::string& what = "--seeds");

// The seeds as the shortest seeds text in their order ("1-40,50").
std::string FormatSeeds(const std::vector<int64_t>& seeds);

// One grid axis: a config key (as in an Assignment) and the values it takes.
struct GridAxis {
  std::string key;
  std::vector<Json> values;
};

// Parses grid assignments KEY=JSON_ARRAY (each a non-empty array of distinct
// values). Throws ConfigError naming names.grid and the key on anything
// else, and on a key given twice or also given to the sets (which value
// would win is not obvious).
std::vector<GridAxis> ParseGrid(const std::vector<Assignment>& grid,
                                const std::vector<Assignment>& sets, const SweepNames& names);

// What a plan is made of.
struct SweepSpec {
  std::string seeds;                // seeds text, as ParseSeeds reads it
  std::vector<Assignment> grid;     // in the order given
  std::vector<Assignment> sets;     // applied to every run
  SweepNames names = CliNames();
};

// One run of a sweep.
struct SweepRun {
  size_t point = 0;  // index into SweepPlan::points()
  int64_t seed = 0;
};

class SweepPlan {
 public:
  // Throws ConfigError for bad seeds or grid, and for more than kMaxRuns
  // runs.
  explicit SweepPlan(const SweepSpec& spec);

  const SweepNames& names() const { return names_; }
  const std::vector<GridAxis>& grid() const { return grid_; }
  const std::vector<Assignment>& sets() const { return sets_; }
  const std::vector<int64_t>& seeds() const { return seeds_; }
  // Point-major: every seed of point 0, then of point 1, ...
  const std::vector<SweepRun>& runs() const { return runs_; }
  // The number of grid points (1 without a grid).
  size_t points() const { return points_; }
  // The grid's keys, in order.
  std::vector<std::string> Keys() const;

  // The config with the sets applied, in order. Throws ConfigError naming
  // names().sets and the key for a set that does not apply.
  Json ApplySets(Json config) const;

  // Per grid axis, the value the point takes (compact JSON text).
  std::vector<std::string> PointValues(size_t point) const;
  // The point's values as assignments, one per axis.
  std::vector<Assignment> PointAssignments(size_t point) const;
  // The point's values as --set texts ("KEY=JSON").
  std::vector<std::string> PointSets(size_t point) const;
  // The point's assignments for messages: "KEY=1, KEY2=0.5".
  std::string PointText(size_t point) const;
  // The point's values as a JSON object {KEY: value}.
  Json PointObject(size_t point) const;
  // The run's directory under DIR/runs: "seed-S", or "pK-seed-S" with a grid.
  std::string RunName(const SweepRun& run) const;
  // Whether a name in DIR/runs belongs to a run (completed, partial or
  // failed) of some sweep.
  static bool IsRunName(const std::string& name);

  // The grid as sweep.json records it ([[KEY, [values]], ...]).
  Json GridRecord() const;

 private:
  SweepNames names_;
  std::vector<GridAxis> grid_;
  std::vector<Assignment> sets_;
  std::vector<int64_t> seeds_;
  size_t points_ = 1;
  std::vector<SweepRun> runs_;
};

// "KEY=1, KEY2=0.5": assignments as messages show them.
std::string AssignmentsText(const std::vector<Assignment>& assignments);

}  // namespace pams::sweep

#endif  // PAMS_SRC_SWEEP_SWEEP_PLAN_H_
