// pams: run PAMS configs with pams-cpp. See `pams --help`.

#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "pams/runners/worker.h"

int main(int argc, char** argv) {
  // A worker process of a parallel runner becomes one here (and never
  // returns); the program itself continues.
  pams::InitWorkerProcess(argc, argv, &pams::cli::RegisterCliClasses);
  CLI::App app{
      "pams-cpp: PAMS (Platform for Artificial Market Simulations) in C++.\n"
      "Runs PAMS's JSON configs unchanged and gives PAMS's results, bit for "
      "bit, for the same seed.",
      "pams"};
  app.set_version_flag("--version", "pams-cpp 0.1.0");
  app.require_subcommand(1);
  const std::vector<std::pair<std::string, std::function<int()>>> commands = {
      {"run", pams::cli::AddRunCommand(&app)},
      {"validate", pams::cli::AddValidateCommand(&app)},
      {"plot", pams::cli::AddPlotCommand(&app)},
      {"stats", pams::cli::AddStatsCommand(&app)},
      {"sweep", pams::cli::AddSweepCommand(&app)},
  };
  // CLI11 would only say that a subcommand is required.
  bool known = argc <= 1 || argv[1][0] == '-';
  std::string names;
  for (const auto& [name, fn] : commands) {
    known = known || name == argv[1];
    names += (names.empty() ? "" : ", ") + name;
  }
  if (!known) {
    std::fprintf(stderr, "error: unknown command \"%s\" (commands: %s; see pams --help)\n",
                 argv[1], names.c_str());
    return pams::cli::kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return pams::cli::kExitBadInput;
  }
  try {
    for (const auto& [name, fn] : commands) {
      if (app.got_subcommand(name)) return fn();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return pams::cli::kExitFailure;
  }
  return pams::cli::kExitFailure;
}
