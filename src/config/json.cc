// Reading config files. nlohmann's parser reports "line L, column C" in its
// messages; we strip its exception prefix and name the file instead. Values
// quoted in messages are cut to a few dozen bytes (a config may hold a
// 50 MB string), and a source is read up to kMaxConfigBytes only, so that
// /dev/zero, /dev/urandom or an endless pipe is refused instead of read
// forever.

#include "pams/config/json.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "pams/errors.h"

namespace pams {

namespace {

// How much of a value a message quotes.
constexpr size_t kQuotedValueBytes = 100;

// "the file is larger than 64 MiB" for kMaxConfigBytes.
std::string SizeText(size_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// Reads all of fd, refusing more than kMaxConfigBytes. `name` names the
// source in errors.
std::string ReadBounded(int fd, const std::string& name) {
  std::string text;
  constexpr size_t kChunk = 1 << 16;
  for (;;) {
    const size_t used = text.size();
    if (used > kMaxConfigBytes) {
      throw ConfigError(name, "the config is larger than " + SizeText(kMaxConfigBytes) +
                                  ", the most pams reads (is this a config file?)");
    }
    text.resize(used + kChunk);
    const ssize_t n = read(fd, text.data() + used, kChunk);
    if (n < 0 && errno == EINTR) {
      text.resize(used);
      continue;
    }
    if (n < 0) {
      const int error = errno;
      throw ConfigError(name, std::string("cannot read config file: ") + std::strerror(error));
    }
    text.resize(used + static_cast<size_t>(n));
    if (n == 0) return text;
  }
}

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

// Refuses JSON nested deeper than kMaxJsonDepth: copying or printing such a
// value recurses once per level (nlohmann), which a deep enough value turns
// into a stack overflow. A scan, not a parse: brackets in strings do not
// count.
void CheckNesting(std::string_view text, const std::string& source_name) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        throw ConfigError(source_name,
                          "invalid JSON: nested more than " +
                              std::to_string(kMaxJsonDepth) + " levels deep at " +
                              LineColumn(text, i) + " (a config needs a few)");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
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
  CheckNesting(text, source_name);
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
        const std::string shown =
            token.size() <= kQuotedValueBytes
                ? token
                : ShortenForMessage(token, kQuotedValueBytes) + " (" +
                      std::to_string(token.size()) + " characters)";
        throw ConfigError(source_name, "invalid JSON: the number " + shown + " at " +
                                           LineColumn(text, at) +
                                           " does not fit in a double");
      }
    }
    throw ConfigError(source_name, "invalid JSON: " + what);
  }
}

Json ParseJsonFile(const std::string& path) {
  const bool standard_input = path == "-";
  const std::string name = standard_input ? "stdin" : path;
  // A directory opens (and reads as nothing) on Linux: say what it is
  // rather than report an empty document.
  std::error_code ignored;
  if (!standard_input && std::filesystem::is_directory(path, ignored)) {
    throw ConfigError(path, "is a directory, not a config file");
  }
  int fd = STDIN_FILENO;
  if (!standard_input) {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int error = errno;
      throw ConfigError(path, std::string("cannot open config file: ") +
                                  std::strerror(error));
    }
  }
  std::string text;
  try {
    text = ReadBounded(fd, name);
  } catch (...) {
    if (!standard_input) close(fd);
    throw;
  }
  if (!standard_input) close(fd);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw ConfigError(name, "invalid JSON: the file is empty");
  }
  return ParseJson(text, name);
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
    case Json::value_t::string: {
      // Cut before dumping: dump() of a 50 MB string would copy it.
      const std::string& s = v.get_ref<const std::string&>();
      if (s.size() <= kQuotedValueBytes) return "the string " + v.dump();
      return "the string " + Json(ShortenForMessage(s, kQuotedValueBytes)).dump() + " (" +
             std::to_string(s.size()) + " bytes)";
    }
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default:
      return "an unsupported value";
  }
}

}  // namespace pams
