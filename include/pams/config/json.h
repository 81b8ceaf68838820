// Json: the JSON value type of configs, and how config files are read.
//
// Configs are nlohmann::ordered_json: object keys keep their file order,
// because PAMS depends on it (e.g. the order of correlations and extended
// keys), and a key repeated in one object keeps its first position and its
// last value, as Python's json module does (PAMS's samples repeat "MEMO").
//
// Thread safety: parsing functions are pure; a Json value follows the usual
// rules (const access from many threads is safe).

#ifndef PAMS_CONFIG_JSON_H_
#define PAMS_CONFIG_JSON_H_

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include "pams/export.h"

namespace pams {

using Json = nlohmann::ordered_json;

// Parses JSON text. On malformed input (truncated, comments, NaN, trailing
// garbage, ...) throws ConfigError whose path is `source_name` and whose
// message gives the line and column.
PAMS_EXPORT Json ParseJson(std::string_view text, const std::string& source_name);

// Reads and parses a file; a missing or unreadable file is a ConfigError too.
PAMS_EXPORT Json ParseJsonFile(const std::string& path);

// A short description of the JSON type of v for error messages ("a string",
// "an integer", "an object", ...).
PAMS_EXPORT std::string JsonTypeName(const Json& v);

}  // namespace pams

#endif  // PAMS_CONFIG_JSON_H_
