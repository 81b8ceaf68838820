// pams run CONFIG: one simulation, printed as PAMS's MarketStepPrintLogger.
//
// How a run ends, and what its output files (steps, agents, events CSV)
// hold then: every way leaves them valid up to their last whole row
// (OutputFile writes whole rows only), and the exit status says why:
//   0    the run completed;
//   1    it failed (an agent's error, an output that cannot be written);
//   2    bad input, found before the run starts;
//   129, 130, 143: SIGHUP (the terminal closed), SIGINT (Ctrl-C), SIGTERM:
//        the run stops at the end of the step, flushes its files and exits
//        with 128 + the signal. A second one of these exits at once
//        (ExitAfterWholeRows: the rows committed so far are written, no
//        file is cut inside a row), for a step that never ends;
//   141  stdout's reader went away (`pams run ... | head`): SIGPIPE is
//        ignored, so the write fails with EPIPE, which stops the run like a
//        signal, silently, as a program killed by SIGPIPE would end.
// A SIGINT or SIGHUP that was ignored when pams started (nohup, `&` in a
// script) stays ignored.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "commands.h"
#include "output_paths.h"
#include "progress_bar.h"
#include "stdout_error.h"
#include "analysis/chart.h"
#include "analysis/steps_table.h"
#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/logs/csv_loggers.h"
#include "pams/logs/events_csv_logger.h"
#include "pams/logs/market_step_loggers.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/parallel_check.h"
#include "pams/runners/runner.h"
#include "pams/runners/worker.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"
#include "pams/tensorflow/tensorflow_runner.h"

namespace pams::cli {

namespace {

struct RunOptions {
  std::string config;
  std::string seed;
  std::vector<std::string> plugins;
  std::string steps_csv;
  std::string agents_csv;
  std::string events_csv;
  std::string plot;
  bool quiet = false;
  std::string runner = "SequentialRunner";
  std::vector<std::string> sets;
  bool check_parallel = false;
};

// Set by the first SIGINT, SIGTERM or SIGHUP; the runner stops at the next
// step.
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
bool g_stderr_is_terminal = false;  // set before the handler is installed

void OnSignal(int sig) {
  int none = 0;
  if (g_signal.compare_exchange_strong(none, sig)) {
    g_stop.store(true);
    // write(2): async-signal-safe. The newline ends a progress bar's line.
    static const char kMessage[] =
        "\npams: stopping at the end of this step (the same signal again exits at once)\n";
    const size_t skip = g_stderr_is_terminal ? 0 : 1;
    [[maybe_unused]] const ssize_t n =
        write(STDERR_FILENO, kMessage + skip, sizeof kMessage - 1 - skip);
    return;
  }
  ExitAfterWholeRows(128 + sig);
}

void InstallSignalHandlers() {
  g_stderr_is_terminal = isatty(STDERR_FILENO) == 1;
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigset_t unblock;
  sigemptyset(&unblock);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (sig != SIGTERM && old.sa_handler == SIG_IGN) continue;  // nohup, `&`
    sigaction(sig, &action, nullptr);
    sigaddset(&unblock, sig);
  }
  sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
}

// The exit status for a write to stdout or an output file that failed.
int OutputFailure(const OutputError& e) {
  std::fflush(stdout);
  if (g_stop.load()) return 128 + g_signal.load();
  if (e.error_number() == EPIPE) {
    // The reader went away: what it did not read it did not want. Silent
    // for stdout (as a program killed by SIGPIPE); a named pipe is named.
    if (e.path() != "stdout" && e.path() != "-") {
      std::fprintf(stderr, "error: %s (its reader went away)\n", e.what());
    }
    return 128 + SIGPIPE;
  }
  std::fprintf(stderr, "error: %s\n", e.what());
  return kExitFailure;
}

// Shows the run's progress (session, step, steps/s, ETA) on a ProgressBar.
class ProgressLogger : public Logger {
 public:
  explicit ProgressLogger(bool enabled) : bar_(enabled, "steps") {}

  void process_simulation_begin_log(const SimulationBeginLog& log) override {
    total_ = 0;
    for (const auto& session : log.simulator.sessions()) {
      total_ += session->iteration_steps();
    }
  }
  void process_session_begin_log(const SessionBeginLog& log) override {
    label_ = "session " + log.session.name();
    first_market_ = nullptr;
  }
  void process_market_step_end_log(const MarketStepEndLog& log) override {
    // One step ends once per market: count the first market's.
    if (first_market_ == nullptr) first_market_ = &log.market;
    if (&log.market != first_market_) return;
    bar_.Update(++done_, total_, label_);
  }
  void process_simulation_end_log(const SimulationEndLog&) override { bar_.Clear(); }
  void flush() override { bar_.Clear(); }

