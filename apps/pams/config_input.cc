// What every command that reads a config shares: the class registry with
// plugins, and the config with --set overrides applied.

#include <string>
#include <vector>

#include "commands.h"
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
    const bool last = pos > key.size() && indexes.empty();
    if (!node->contains(part) && !last) {
      throw ConfigError("--set " + key,
                        "\"" + (walked.empty() ? "" : walked + ".") + part +
                            "\" does not exist (--set adds only the last key of a path)");
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

Json LoadConfig(const std::string& path, const std::vector<std::string>& sets) {
  Json config = ParseJsonFile(path);
  for (const std::string& set : sets) ApplySet(set, &config);
  return config;
}

}  // namespace pams::cli
