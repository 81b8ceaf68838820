// The subcommands of the pams tool. Each registers its options on the CLI11
// app and returns the function that runs it (returning the exit status).

#ifndef PAMS_APPS_PAMS_COMMANDS_H_
#define PAMS_APPS_PAMS_COMMANDS_H_

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "pams/config/json.h"
#include "pams/runners/class_registry.h"

namespace pams::cli {

// Exit statuses: 0 success, 1 the run failed, 2 bad input (config, flags,
// plugin, output path).
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

// One per subcommand, each in its own file (run_command.cc, ...). The
// function may throw ConfigError for bad input: main prints it and exits
// with kExitBadInput.
std::function<int()> AddRunCommand(CLI::App* app);
std::function<int()> AddValidateCommand(CLI::App* app);
std::function<int()> AddPlotCommand(CLI::App* app);
std::function<int()> AddStatsCommand(CLI::App* app);
std::function<int()> AddSweepCommand(CLI::App* app);

// The built-in classes, the pams command's own (RegisterCliClasses) and
// those of the plugins, loaded in order. Throws ConfigError naming a plugin
// that cannot be loaded.
pams::ClassRegistry LoadRegistry(const std::vector<std::string>& plugins);

// The config at path with each `--set KEY=JSON` applied in order: KEY is a
// dotted path with [i] for list elements (simulation.sessions[1].
// maxNormalOrders). Throws ConfigError naming the file (with line and
// column for bad JSON) or the --set.
Json LoadConfig(const std::string& path, const std::vector<std::string>& sets);
void ApplySet(const std::string& assignment, Json* config);

// The classes the pams command adds to the built-ins (TensorFlow's), in its
// own registry and in its worker processes.
void RegisterCliClasses(pams::ClassRegistry* registry);

}  // namespace pams::cli

#endif  // PAMS_APPS_PAMS_COMMANDS_H_