 private:
  ProgressBar bar_;
  int64_t total_ = 0;
  int64_t done_ = 0;
  std::string label_;
  const Market* first_market_ = nullptr;
};

// A file in $TMPDIR (or /tmp) removed when this object goes.
class TemporaryFile {
 public:
  TemporaryFile() = default;
  ~TemporaryFile() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  // Creates the file; returns its path. Throws ConfigError if it cannot.
  const std::string& Create(const char* prefix) {
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir != nullptr && *dir ? dir : "/tmp") + "/" +
                       prefix + "-XXXXXX";
    const int fd = mkstemp(path.data());
    if (fd < 0) throw ConfigError(path, "cannot create a temporary file");
    close(fd);
    path_ = path;
    return path_;
  }

 private:
  std::string path_;
};

// A seed from the OS when none is given, printed so the run can be repeated.
std::string OsSeed() {
  std::random_device device;
  const uint64_t seed =
      ((static_cast<uint64_t>(device()) << 32) | device()) >> 1;
  return std::to_string(seed);
}

// --check-parallel: the comparison instead of the run.
int CheckParallelCommand(const ClassRegistry& registry, const Json& settings,
                         const Random& prng, const RunOptions& options) {
  const std::string parallel = options.runner == "SequentialRunner"
                                   ? "MultiProcessAgentParallelRunner"
                                   : options.runner;
  const ParallelCheckResult r = CheckParallel(
      registry, settings, prng, parallel,
      std::filesystem::path(options.config).parent_path().string());
  if (r.identical) {
    std::printf("check-parallel: %s gives SequentialRunner's results (%lld events "
                "compared)\n",
                parallel.c_str(), static_cast<long long>(r.events));
    return 0;
  }
  std::printf("check-parallel: %s differs from SequentialRunner at step %lld\n"
              "  SequentialRunner: %s\n  %s: %s\n",
              parallel.c_str(), static_cast<long long>(r.step), r.sequential.c_str(),
              parallel.c_str(), r.parallel.c_str());
  if (!r.agent.empty()) {
    std::printf("  Likely cause: agent %s (or one whose orders it reacts to) changes "
                "fields in submit_orders() that save_state()/load_state() do not "
                "carry, or breaks another rule of the agent contract "
                "(docs/plugins.md)\n",
                r.agent.c_str());
  }
  return kExitFailure;
}

int Run(const RunOptions& options) {
  InstallSignalHandlers();
  try {
    // Before anything is opened for writing.
    std::vector<NamedPath> inputs = {{"CONFIG", options.config}};
    for (const std::string& plugin : options.plugins) inputs.push_back({"--plugin", plugin});
    std::vector<NamedPath> outputs = {{"--steps-csv", options.steps_csv},
                                      {"--agents-csv", options.agents_csv},
                                      {"--events-csv", options.events_csv},
                                      {"--plot", options.plot}};
    if (!options.quiet) {
      outputs.insert(outputs.begin(), {"stdout, where the step lines go (--quiet prints none)", "-"});
    }
    CheckOutputPaths(inputs, outputs);
    ClassRegistry registry = LoadRegistry(options.plugins);
    Json settings = LoadConfig(options.config, options.sets);
    // A process that runs TensorFlow itself (SequentialRunner with
    // TensorFlow agents) uses the options the workers would use.
    tensorflow::ConfigureFromSettings(settings);
    std::string seed = options.seed;
    if (seed.empty()) {
      seed = OsSeed();
      std::fprintf(stderr, "# SEED %s (pass --seed %s to repeat this run)\n",
                   seed.c_str(), seed.c_str());
    }
    Random prng = Random::FromDecimalSeed(seed);
    if (options.check_parallel) return CheckParallelCommand(registry, settings, prng, options);

    Loggers loggers;
    MarketStepPrintLogger print_logger(stdout);
    // The bar goes to a terminal, and only when the step lines do not go to
    // the same one (they show progress themselves, and would cut the bar).
    ProgressLogger progress(!options.quiet && ProgressBar::StderrIsTerminal() &&
                            !isatty(STDOUT_FILENO));
    loggers.add(&progress);
    // --plot draws from the steps CSV: the user's, or a temporary one.
    std::string steps_path = options.steps_csv;
    TemporaryFile temporary_steps;
    if (steps_path.empty() && !options.plot.empty()) {
      steps_path = temporary_steps.Create("pams-steps");
    }
    if (!options.plot.empty()) analysis::CheckChartPath(options.plot);
    std::unique_ptr<StepsCsvLogger> steps;
    if (!steps_path.empty()) {
      steps = std::make_unique<StepsCsvLogger>(steps_path);
      loggers.add(steps.get());
    }
    std::unique_ptr<AgentsCsvLogger> agents;
    if (!options.agents_csv.empty()) {
      agents = std::make_unique<AgentsCsvLogger>(options.agents_csv);
      loggers.add(agents.get());
    }
    std::unique_ptr<EventsCsvLogger> events;
    if (!options.events_csv.empty()) {
      events = std::make_unique<EventsCsvLogger>(options.events_csv);
      loggers.add(events.get());
    }
    // Last: when stdout fails (its reader went away) and stops the run, the
    // files' loggers have already been given each step, and are flushed
    // first.
    if (!options.quiet) loggers.add(&print_logger);

    std::unique_ptr<Runner> runner = registry.create_runner(
        options.runner,
        RunnerSetUp{std::move(settings), std::move(prng), &loggers,
                    std::filesystem::path(options.config).parent_path().string(), {}},
        "--runner");
    runner->set_stop_flag(&g_stop);
    // A signal before this point (a long setup) stops the run at its
    // first step. The timing lines go where the step lines go, or to stderr
    // when a CSV file is written to stdout ("-"), which they would end.
    const bool csv_on_stdout = options.steps_csv == "-" || options.agents_csv == "-" ||
                               options.events_csv == "-";
    runner->main(csv_on_stdout ? stderr : stdout);
    // The runner has flushed (closed) the files; stdout's last lines were
    // written by stdio.
    if (const int error = StdoutError()) throw OutputError("stdout", "writing failed", error);
    if (!options.plot.empty()) {
      analysis::WriteChart(analysis::StepsTable::ReadCsv(steps_path), options.plot);
    }
    return 0;
  } catch (const OutputError& e) {
    return OutputFailure(e);
  } catch (const ConfigError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  } catch (const SimulationError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    // Stopped by a signal: the shell's convention, 128 + the signal.
    if (g_stop.load()) return 128 + g_signal.load();
    return kExitFailure;
  }
}

}  // namespace

