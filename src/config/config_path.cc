#include "config/config_path.h"

#include <cstdlib>
#include <vector>

namespace pams {

namespace {

// "a.b[2].c" -> {"a", "b", "[2]", "c"}.
std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::string current;
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.' || c == '[') {
      if (!current.empty()) parts.push_back(current);
      current.clear();
      if (c == '[') {
        const size_t close = path.find(']', i);
        if (close == std::string::npos) return {};
        parts.push_back(path.substr(i, close - i + 1));
        i = close;
      }
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) parts.push_back(current);
  return parts;
}

Json* Child(Json* value, const std::string& part) {
  if (part.front() == '[') {
    if (!value->is_array()) return nullptr;
    char* end = nullptr;
    const unsigned long index = std::strtoul(part.c_str() + 1, &end, 10);
    if (end == nullptr || *end != ']' || index >= value->size()) return nullptr;
    return &(*value)[index];
  }
  if (!value->is_object()) return nullptr;
  auto it = value->find(part);
  return it == value->end() ? nullptr : &*it;
}

}  // namespace

Json* LocateKey(Json* config, const std::string& path) {
  const std::vector<std::string> parts = SplitPath(path);
  if (parts.size() < 2 || !config->is_object()) return nullptr;
  // The entry, or the nearest one it extends that has the key.
  Json* entry = Child(config, parts[0]);
  for (int depth = 0; entry != nullptr && depth < 64; ++depth) {
    if (Child(entry, parts[1]) != nullptr) break;
    Json* parent = Child(entry, "extends");
    entry = parent != nullptr && parent->is_string()
                ? Child(config, parent->get<std::string>())
                : nullptr;
  }
  if (entry == nullptr) return nullptr;
  Json* value = entry;
  for (size_t i = 1; i < parts.size() && value != nullptr; ++i) {
    value = Child(value, parts[i]);
  }
  return value;
}

}  // namespace pams
