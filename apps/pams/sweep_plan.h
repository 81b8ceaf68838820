// What a pams sweep runs: the command's options, and the plan they make, the
// cartesian product of the grid's points with the seeds, each run with its
// directory name and the --set assignments of its point. The plan is a pure
// function of the options, so that every process of a sweep (the local
// coordinator, each MPI rank) makes the same one.

#ifndef PAMS_APPS_PAMS_SWEEP_PLAN_H_
#define PAMS_APPS_PAMS_SWEEP_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "pams/config/json.h"

namespace pams::cli {

// The options of `pams sweep`.
struct SweepOptions {
  std::string config;
  std::string seeds;
  int jobs = 0;  // 0: one per CPU
  std::string out;
  std::vector<std::string> sets;
  std::vector<std::string> grid;  // --grid KEY=JSON_ARRAY, in the order given
  std::vector<std::string> plugins;
  std::string runner = "SequentialRunner";
  std::vector<int64_t> sessions;  // --session: the summary's sessions (all if empty)
  bool quiet = false;
};

// The most runs one sweep may have (points times seeds).
constexpr int64_t kMaxRuns = 1'000'000;

// Parses --seeds: comma-separated seeds and ranges A-B (A <= B, both
// included), e.g. "1-100", "1,5,9", "1-10,20-30", into the seeds in the given
// order. Throws ConfigError naming --seeds on anything else, on a seed given
// twice, and on more than kMaxRuns seeds.
std::vector<int64_t> ParseSeeds(const std::string& text);

// The seeds as the shortest --seeds text in their order ("1-40,50").
std::string FormatSeeds(const std::vector<int64_t>& seeds);

// One --grid axis: a config key (as in --set) and the values it takes.
struct GridAxis {
  std::string key;
  std::vector<Json> values;
};

// Parses --grid KEY=JSON_ARRAY (a non-empty array of distinct values).
// Throws ConfigError naming the --grid on anything else, and on a key given
// twice or also given to --set (which value would win is not obvious).
std::vector<GridAxis> ParseGrid(const std::vector<std::string>& grid,
                                const std::vector<std::string>& sets);

// One run of a sweep.
struct SweepRun {
  size_t point = 0;  // index into SweepPlan::points()
  int64_t seed = 0;
};

class SweepPlan {
 public:
  // Throws ConfigError for bad --seeds or --grid, and for more than
  // kMaxRuns runs.
  explicit SweepPlan(const SweepOptions& options);

  const std::vector<GridAxis>& grid() const { return grid_; }
  const std::vector<int64_t>& seeds() const { return seeds_; }
  // Point-major: every seed of point 0, then of point 1, ...
  const std::vector<SweepRun>& runs() const { return runs_; }
  // The number of grid points (1 without --grid).
  size_t points() const { return points_; }

  // Per grid axis, the value the point takes (compact JSON text).
  std::vector<std::string> PointValues(size_t point) const;
  // The point's values as --set assignments ("KEY=JSON").
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
  std::vector<GridAxis> grid_;
  std::vector<int64_t> seeds_;
  size_t points_ = 1;
  std::vector<SweepRun> runs_;
};

}  // namespace pams::cli

#endif  // PAMS_APPS_PAMS_SWEEP_PLAN_H_
