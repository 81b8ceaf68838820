// pams: run PAMS configs with pams-cpp. See `pams --help`.

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "parse_errors.h"
#include "stdout_error.h"
#include "sweep_worker.h"
#include "pams/errors.h"
#include "pams/runners/worker.h"

namespace {

// The command's status, or the status for a failed stdout: 141 (128 +
// SIGPIPE), silently, when its reader went away, as for a program killed by
// SIGPIPE; 1 with a message otherwise.
int FinishStdout(int status) {
  const int error = pams::cli::StdoutError();
  if (error == 0) return status;
  if (error == EPIPE) return status != 0 ? status : 128 + SIGPIPE;
  std::fprintf(stderr, "error: writing stdout failed: %s\n", std::strerror(error));
  return status != 0 ? status : pams::cli::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  // A worker process of a parallel runner becomes one here (and never
  // returns); the program itself continues.
  pams::InitWorkerProcess(argc, argv, &pams::cli::RegisterCliClasses);
  // A write to a pipe without a reader fails with EPIPE instead of killing
  // the process, so that a run can still close its files (see run_command.cc).
  signal(SIGPIPE, SIG_IGN);
  // A sweep's worker process (sweep_worker.h), started by pams sweep.
  if (argc >= 2 && std::strcmp(argv[1], pams::cli::kLocalWorkerCommand) == 0) {
    return pams::cli::RunLocalSweepWorker(argc, argv);
  }
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
      "`pams COMMAND --help` for a command's options.\n"
      "Exit status: 0 ok; 1 the run failed (including an output file that cannot\n"
      "be written); 2 bad input (config, flag, file, plugin); 128 + N stopped by\n"
      "signal N: 129 SIGHUP (terminal closed), 130 SIGINT (Ctrl-C), 143 SIGTERM,\n"
      "141 stdout's reader went away (e.g. | head). A run stopped by a signal\n"
      "ends its step and closes its files (the same signal again: at once);\n"
      "output files always end with a whole row.\n"
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
  // An option before the command: CLI11 would say a command is required.
  if (argc > 1 && argv[1][0] == '-') {
    const std::string first = argv[1];
    if (first != "-h" && first != "--help" && first != "--help-all" && first != "--version") {
      std::fprintf(stderr,
                   "error: unknown option %s: pams COMMAND [options], COMMAND one of %s "
                   "(options go after the command; see pams --help)\n",
                   pams::ShortenForMessage(first, 100).c_str(), names.c_str());
      return pams::cli::kExitBadInput;
    }
  }
  if (!known) {
    std::fprintf(stderr,
                 "error: unknown command \"%s\" (commands: %s; see pams --help)\n",
                 pams::ShortenForMessage(argv[1], 100).c_str(), names.c_str());
    return pams::cli::kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return FinishStdout(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return FinishStdout(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return FinishStdout(app.exit(e));
  } catch (const CLI::ParseError& e) {
    CLI::App* command = argc > 1 && argv[1][0] != '-' ? app.get_subcommand(argv[1]) : nullptr;
    std::fprintf(stderr, "%s\n", pams::cli::ParseErrorMessage(e, &app, command).c_str());
    return pams::cli::kExitBadInput;
  }
  int status = pams::cli::kExitFailure;
  try {
    for (const auto& [name, fn] : commands) {
      if (app.got_subcommand(name)) {
        status = fn();
        break;
      }
    }
  } catch (const pams::ConfigError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    status = pams::cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n",
                 pams::ShortenForMessage(e.what(), pams::kMaxMessageBytes).c_str());
    status = pams::cli::kExitFailure;
  }
  return FinishStdout(status);
}
