// pams run CONFIG: one simulation, printed as PAMS's MarketStepPrintLogger.

#include <csignal>
#include <filesystem>
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
#include "pams/runners/worker.h"
#include "pams/tensorflow/tensorflow_runner.h"

namespace pams::cli {

namespace {

struct RunOptions {
  std::string config;
  std::string seed;
  std::vector<std::string> plugins;
  std::string steps_csv;
  std::string agents_csv;
  std::string runner = "SequentialRunner";
  std::vector<std::string> sets;
};

// Set by SIGINT/SIGTERM; the runner stops at the next step.
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};

void OnSignal(int sig) {
  g_signal.store(sig);
  g_stop.store(true);
}

// A seed from the OS when none is given, printed so the run can be repeated.
std::string OsSeed() {
  std::random_device device;
  const uint64_t seed =
      ((static_cast<uint64_t>(device()) << 32) | device()) >> 1;
  return std::to_string(seed);
}

// --set KEY=JSON: KEY is a dotted path into the config, with [i] for list
// elements (simulation.sessions[1].maxNormalOrders).
void ApplySet(const std::string& assignment, Json* config) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError("--set", "expected KEY=JSON, got \"" + assignment + "\"");
  }
  const std::string key = assignment.substr(0, eq);
  Json value;
  try {
    value = Json::parse(assignment.substr(eq + 1));
  } catch (const Json::parse_error&) {
    throw ConfigError("--set " + key,
                      "the value must be JSON (quote strings: '\"fork\"'), got " +
                          assignment.substr(eq + 1));
  }
  Json* node = config;
  std::string walked;
  size_t pos = 0;
  while (pos <= key.size()) {
    const size_t dot = key.find('.', pos);
    std::string part = key.substr(pos, dot == std::string::npos ? std::string::npos
                                                                : dot - pos);
    pos = dot == std::string::npos ? key.size() + 1 : dot + 1;
    std::vector<size_t> indexes;
    while (!part.empty() && part.back() == ']') {
      const size_t open = part.rfind('[');
      if (open == std::string::npos) {
        throw ConfigError("--set " + key, "unbalanced [ ] in the key");
      }
      try {
        indexes.insert(indexes.begin(), std::stoul(part.substr(open + 1)));
      } catch (const std::exception&) {
        throw ConfigError("--set " + key, "a list index must be a number");
      }
      part.erase(open);
    }
    if (part.empty()) throw ConfigError("--set " + key, "empty key part");
    if (!node->is_object()) {
      throw ConfigError("--set " + key, "\"" + walked + "\" is not an object");
    }
    node = &(*node)[part];
    walked += (walked.empty() ? "" : ".") + part;
    for (size_t index : indexes) {
      if (!node->is_array() || index >= node->size()) {
        throw ConfigError("--set " + key, "\"" + walked + "\" has no element " +
                                              std::to_string(index));
      }
      node = &(*node)[index];
      walked.append("[").append(std::to_string(index)).append("]");
    }
  }
  *node = std::move(value);
}

int Run(const RunOptions& options) {
  try {
    ClassRegistry registry = ClassRegistry::WithBuiltins();
    RegisterCliClasses(&registry);
    for (const std::string& plugin : options.plugins) {
      LoadPlugin(plugin, &registry);
    }
    Json settings = ParseJsonFile(options.config);
    for (const std::string& set : options.sets) ApplySet(set, &settings);
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

    std::unique_ptr<Runner> runner = registry.create_runner(
        options.runner, std::move(settings), std::move(prng), &loggers,
        "--runner");
    runner->simulator().set_config_directory(
        std::filesystem::path(options.config).parent_path().string());
    std::signal(SIGINT, OnSignal);
    std::signal(SIGTERM, OnSignal);
    runner->set_stop_flag(&g_stop);
    runner->main(stdout);
    return 0;
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

void RegisterCliClasses(ClassRegistry* registry) {
  tensorflow::RegisterClasses(registry);
}

std::function<int()> AddRunCommand(CLI::App* app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app->add_subcommand(
      "run", "Run a simulation from a PAMS config.");
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
  run->add_option("--runner", options->runner,
                  "Runner class: SequentialRunner (default), "
                  "MultiThreadAgentParallelRunner, "
                  "MultiProcessAgentParallelRunner, "
                  "TensorFlowAgentParallelRunner (or one from a plugin); "
                  "results are identical");
  run->add_option("--set", options->sets,
                  "Override a config key before the run: KEY=JSON, e.g. "
                  "simulation.numParallel=4 or 'simulation.startMethod=\"fork\"' "
                  "(repeatable)");
  return [options] { return Run(*options); };
}

}  // namespace pams::cli
