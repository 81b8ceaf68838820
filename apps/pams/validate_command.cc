// pams validate CONFIG: checks a config without running it and lists every
// problem found, each with its key path.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "pams/errors.h"
#include "pams/runners/runner.h"
#include "pams/simulator/session.h"

namespace pams::cli {

namespace {

struct ValidateOptions {
  std::string config;
  std::vector<std::string> plugins;
  std::vector<std::string> sets;
  std::string runner = "SequentialRunner";
};

// "1 market", "2 markets".
std::string Count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

int Validate(const ValidateOptions& options) {
  const std::string name = options.config == "-" ? "stdin" : options.config;
  std::vector<ConfigError> errors;
  std::unique_ptr<Runner> runner;
  try {
    ClassRegistry registry = LoadRegistry(options.plugins);
    Json settings = LoadConfig(options.config, options.sets);
    runner = registry.create_runner(
        options.runner,
        RunnerSetUp{std::move(settings), Random(0), nullptr,
                    std::filesystem::path(options.config).parent_path().string(), {}},
        "--runner");
    errors = runner->validate();
    if (errors.empty()) {
      const Simulator& sim = runner->simulator();
      int64_t steps = 0;
      for (const auto& session : sim.sessions()) steps += session->iteration_steps();
      std::printf("%s: valid (%s, %s, %s of %lld steps, %s; runner %s)\n",
                  name.c_str(), Count(sim.markets().size(), "market").c_str(),
                  Count(sim.agents().size(), "agent").c_str(),
                  Count(sim.sessions().size(), "session").c_str(),
                  static_cast<long long>(steps), Count(sim.events().size(), "event").c_str(),
                  options.runner.c_str());
      return 0;
    }
  } catch (const ConfigError& e) {
    // The registry, the file or the runner itself: nothing more to check.
    errors.push_back(e);
  }
  for (const ConfigError& e : errors) std::fprintf(stderr, "error: %s\n", e.what());
  std::fprintf(stderr, "%s: %zu problem%s found\n", name.c_str(),
               errors.size(), errors.size() == 1 ? "" : "s");
  return kExitBadInput;
}

}  // namespace

std::function<int()> AddValidateCommand(CLI::App* app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app->add_subcommand(
      "validate",
      "Check a config without running it; list every problem with its key path.");
  cmd->add_option("config,--config", options->config,
                  "PAMS JSON config file (\"-\": stdin; --config CONFIG as in PAMS's "
                  "sample scripts)")
      ->type_name("CONFIG")
      ->required();
  cmd->add_option("--plugin", options->plugins,
                  "Shared library registering user classes (repeatable)")
      ->type_name("LIB");
  cmd->add_option("--set", options->sets,
                  "Override a config key first: KEY=JSON (repeatable)")
      ->type_name("KEY=JSON");
  cmd->add_option("--runner", options->runner,
                  "Runner class whose keys to check too (default SequentialRunner)")
      ->type_name("NAME");
  return [options] { return Validate(*options); };
}

}  // namespace pams::cli
