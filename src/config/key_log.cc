#include "config/key_log.h"

#include <algorithm>
#include <map>

#include "support/edit_distance.h"

namespace pams {

namespace {

// The last part of a key path ("FCNAgents.numAgents" -> "numAgents").
std::string LastKey(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

const std::string* Extends(const Json& config, const std::string& name) {
  if (!config.contains(name) || !config[name].is_object()) return nullptr;
  const Json& entry = config[name];
  auto it = entry.find("extends");
  if (it == entry.end() || !it->is_string()) return nullptr;
  return it->get_ptr<const std::string*>();
}

// Keys that hold notes for people, never read: PAMS's samples write "MEMO".
bool IsComment(const std::string& key) {
  static const char* const kComments[] = {"MEMO", "memo", "comment", "comments",
                                          "description", "note", "notes"};
  for (const char* c : kComments) {
    if (key == c) return true;
  }
  return key.starts_with("_") || key.starts_with("//") || key.starts_with("#");
}

void AddNames(const Json& list, std::vector<std::string>* out) {
  if (!list.is_array()) return;
  for (const Json& name : list) {
    if (name.is_string()) out->push_back(name.get<std::string>());
  }
}

}  // namespace

std::vector<KeyLog::UnreadKey> KeyLog::Unread(
    const Json& config, const std::vector<std::string>& other_runners_keys,
    const std::vector<std::string>& skipped) const {
  std::vector<UnreadKey> unread;
  if (!config.is_object() || !config.contains("simulation") ||
      !config["simulation"].is_object()) {
    return unread;
  }
  const Json& simulation = config["simulation"];
  // The entries the simulation uses directly.
  std::vector<std::string> used;
  if (simulation.contains("markets")) AddNames(simulation["markets"], &used);
  if (simulation.contains("agents")) AddNames(simulation["agents"], &used);
  const Json* sessions = simulation.contains("sessions") ? &simulation["sessions"] : nullptr;
  if (sessions != nullptr && sessions->is_array()) {
    for (const Json& session : *sessions) {
      if (session.is_object() && session.contains("events")) {
        AddNames(session["events"], &used);
      }
    }
  }
  // Each entry read through itself or an entry extending it.
  std::map<std::string, std::vector<std::string>> readers;
  for (const std::string& name : used) {
    std::string current = name;
    for (size_t depth = 0; depth < 64; ++depth) {  // extends loops are errors
      std::vector<std::string>& r = readers[current];
      if (std::find(r.begin(), r.end(), name) == r.end()) r.push_back(name);
      const std::string* parent = Extends(config, current);
      if (parent == nullptr) break;
      current = *parent;
    }
  }
  // Suggestions come from the keys that were read.
  std::set<std::string> known;
  for (const std::string& path : read_) known.insert(LastKey(path));
  known.insert(other_runners_keys.begin(), other_runners_keys.end());
  auto report = [&](const std::string& path, const std::string& key) {
    UnreadKey u{path, ""};
    size_t best = std::max<size_t>(2, key.size() / 3) + 1;
    for (const std::string& candidate : known) {
      const size_t d = EditDistance(key, candidate);
      if (d < best && candidate != key) {
        best = d;
        u.suggestion = candidate;
      }
    }
    unread.push_back(std::move(u));
  };
  auto is_skipped = [&](const std::string& name) {
    return std::find(skipped.begin(), skipped.end(), name) != skipped.end();
  };

  if (!is_skipped("simulation")) {
    for (auto it = simulation.begin(); it != simulation.end(); ++it) {
      const std::string path = "simulation." + it.key();
      if (WasRead(path) || IsComment(it.key()) ||
          std::find(other_runners_keys.begin(), other_runners_keys.end(),
                    it.key()) != other_runners_keys.end()) {
        continue;
      }
      report(path, it.key());
    }
    if (sessions != nullptr && sessions->is_array()) {
      for (size_t i = 0; i < sessions->size(); ++i) {
        const Json& session = (*sessions)[i];
        if (!session.is_object()) continue;
        const std::string prefix = "simulation.sessions[" + std::to_string(i) + "]";
        for (auto it = session.begin(); it != session.end(); ++it) {
          const std::string path = prefix + "." + it.key();
          if (!WasRead(path) && !IsComment(it.key())) report(path, it.key());
        }
      }
    }
  }
  for (const auto& [entry, entry_readers] : readers) {
    if (!config.contains(entry) || !config[entry].is_object()) continue;
    bool skip = false;
    for (const std::string& r : entry_readers) skip = skip || is_skipped(r);
    if (skip || is_skipped(entry)) continue;
    const Json& object = config[entry];
    for (auto it = object.begin(); it != object.end(); ++it) {
      if (it.key() == "extends" || IsComment(it.key())) continue;
      bool read = false;
      for (const std::string& r : entry_readers) {
        read = read || WasRead(r + "." + it.key());
      }
      if (!read) report(entry + "." + it.key(), it.key());
    }
  }
  return unread;
}

}  // namespace pams
