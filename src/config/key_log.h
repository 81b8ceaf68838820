// KeyLog: which config keys the classes read while a runner set them up, so
// that keys nobody reads (almost always typos: "numAgent" for "numAgents")
// can be reported. PAMS ignores such keys silently; pams-cpp warns and still
// runs, since PAMS runs the same config.
//
// A Settings made by KeyLog::Track records every key looked up through it or
// through any Settings taken from it (has, find, operator[]). One thread:
// the one that sets the simulation up. Private to the library.

#ifndef PAMS_SRC_CONFIG_KEY_LOG_H_
#define PAMS_SRC_CONFIG_KEY_LOG_H_

#include <set>
#include <string>
#include <vector>

#include "pams/config/json.h"
#include "pams/config/settings.h"

namespace pams {

class KeyLog {
 public:
  KeyLog() = default;
  KeyLog(const KeyLog&) = delete;
  KeyLog& operator=(const KeyLog&) = delete;

  // A Settings of `json` at `path` whose lookups are recorded here.
  Settings Track(const Json& json, std::string path) {
    return Settings(json, std::move(path), this);
  }
  void Read(std::string path) { read_.insert(std::move(path)); }
  bool WasRead(const std::string& path) const { return read_.count(path) > 0; }

  struct UnreadKey {
    std::string path;        // e.g. "FCNAgents.numAgent"
    std::string suggestion;  // the nearest key that is read, or empty
  };
  // The keys of `config` that no class read: the keys of every entry the
  // simulation uses (its market and agent groups, its sessions' events, and
  // the entries they extend), of "simulation" (but `other_runners_keys`,
  // which runners other than this one read) and of each session. A parent's
  // key counts as read when an entry extending it read it. Notes for people
  // ("MEMO", as PAMS's samples write, "comment", "description", "note(s)",
  // and keys starting with "_", "//" or "#") are never reported. Entries
  // whose name is in `skipped` (those with errors, empty groups) are left
  // out.
  std::vector<UnreadKey> Unread(const Json& config,
                                const std::vector<std::string>& other_runners_keys,
                                const std::vector<std::string>& skipped) const;

 private:
  std::set<std::string> read_;
};

}  // namespace pams

#endif  // PAMS_SRC_CONFIG_KEY_LOG_H_
