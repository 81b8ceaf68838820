// Settings: a read-only view of one JSON value of a config together with its
// key path ("FCNAgents.timeWindowSize", "simulation.sessions[1]"), which every
// error message names.
//
// Classes read their own keys in setup() through Settings; the accessors
// convert values the way PAMS's Python code does (float(), int(), ...) but
// refuse values of the wrong type with a ConfigError instead of accepting
// them silently.
//
// A Settings does not own the JSON it views: the Json must outlive it.
// Thread safety: const methods only; safe to share.

#ifndef PAMS_CONFIG_SETTINGS_H_
#define PAMS_CONFIG_SETTINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pams/config/json.h"
#include "pams/export.h"

namespace pams {

class KeyLog;
class Random;

class PAMS_EXPORT Settings {
 public:
  Settings(const Json& json, std::string path)
      : json_(&json), path_(std::move(path)) {}

  const Json& json() const { return *json_; }
  const std::string& path() const { return path_; }

  bool is_object() const { return json_->is_object(); }
  // True if this is an object that has `key`.
  bool has(std::string_view key) const;

  // The value under `key`. Throws ConfigError if this is not an object or the
  // key is missing ("required key is missing").
  Settings operator[](std::string_view key) const;
  // The value under `key`, or nullopt when it is missing.
  std::optional<Settings> find(std::string_view key) const;
  // Element i of an array. REQUIRES: is an array and i < size().
  Settings at(size_t i) const;
  // Number of elements of an array or object; 0 for anything else.
  size_t size() const;

  // Conversions. Each throws ConfigError naming path() when the value has
  // the wrong type or is out of range.
  double as_float() const;         // a number (Python float(x))
  int64_t as_int() const;          // an integer (no fraction, no bool)
  bool as_bool() const;            // true or false
  const std::string& as_string() const;
  std::vector<std::string> as_string_list() const;  // ["a", "b"]
  // A positive integer (>= 1).
  int64_t as_positive_int() const;
  // str(x) in Python for a scalar (how PAMS turns sessionName into a name).
  std::string as_python_str() const;

  // PAMS's JsonRandom.random(value): a number, [min, max] (uniform),
  // {"const": [v]}, {"uniform": [min, max]}, {"normal": [mu, sigma]} or
  // {"expon": [lambda]}. Draws from prng exactly as PAMS does.
  double json_random(Random& prng) const;
  // Checks that the value is a valid JsonRandom spec without drawing.
  void check_json_random() const;

  // Throws ConfigError(path(), message).
  [[noreturn]] void fail(const std::string& message) const;

  std::string child_path(std::string_view key) const;

 private:
  friend class KeyLog;  // the runner's record of the keys classes read
  Settings(const Json& json, std::string path, KeyLog* log)
      : json_(&json), path_(std::move(path)), log_(log) {}
  void Looked(std::string_view key) const;

  const Json* json_;
  std::string path_;
  KeyLog* log_ = nullptr;
};

// PAMS's json_extends: the object named `name` in `whole` with the keys it
// inherits through "extends" chains (parent keys first, child values win),
// without the parents' keys listed in `excluded` and without "extends".
// Throws ConfigError for a missing parent or an extends loop.
PAMS_EXPORT Json ResolveExtends(const Json& whole, const std::string& name,
                                 const Json& target,
                                 const std::vector<std::string>& excluded);

}  // namespace pams

#endif  // PAMS_CONFIG_SETTINGS_H_
