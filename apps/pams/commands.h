// The subcommands of the pams tool. Each registers its options on the CLI11
// app and returns the function that runs it (returning the exit status).

#ifndef PAMS_APPS_PAMS_COMMANDS_H_
#define PAMS_APPS_PAMS_COMMANDS_H_

#include <functional>

#include <CLI/CLI.hpp>

namespace pams::cli {

// Exit statuses: 0 success, 1 the run failed, 2 bad input (config, flags,
// plugin, output path).
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

std::function<int()> AddRunCommand(CLI::App* app);

}  // namespace pams::cli

#endif  // PAMS_APPS_PAMS_COMMANDS_H_
