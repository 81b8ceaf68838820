// pams run CONFIG: one simulation, printed as PAMS's MarketStepPrintLogger.

#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "commands.h"
#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/logs/csv_loggers.h"
#include "pams/logs/market_step_loggers.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"

namespace pams::cli {

namespace {

struct RunOptions {
  std::string config;
  std::string seed;
  std::vector<std::string> plugins;
  std::string steps_csv;
  std::string agents_csv;
};

// A seed from the OS when none is given, printed so the run can be repeated.
std::string OsSeed() {
  std::random_device device;
  const uint64_t seed =
      ((static_cast<uint64_t>(device()) << 32) | device()) >> 1;
  return std::to_string(seed);
}

int Run(const RunOptions& options) {
  try {
    ClassRegistry registry = ClassRegistry::WithBuiltins();
    for (const std::string& plugin : options.plugins) {
      LoadPlugin(plugin, &registry);
    }
    Json settings = ParseJsonFile(options.config);
    std::string seed = options.seed;
    if (seed.empty()) {
      seed = OsSeed();
      std::fprintf(stderr, "# SEED %s (pass --seed %s to repeat this run)\n",
                   seed.c_str(), seed.c_str());
    }
    Random prng = Random::FromDecimalSeed(seed);

    Loggers loggers;
    MarketStepPrintLogger print_logger(stdout);
    loggers.add(&print_logger);
    std::unique_ptr<StepsCsvLogger> steps;
    if (!options.steps_csv.empty()) {
      steps = std::make_unique<StepsCsvLogger>(options.steps_csv);
      loggers.add(steps.get());
    }
    std::unique_ptr<AgentsCsvLogger> agents;
    if (!options.agents_csv.empty()) {
      agents = std::make_unique<AgentsCsvLogger>(options.agents_csv);
      loggers.add(agents.get());
    }

    SequentialRunner runner(std::move(settings), std::move(prng), &loggers,
                            registry);
    runner.main(stdout);
    return 0;
  } catch (const ConfigError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  } catch (const SimulationError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace

std::function<int()> AddRunCommand(CLI::App* app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app->add_subcommand(
      "run", "Run a simulation from a PAMS config (SequentialRunner).");
  run->add_option("config", options->config, "PAMS JSON config file")
      ->required();
  run->add_option("--seed", options->seed,
                  "Seed of the runner's random.Random (any integer); without "
                  "it a seed is drawn from the OS and printed to stderr")
      ->check([](const std::string& s) -> std::string {
        try {
          Random::FromDecimalSeed(s);
          return "";
        } catch (const std::exception&) {
          return "the seed must be an integer, got \"" + s + "\"";
        }
      });
  run->add_option("--plugin", options->plugins,
                  "Shared library registering user classes (repeatable)");
  run->add_option("--steps-csv", options->steps_csv,
                  "Write one row per market and step to this CSV file");
  run->add_option("--agents-csv", options->agents_csv,
                  "Write every agent's cash and assets at the end to this CSV "
                  "file");
  return [options] { return Run(*options); };
}

}  // namespace pams::cli
