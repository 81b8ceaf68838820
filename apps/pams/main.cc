// pams: run PAMS configs with pams-cpp. See `pams --help`.

#include <cstdio>
#include <exception>
#include <functional>

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
  std::function<int()> run = pams::cli::AddRunCommand(&app);
  // CLI11 would only say that a subcommand is required.
  bool known = argc <= 1 || argv[1][0] == '-';
  for (const CLI::App* sub : app.get_subcommands({})) {
    known = known || sub->get_name() == argv[1];
  }
  if (!known) {
    std::fprintf(stderr, "error: unknown command \"%s\" (commands: run; see pams --help)\n",
                 argv[1]);
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
    if (app.got_subcommand("run")) return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return pams::cli::kExitFailure;
  }
  return pams::cli::kExitFailure;
}
