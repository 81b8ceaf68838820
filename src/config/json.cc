// Reading config files. nlohmann's parser reports "line L, column C" in its
// messages; we strip its exception prefix and name the file instead.

#include "pams/config/json.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pams/errors.h"

namespace pams {

namespace {

// "line L, column C" of byte offset pos, counted as nlohmann counts them.
std::string LineColumn(std::string_view text, size_t pos) {
  size_t line = 1;
  size_t column = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

Json ParseJson(std::string_view text, const std::string& source_name) {
  // nlohmann's parser stops at a NUL byte as if the input ended there, which
  // would report a binary file as truncated.
  const size_t nul = text.find('\0');
  if (nul != std::string_view::npos) {
    throw ConfigError(source_name, "invalid JSON: a NUL byte at " +
                                       LineColumn(text, nul) +
                                       " (is this a binary file?)");
  }
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    const std::string tag = "parse error";
    const size_t pos = what.find(tag);
    if (pos != std::string::npos) what = what.substr(pos);
    throw ConfigError(source_name, "invalid JSON: " + what);
  } catch (const Json::exception& e) {
    // out_of_range.406: a number too large for a double (1e999), which
    // nlohmann reports without a position.
    std::string what = e.what();
    const size_t quote = what.find('\'');
    if (quote != std::string::npos) {
      const std::string token = what.substr(quote + 1, what.rfind('\'') - quote - 1);
      const size_t at = text.find(token);
      if (!token.empty() && at != std::string_view::npos) {
        throw ConfigError(source_name, "invalid JSON: the number " + token + " at " +
                                           LineColumn(text, at) +
                                           " does not fit in a double");
      }
    }
    throw ConfigError(source_name, "invalid JSON: " + what);
  }
}

Json ParseJsonFile(const std::string& path) {
  // A directory opens (and reads as nothing) on Linux: say what it is
  // rather than report an empty document.
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw ConfigError(path, "is a directory, not a config file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ConfigError(path, std::string("cannot open config file: ") +
                                std::strerror(errno));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw ConfigError(path, "cannot read config file");
  const std::string text = ss.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw ConfigError(path, "invalid JSON: the file is empty");
  }
  return ParseJson(text, path);
}

std::string JsonTypeName(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "the integer " + v.dump();
    case Json::value_t::number_float:
      return "the number " + v.dump();
    case Json::value_t::string:
      return "the string " + v.dump();
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default:
      return "an unsupported value";
  }
}

}  // namespace pams