std::function<int()> AddRunCommand(CLI::App* app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app->add_subcommand(
      "run", "Run a simulation from a PAMS config.");
  run->footer(
      "Exit status: 0 done; 1 the run failed (an agent's error, an output that\n"
      "cannot be written); 2 bad input; 128 + N stopped by signal N: 129 SIGHUP\n"
      "(terminal closed), 130 SIGINT (Ctrl-C), 143 SIGTERM - the run stops at the\n"
      "end of its step, and the same signal again exits at once - and 141 when\n"
      "stdout's reader goes away (| head). Output files always end with a whole\n"
      "row.");
  run->add_option("config,--config", options->config,
                  "PAMS JSON config file (\"-\": stdin); --config CONFIG as PAMS's "
                  "sample scripts take it")
      ->type_name("CONFIG")
      ->required();
  run->add_option("-s,--seed", options->seed,
                  "Seed of the runner's random.Random (any integer); without "
                  "it a seed is drawn from the OS and printed to stderr")
      ->check([](const std::string& s) -> std::string {
        try {
          Random::FromDecimalSeed(s);
          return "";
        } catch (const std::exception&) {
          return "the seed must be an integer, got \"" + ShortenForMessage(s, 100) +
                 "\"";
        }
      })
      ->type_name("INT");
  run->add_option("--plugin", options->plugins,
                  "Shared library registering user classes (repeatable)")
      ->type_name("LIB");
  run->add_option("--steps-csv", options->steps_csv,
                  "Write one row per market and step to this CSV file")
      ->type_name("FILE");
  run->add_option("--agents-csv", options->agents_csv,
                  "Write every agent's cash and assets at the end to this CSV "
                  "file")
      ->type_name("FILE");
  run->add_option("--events-csv", options->events_csv,
                  "Write every order, cancel, execution and expiration, one row "
                  "each, to this CSV file")
      ->type_name("FILE");
  run->add_option("--plot", options->plot,
                  "Draw a chart of the prices and volumes to this .png or .svg "
                  "file at the end (see pams plot)")
      ->type_name("FILE");
  run->add_flag("--quiet,-q", options->quiet,
                "Print no step lines and no progress bar (the timing lines, "
                "warnings and errors still)");
  run->add_option("--runner", options->runner,
                  "Runner class: SequentialRunner (default), "
                  "MultiThreadAgentParallelRunner, "
                  "MultiProcessAgentParallelRunner, "
                  "TensorFlowAgentParallelRunner (or one from a plugin); "
                  "results are identical")
      ->type_name("NAME");
  run->add_option("--set", options->sets,
                  "Override a config key before the run: KEY=JSON, e.g. "
                  "simulation.numParallel=4 or 'simulation.startMethod=\"fork\"' "
                  "(repeatable)")
      ->type_name("KEY=JSON");
  run->add_flag("--check-parallel", options->check_parallel,
                "Run the config with SequentialRunner and with a parallel runner "
                "(--runner, default MultiProcessAgentParallelRunner, every task "
                "in a worker) and report the first step and agent where they "
                "differ (exit 1), e.g. a plugin agent whose save_state() misses "
                "a field");
  return [options] { return Run(*options); };
}

}  // namespace pams::cli
