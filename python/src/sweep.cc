// pams_cpp.sweep's task (python/pams_cpp/_sweep.py): one run of a sweep in
// this process, summarized exactly as `pams sweep` summarizes it, so that a
// sweep on any executor (a Dask cluster's, a process pool's) gives the
// bytes of the CLI's summary.csv.

#include <functional>
#include <memory>
#include <string_view>

#include "analysis/sweep_summary.h"
#include "bindings.h"
#include "pams/config/key_path.h"
#include "pams/errors.h"
#include "pams/logs/csv_loggers.h"
#include "pams/random/random.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

// The runner of one run as pams sweep makes it: the built-in classes, the
// config's directory, warnings to `warn`.
std::unique_ptr<Runner> MakeRunner(const ClassRegistry& registry, Json settings,
                                   const std::string& config_directory,
                                   const std::string& seed, const std::string& runner_name,
                                   Logger* logger,
                                   std::function<void(std::string_view)> warn) {
  return registry.create_runner(runner_name,
                                RunnerSetUp{std::move(settings), Random::FromDecimalSeed(seed),
                                            logger, config_directory, std::move(warn)},
                                "runner");
}

// Runs the config (JSON text, the point's values already set) with the
// seed, its step rows to steps_csv (read back as pams sweep reads a run's
// steps.csv), and returns summary.csv's text for this one run: the header
// with the grid's keys, then its rows with the point's values (JSON text,
// formatted as the CLI formats them).
std::string SweepRun(const std::string& config, const std::string& config_directory,
                     const std::string& seed, const std::string& runner_name,
                     const std::vector<int64_t>& sessions,
                     const std::vector<std::string>& keys,
                     const std::vector<std::string>& values, const std::string& steps_csv) {
  if (keys.size() != values.size()) {
    throw ConfigError("grid", "as many values as keys are needed");
  }
  Json settings = ParseJson(config, "config");
  {
    nb::gil_scoped_release release;
    const ClassRegistry registry = ClassRegistry::WithBuiltins();
    Loggers loggers;
    StepsCsvLogger steps(steps_csv);
    loggers.add(&steps);
    // The warnings were shown once, by the sweep's check of the config.
    std::unique_ptr<Runner> runner =
        MakeRunner(registry, std::move(settings), config_directory, seed, runner_name,
                   &loggers, [](std::string_view) {});
    runner->setup();
    runner->run();
  }
  std::vector<analysis::RunFacts> runs =
      analysis::ComputeRunFacts({std::stoll(seed)}, {steps_csv}, 1, sessions);
  if (!runs.front().error.empty()) throw SimulationError(runs.front().error);
  for (const std::string& value : values) {
    runs.front().point_values.push_back(ParseJson(value, "grid value").dump());
  }
  return analysis::SummaryCsv(runs, keys);
}

// Sets the config up as its runs will (pams sweep's check before any run):
// a ConfigError for a bad key or value. Returns its warnings, which the
// caller gives to Python's warnings module (which shows each once).
std::vector<std::string> SweepCheck(const std::string& config,
                                    const std::string& config_directory,
                                    const std::string& seed, const std::string& runner_name) {
  Json settings = ParseJson(config, "config");
  std::vector<std::string> warnings;
  nb::gil_scoped_release release;
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  MakeRunner(registry, std::move(settings), config_directory, seed, runner_name, nullptr,
             [&warnings](std::string_view message) { warnings.emplace_back(message); })
      ->setup();
  return warnings;
}

// The config (JSON text) with values[i] (JSON text) at keys[i], as --set
// sets them; a ConfigError naming `what` and the key for a key that names
// no place. One parse and one dump, whatever the number of keys.
std::string AssignKeys(const std::string& config, const std::vector<std::string>& keys,
                       const std::vector<std::string>& values, const std::string& what) {
  if (keys.size() != values.size()) {
    throw ConfigError(what, "as many values as keys are needed");
  }
  Json settings = ParseJson(config, "config");
  for (size_t i = 0; i < keys.size(); ++i) {
    AssignKeyPath(&settings, keys[i], ParseJson(values[i], what + " " + keys[i]), what);
  }
  return settings.dump();
}

}  // namespace

void BindSweep(nb::module_& m) {
  m.def("_sweep_run", &SweepRun, nb::arg("config"), nb::arg("config_directory"),
        nb::arg("seed"), nb::arg("runner"), nb::arg("sessions"), nb::arg("keys"),
        nb::arg("values"), nb::arg("steps_csv"));
  m.def("_assign_keys", &AssignKeys, nb::arg("config"), nb::arg("keys"), nb::arg("values"),
        nb::arg("what"));
  m.def("_sweep_check", &SweepCheck, nb::arg("config"), nb::arg("config_directory"),
        nb::arg("seed"), nb::arg("runner"));
}

}  // namespace pams::python
