// What every command that reads a config shares: the class registry with
// plugins, and the config with --set overrides applied.

#include <string>
#include <vector>

#include "commands.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"
#include "pams/tensorflow/tensorflow_runner.h"
#include "sweep/assignment.h"

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
// elements (simulation.sessions[1].maxNormalOrders); the sweep core's rule,
// which pams sweep and pams_cpp.sweep apply too.
void ApplySet(const std::string& assignment, Json* config) {
  sweep::ApplyAssignment(sweep::SplitAssignment(assignment, "--set", "KEY=JSON"), "--set",
                         config);
}

Json LoadConfig(const std::string& path, const std::vector<std::string>& sets) {
  Json config = ParseJsonFile(path);
  for (const std::string& set : sets) ApplySet(set, &config);
  return config;
}

}  // namespace pams::cli
