// What every command that reads a config shares: the class registry with
// plugins, and the config with --set overrides applied.

#include <string>
#include <vector>

#include "commands.h"
#include "pams/config/key_path.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"
#include "pams/tensorflow/tensorflow_runner.h"

namespace pams::cli {

void RegisterCliClasses(ClassRegistry* registry) {
  tensorflow::RegisterClasses(registry);
}

ClassRegistry LoadRegistry(const std::vector<std::string>& plugins) {
  ClassRegistry registry = ClassRegistry::WithBuiltins();
  RegisterCliClasses(&registry);
  for (const std::string& plugin : plugins) LoadPlugin(plugin, &registry);
  return registry;
}

// --set KEY=JSON: KEY is a dotted path into the config, with [i] for list
// elements (simulation.sessions[1].maxNormalOrders).
void ApplySet(const std::string& assignment, Json* config) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError("--set", "expected KEY=JSON, got \"" + assignment + "\"");
  }
  const std::string key = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  Json value;
  try {
    value = Json::parse(text);
  } catch (const Json::exception&) {
    throw ConfigError("--set " + key,
                      "the value must be JSON (quote strings: '\"fork\"'), got " +
                          text);
  }
  // A config's rules (e.g. how deep it may nest) hold for its --set values.
  if (text.find_first_of("[{") != std::string::npos) {
    value = ParseJson(text, "--set " + key);
  }
  AssignKeyPath(config, key, std::move(value), "--set");
}

Json LoadConfig(const std::string& path, const std::vector<std::string>& sets) {
  Json config = ParseJsonFile(path);
  for (const std::string& set : sets) ApplySet(set, &config);
  return config;
}

}  // namespace pams::cli
