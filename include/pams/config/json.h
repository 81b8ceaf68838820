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

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include "pams/export.h"

namespace pams {

using Json = nlohmann::ordered_json;

// Parses JSON text. On malformed input (truncated, comments, NaN, trailing
// garbage, nested deeper than kMaxJsonDepth, ...) throws ConfigError whose
// path is `source_name` and whose message gives the line and column.
PAMS_EXPORT Json ParseJson(std::string_view text, const std::string& source_name);

// The deepest nesting of arrays and objects a config may have: PAMS's
// configs nest four levels, and Python's json module gives up near 1000.
inline constexpr int kMaxJsonDepth = 256;

// The most bytes a config source may have: real configs are kilobytes
// (PAMS's samples 1-3 KB, a generated config with thousands of agent groups
// a few MB), and 64 MiB of JSON still parses in about a second into well
// under 1 GB, while anything larger is almost surely not a config
// (/dev/zero, /dev/urandom, a log, an endless pipe).
inline constexpr size_t kMaxConfigBytes = size_t{64} << 20;

// Reads and parses a file, or standard input when path is "-" (named
// "stdin" in errors). A missing, unreadable or empty file, a directory and a
// source larger than kMaxConfigBytes (read no further) are ConfigErrors too.
// A FIFO is read like a file (waiting for its writer).
PAMS_EXPORT Json ParseJsonFile(const std::string& path);

// A short description of v for error messages ("the string \"x\"", "the
// integer 5", "an object", ...); a long string is cut in the middle.
PAMS_EXPORT std::string JsonTypeName(const Json& v);

}  // namespace pams

#endif  // PAMS_CONFIG_JSON_H_
