// Helpers shared by the built-in events' setup(): the keys several events
// read the same way. Private to the library.

#ifndef PAMS_SRC_EVENTS_EVENT_SETTINGS_H_
#define PAMS_SRC_EVENTS_EVENT_SETTINGS_H_

#include <string>
#include <vector>

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/market/market.h"
#include "pams/simulator/simulator.h"

namespace pams {

// The market named by settings[key].
inline Market* MarketNamedBy(const Settings& settings, const char* key,
                             const Simulator& simulator) {
  const Settings name = settings[key];
  Market* market = simulator.find_market(name.as_string());
  if (market == nullptr) {
    name.fail("no market is named \"" + name.as_string() + "\"");
  }
  return market;
}

// The markets named by the list settings[key], without repeats.
inline std::vector<Market*> MarketsNamedBy(const Settings& settings,
                                           const char* key,
                                           const Simulator& simulator) {
  const Settings names = settings[key];
  const std::vector<std::string> list = names.as_string_list();
  std::vector<Market*> markets;
  for (size_t i = 0; i < list.size(); ++i) {
    Market* market = simulator.find_market(list[i]);
    if (market == nullptr) {
      names.at(i).fail("no market is named \"" + list[i] + "\"");
    }
    bool seen = false;
    for (Market* m : markets) seen = seen || m == market;
    if (!seen) markets.push_back(market);
  }
  return markets;
}

// PAMS reads "enabled" and tests it for truth; we accept booleans only.
inline bool EnabledFlag(const Settings& settings) {
  if (auto enabled = settings.find("enabled")) return enabled->as_bool();
  return true;
}

// A float-typed key: PAMS requires a Python float here (isinstance(x,
// float)), so an integer such as 1 is refused as PAMS refuses it.
inline double StrictFloat(const Settings& settings, const char* key) {
  const Settings v = settings[key];
  if (!v.json().is_number_float()) {
    v.fail("expected a number with a decimal point (PAMS requires a float), "
           "got " + JsonTypeName(v.json()));
  }
  return v.as_float();
}

// A number of steps or a step in settings[key], between min and 10^12 (the
// most steps a simulation may have), so that adding it to a time cannot
// overflow.
inline int64_t StepsSetting(const Settings& settings, const char* key, int64_t min) {
  constexpr int64_t kMaxSteps = 1'000'000'000'000;
  const Settings v = settings[key];
  const int64_t n = v.as_int();
  if (n < min || n > kMaxSteps) {
    v.fail("must be between " + std::to_string(min) + " and " +
           std::to_string(kMaxSteps) + ", got " + std::to_string(n));
  }
  return n;
}

}  // namespace pams

#endif  // PAMS_SRC_EVENTS_EVENT_SETTINGS_H_
