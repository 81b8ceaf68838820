// AssignKeyPath: sets one value of a config by its key path, the way
// `pams run --set KEY=JSON`, `pams sweep --grid` and pams_cpp.sweep's
// `sets` and `grid` do ("simulation.sessions[1].maxNormalOrders": dotted
// keys, [i] for list elements).
//
// Thread safety: changes only *config; safe on distinct configs.

#ifndef PAMS_CONFIG_KEY_PATH_H_
#define PAMS_CONFIG_KEY_PATH_H_

#include <string>

#include "pams/config/json.h"
#include "pams/export.h"

namespace pams {

// (*config)[key] = value. Only the last key of the path may be new (a typo
// in the middle of a path is an error, not a new branch), and indices must
// exist. Throws ConfigError(what + " " + key, why) when the key names no
// place, e.g. what = "--set": `--set simulation.sessions[7].x: "simulation.
// sessions" has no element 7`.
PAMS_EXPORT void AssignKeyPath(Json* config, const std::string& key, Json value,
                               const std::string& what);

}  // namespace pams

#endif  // PAMS_CONFIG_KEY_PATH_H_
