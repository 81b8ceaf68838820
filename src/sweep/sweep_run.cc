// One run of a sweep (see sweep_run.h).

#include "sweep/sweep_run.h"

#include <string>
#include <utility>

#include <fmt/format.h>

#include "pams/errors.h"
#include "pams/logs/csv_loggers.h"
#include "pams/random/random.h"
#include "pams/simulator/simulator.h"

namespace pams::sweep {

Json PointConfig(Json config, const std::vector<Assignment>& point, const SweepNames& names) {
  for (const Assignment& assignment : point) ApplyAssignment(assignment, names.grid, &config);
  return config;
}

std::unique_ptr<Runner> MakeRunner(const ClassRegistry& registry, Json settings, int64_t seed,
                                   const RunSite& site, Logger* logger, WarningHandler warn) {
  // The decimal text, as `pams run --seed S` seeds its generator.
  return registry.create_runner(
      site.runner,
      RunnerSetUp{std::move(settings), Random::FromDecimalSeed(std::to_string(seed)), logger,
                  site.config_directory, std::move(warn)},
      site.names.runner);
}

void CheckPoints(const ClassRegistry& registry, const SweepPlan& plan, const Json& config,
                 const RunSite& site, const WarningHandler& warn) {
  for (size_t point = 0; point < plan.points(); ++point) {
    const std::vector<Assignment> assignments = plan.PointAssignments(point);
    try {
      MakeRunner(registry, PointConfig(config, assignments, plan.names()),
                 plan.seeds().front(), site, nullptr, warn)
          ->setup();
    } catch (const ConfigError& e) {
      if (assignments.empty()) throw;
      throw ConfigError(fmt::format("{} point {} ({})", plan.names().grid, point,
                                    AssignmentsText(assignments)),
                        e.what());
    }
  }
}

std::vector<analysis::RunFacts> RunsFacts(const std::vector<RunRecord>& runs, int threads,
                                          const std::vector<int64_t>& sessions) {
  std::vector<int64_t> seeds;
  std::vector<std::string> steps_csv;
  for (const RunRecord& run : runs) {
    seeds.push_back(run.seed);
    steps_csv.push_back(run.steps_csv);
  }
  std::vector<analysis::RunFacts> facts =
      analysis::ComputeRunFacts(seeds, steps_csv, threads, sessions);
  for (size_t i = 0; i < facts.size(); ++i) {
    facts[i].point = runs[i].point;
    facts[i].point_values = runs[i].point_values;
  }
  return facts;
}

analysis::RunFacts RunInProcess(const ClassRegistry& registry, const Json& config,
                                const std::vector<Assignment>& point, int64_t seed,
                                const RunSite& site, const std::vector<int64_t>& sessions,
                                const std::string& steps_csv) {
  RunRecord record{0, {}, seed, steps_csv};
  for (const Assignment& assignment : point) {
    // Compact JSON text, as the plan gives a point's values to the CLI's runs.
    record.point_values.push_back(
        ParseJson(assignment.value, site.names.grid + " " + assignment.key).dump());
  }
  {
    Loggers loggers;
    StepsCsvLogger steps(steps_csv);
    loggers.add(&steps);
    std::unique_ptr<Runner> runner =
        MakeRunner(registry, PointConfig(config, point, site.names), seed, site, &loggers,
                   [](std::string_view) {});
    runner->setup();
    runner->run();
  }  // The steps CSV is complete once its logger is gone.
  analysis::RunFacts facts = RunsFacts({record}, 1, sessions).front();
  if (!facts.error.empty()) throw SimulationError(facts.error);
  return facts;
}

}  // namespace pams::sweep
