// LocateKey: the JSON value that an error's key path names in a config, so
// that validation can set it to another value and look for further
// problems. Private to the library.

#ifndef PAMS_SRC_CONFIG_CONFIG_PATH_H_
#define PAMS_SRC_CONFIG_CONFIG_PATH_H_

#include <string>

#include "pams/config/json.h"

namespace pams {

// The value at `path` ("FCNAgents.timeWindowSize",
// "simulation.sessions[1].iterationSteps", "Market.markets[0]"): the first
// part names a top-level entry; a key the entry lacks is looked for in the
// entries it extends. nullptr when the path names nothing there, or names
// a whole entry.
Json* LocateKey(Json* config, const std::string& path);

}  // namespace pams

#endif  // PAMS_SRC_CONFIG_CONFIG_PATH_H_
