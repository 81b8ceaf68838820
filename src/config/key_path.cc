// AssignKeyPath: walks a dotted key path with [i] indices into a config.

#include "pams/config/key_path.h"

#include <utility>
#include <vector>

#include "pams/errors.h"

namespace pams {

void AssignKeyPath(Json* config, const std::string& key, Json value,
                   const std::string& what) {
  const std::string where = what + " " + key;
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
      if (open == std::string::npos) throw ConfigError(where, "unbalanced [ ] in the key");
      const std::string digits = part.substr(open + 1, part.size() - open - 2);
      if (digits.empty() || digits.size() > 9 ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        throw ConfigError(where, "a list index must be a number");
      }
      indexes.insert(indexes.begin(), std::stoul(digits));
      part.erase(open);
    }
    if (part.empty()) throw ConfigError(where, "empty key part");
    if (!node->is_object()) {
      throw ConfigError(where, "\"" + walked + "\" is not an object");
    }
    const bool last = pos > key.size() && indexes.empty();
    if (!node->contains(part) && !last) {
      throw ConfigError(where, "\"" + (walked.empty() ? "" : walked + ".") + part +
                                   "\" does not exist (only the last key of a path may "
                                   "be new)");
    }
    node = &(*node)[part];
    walked += (walked.empty() ? "" : ".") + part;
    for (size_t index : indexes) {
      if (!node->is_array() || index >= node->size()) {
        throw ConfigError(where, "\"" + walked + "\" has no element " +
                                     std::to_string(index));
      }
      node = &(*node)[index];
      walked.append("[").append(std::to_string(index)).append("]");
    }
  }
  *node = std::move(value);
}

}  // namespace pams
