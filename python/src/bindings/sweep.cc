// pams_cpp.sweep's engine side (python/pams_cpp/_sweep.py): the plan and
// its checks, and each task's run, all from the sweep core that pams sweep
// uses (src/sweep/), so that a sweep from Python accepts and refuses the
// input the CLI does, with the same messages (naming seeds, grid and sets
// as Python calls them), and its summary is the bytes of the CLI's
// summary.csv on any executor (a Dask cluster's, a process pool's).

#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>

#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "analysis/sweep_summary.h"
#include "bindings/bindings.h"
#include "interop/values.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_run.h"

namespace pams::python {

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

std::vector<sweep::Assignment> Assignments(const Pairs& pairs) {
  std::vector<sweep::Assignment> assignments;
  for (const auto& [key, value] : pairs) assignments.push_back({key, value});
  return assignments;
}

// What a sweep from Python runs, as the plan pams sweep would make of the
// same input: the config's JSON text with the sets applied, the seeds, the
// grid's keys and each point's values (JSON text, point-major as the runs
// go), and the config's warnings (each point set up once with its first
// seed), which the caller gives to Python's warnings module. config is JSON
// text, or a file's path when config_is_path (read as the CLI reads it).
// Throws ConfigError for any bad input, before any run.
std::tuple<std::string, std::vector<int64_t>, std::vector<std::string>,
           std::vector<std::vector<std::string>>, std::vector<std::string>>
SweepPlan(const std::string& config, bool config_is_path, const std::string& config_directory,
          const std::string& seeds, const Pairs& grid, const Pairs& sets,
          const std::string& runner) {
  std::vector<std::string> warnings;
  nb::gil_scoped_release release;
  const sweep::SweepPlan plan(
      {seeds, Assignments(grid), Assignments(sets), sweep::PythonNames()});
  const Json settings =
      plan.ApplySets(config_is_path ? ParseJsonFile(config) : ParseJson(config, "config"));
  sweep::CheckPoints(ClassRegistry::WithBuiltins(), plan, settings,
                     {config_directory, runner, plan.names()},
                     [&warnings](std::string_view message) { warnings.emplace_back(message); });
  std::vector<std::vector<std::string>> points;
  points.reserve(plan.points());
  for (size_t point = 0; point < plan.points(); ++point) {
    points.push_back(plan.PointValues(point));
  }
  return {settings.dump(), plan.seeds(), plan.Keys(), std::move(points), std::move(warnings)};
}

// One task of a sweep: the run of seed at the point (values[i] at keys[i])
// in this process, its step rows to steps_csv, and summary.csv's text for
// this one run (the header with the grid's keys, then its rows).
std::string SweepRun(const std::string& config, const std::string& config_directory,
                     int64_t seed, const std::string& runner,
                     const std::vector<int64_t>& sessions,
                     const std::vector<std::string>& keys,
                     const std::vector<std::string>& values, const std::string& steps_csv) {
  if (keys.size() != values.size()) {
    throw ConfigError("grid", "as many values as keys are needed");
  }
  std::vector<sweep::Assignment> point;
  for (size_t i = 0; i < keys.size(); ++i) point.push_back({keys[i], values[i]});
  nb::gil_scoped_release release;
  const Json settings = ParseJson(config, "config");
  const analysis::RunFacts facts = sweep::RunInProcess(
      ClassRegistry::WithBuiltins(), settings, point, seed,
      {config_directory, runner, sweep::PythonNames()}, sessions, steps_csv);
  return analysis::SummaryCsv({facts}, keys);
}

}  // namespace

void BindSweep(nb::module_& m) {
  m.def("_sweep_plan", &SweepPlan, nb::arg("config"), nb::arg("config_is_path"),
        nb::arg("config_directory"), nb::arg("seeds"), nb::arg("grid"), nb::arg("sets"),
        nb::arg("runner"));
  m.def("_sweep_run", &SweepRun, nb::arg("config"), nb::arg("config_directory"),
        nb::arg("seed"), nb::arg("runner"), nb::arg("sessions"), nb::arg("keys"),
        nb::arg("values"), nb::arg("steps_csv"));
}

}  // namespace pams::python
