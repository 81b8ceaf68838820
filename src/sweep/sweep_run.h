// One run of a sweep as `pams sweep` makes it, shared by the pams tool's
// sweep workers and by pams_cpp.sweep's tasks: the run's config (the
// sweep's config with its grid point's values), its runner (the class, the
// seed's generator, the config's directory), the check of every grid point
// before any run, and the run's facts with its point for the summary.
//
// What differs between the faces stays with them: the tool's run writes
// the files of `pams run` (steps.csv, agents.csv, stdout.txt) in its run
// directory and summarizes all runs at the end, as earlier sweeps' runs on
// the same directory count too; a Python task runs in memory but for its
// steps CSV and returns its own summary rows (RunInProcess).
//
// Thread safety: no shared state; a registry may serve many threads.

#ifndef PAMS_SRC_SWEEP_SWEEP_RUN_H_
#define PAMS_SRC_SWEEP_SWEEP_RUN_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/sweep_summary.h"
#include "pams/config/json.h"
#include "pams/logs/logger.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"
#include "sweep/sweep_plan.h"

namespace pams::sweep {

using WarningHandler = std::function<void(std::string_view)>;

// Where and how the runs of a sweep run: what every run shares.
struct RunSite {
  std::string config_directory;  // the config's relative paths start here
  std::string runner;            // the runner class of every run
  SweepNames names;
};

// The config of a run at a grid point: config (the sweep's sets already
// applied) with the point's values. Throws ConfigError naming names.grid.
Json PointConfig(Json config, const std::vector<Assignment>& point, const SweepNames& names);

// The runner of one run: site.runner from the registry, with settings, the
// generator `pams run --seed S` makes, site.config_directory, logger (may
// be null) and warn (empty: stderr). Throws ConfigError naming
// site.names.runner for an unknown class, or for bad settings.
std::unique_ptr<Runner> MakeRunner(const ClassRegistry& registry, Json settings, int64_t seed,
                                   const RunSite& site, Logger* logger, WarningHandler warn);

// Sets up each grid point of the plan once, with its first seed, as its
// runs will be set up: the config's errors stop a sweep before any run, and
// its warnings (keys no class reads, deprecated keys) go to warn once per
// point rather than into every run. config has the sets applied. Throws the
// first ConfigError, as "NAMES.grid point K (KEY=V, ...): why" with a grid.
void CheckPoints(const ClassRegistry& registry, const SweepPlan& plan, const Json& config,
                 const RunSite& site, const WarningHandler& warn);

// A run whose facts the summary has: its point, its seed and its steps CSV.
struct RunRecord {
  size_t point = 0;
  std::vector<std::string> point_values;  // per grid key, JSON text
  int64_t seed = 0;
  std::string steps_csv;
};

// The facts of each run (analysis::ComputeRunFacts on up to `threads`
// threads, from the rows of `sessions` only if it is not empty), each with
// its point, in the order of runs. Never throws for a bad steps CSV: that
// run's error says what is wrong.
std::vector<analysis::RunFacts> RunsFacts(const std::vector<RunRecord>& runs, int threads,
                                          const std::vector<int64_t>& sessions);

// One run in this process, as a pams_cpp.sweep task makes it: the point's
// config, the runner (warnings dropped: CheckPoints showed them), its step
// rows to steps_csv, then its facts. Throws ConfigError for bad input and
// SimulationError when the run fails or its steps cannot be summarized.
analysis::RunFacts RunInProcess(const ClassRegistry& registry, const Json& config,
                                const std::vector<Assignment>& point, int64_t seed,
                                const RunSite& site, const std::vector<int64_t>& sessions,
                                const std::string& steps_csv);

}  // namespace pams::sweep

#endif  // PAMS_SRC_SWEEP_SWEEP_RUN_H_
