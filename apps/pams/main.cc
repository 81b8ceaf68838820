// pams: run PAMS configs with pams-cpp. See `pams --help`.

#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "pams/errors.h"
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
  app.footer(
      "Examples:\n"
      "  pams run samples/CI2002/config.json --seed 42\n"
      "  pams run CONFIG --seed 1 --steps-csv steps.csv --plot chart.png\n"
      "  pams validate CONFIG\n"
      "  pams stats steps.csv\n"
      "  pams sweep CONFIG --seeds 1-100 --out sweep/\n"
      "`pams COMMAND --help` for a command's options. Exit status: 0 ok, 1 the\n"
      "run failed, 2 bad input (config, flag, file, plugin), 130 interrupted.\n"
      "Docs: README.md and docs/ in the pams-cpp repository.");
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
  } catch (const pams::ConfigError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    return pams::cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return pams::cli::kExitFailure;
  }
  return pams::cli::kExitFailure;
}
