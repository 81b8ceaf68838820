// Assignments of config keys (see assignment.h).

#include "sweep/assignment.h"

#include <utility>

#include "pams/config/key_path.h"
#include "pams/errors.h"

namespace pams::sweep {

Assignment SplitAssignment(const std::string& text, const std::string& what,
                           const std::string& form, const std::string& example) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError(what, "expected " + form +
                                (example.empty() ? "" : ", e.g. '" + example + "'") +
                                ", got \"" + text + "\"");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<Assignment> SplitAssignments(const std::vector<std::string>& texts,
                                         const std::string& what, const std::string& form,
                                         const std::string& example) {
  std::vector<Assignment> assignments;
  assignments.reserve(texts.size());
  for (const std::string& text : texts) {
    assignments.push_back(SplitAssignment(text, what, form, example));
  }
  return assignments;
}

std::string AssignmentText(const Assignment& assignment) {
  return assignment.key + "=" + assignment.value;
}

void ApplyAssignment(const Assignment& assignment, const std::string& what, Json* config) {
  const std::string name = what + " " + assignment.key;
  if (assignment.key.empty()) {
    throw ConfigError(what, "an empty key: expected a config key such as "
                            "FCNAgents.fundamentalWeight");
  }
  Json value;
  try {
    value = Json::parse(assignment.value);
  } catch (const Json::exception&) {
    throw ConfigError(name, "the value must be JSON (quote strings: '\"fork\"'), got " +
                                assignment.value);
  }
  // A config's rules (e.g. how deep it may nest) hold for these values too.
  if (assignment.value.find_first_of("[{") != std::string::npos) {
    value = ParseJson(assignment.value, name);
  }
  AssignKeyPath(config, assignment.key, std::move(value), what);
}

}  // namespace pams::sweep
