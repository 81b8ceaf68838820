// Assignments of config keys, KEY=JSON: what `pams run --set`, `pams sweep
// --set` and `--grid`, and pams_cpp.sweep's `sets` and `grid` give. KEY is a
// dotted path into the config with [i] for list elements
// ("simulation.sessions[1].maxNormalOrders"); the value is JSON text.
//
// The CLI gets them as one string ("KEY=JSON", split here); Python as a
// dict, whose keys and values (json.dumps) it passes as pairs, so that a key
// holding '=' is never cut in two. Either way the same code parses and
// applies them, with the same messages, naming the input as the face calls
// it (what = "--set" or "sets").
//
// Pure functions; any thread.

#ifndef PAMS_SRC_SWEEP_ASSIGNMENT_H_
#define PAMS_SRC_SWEEP_ASSIGNMENT_H_

#include <string>
#include <vector>

#include "pams/config/json.h"

namespace pams::sweep {

// One KEY=JSON assignment: the key path and the value's JSON text.
struct Assignment {
  std::string key;
  std::string value;

  bool operator==(const Assignment&) const = default;
};

// Splits "KEY=JSON" at its first '='. Throws ConfigError(what, ...) naming
// `form` (e.g. "KEY=JSON") when there is no '=' or no key.
Assignment SplitAssignment(const std::string& text, const std::string& what,
                           const std::string& form, const std::string& example = "");

// The same for each of texts, in order.
std::vector<Assignment> SplitAssignments(const std::vector<std::string>& texts,
                                         const std::string& what, const std::string& form,
                                         const std::string& example = "");

// "KEY=JSON", as a --set flag writes it (the inverse of SplitAssignment).
std::string AssignmentText(const Assignment& assignment);

// Sets config's value at assignment.key to the parsed assignment.value.
// Throws ConfigError naming what and the key ("--set KEY: ...") when the
// value is not JSON (or breaks a config's rules, e.g. its depth) or the key
// names no place (AssignKeyPath's rules: only the last key may be new).
void ApplyAssignment(const Assignment& assignment, const std::string& what, Json* config);

}  // namespace pams::sweep

#endif  // PAMS_SRC_SWEEP_ASSIGNMENT_H_
