// KeyLog: keys no class reads are reported with the nearest key that is
// read; what extends a parent reads for it; notes and switched-off entries
// are left alone.

#include "config/key_log.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pams/config/json.h"
#include "pams/config/settings.h"

namespace pams {
namespace {

std::vector<std::string> Describe(const std::vector<KeyLog::UnreadKey>& keys) {
  std::vector<std::string> out;
  for (const auto& k : keys) out.push_back(k.path + " -> " + k.suggestion);
  return out;
}

TEST(KeyLogTest, ReportsUnreadKeysWithSuggestions) {
  const Json config = Json::parse(R"({
    "simulation": {"markets": ["M"], "agents": ["Child"], "numParalel": 2,
                   "numParallel": 3,
                   "sessions": [{"sessionName": 0, "maxNormalOrder": 2}]},
    "M": {"class": "Market", "tickSize": 0.01, "tickSise": 1, "MEMO": "note"},
    "Parent": {"class": "FCNAgent", "cashAmount": 1, "assetVolume": 2,
               "from": 0, "to": 3},
    "Child": {"extends": "Parent", "numAgent": 3, "_comment": "x"},
    "Unused": {"anything": 1}
  })");
  KeyLog log;
  const Settings root = log.Track(config, "");
  const Settings simulation = root["simulation"];
  simulation["markets"];
  simulation["agents"];
  simulation["sessions"].at(0)["sessionName"];
  simulation.find("maxNormalOrders");
  const Settings m = log.Track(config["M"], "M");
  m["class"];
  m["tickSize"];
  // The child is read under its own name, with its parent's keys.
  const Settings child = log.Track(config["Parent"], "Child");
  child["class"];
  child["cashAmount"];
  child.has("assetVolume");
  child.find("numAgents");
  EXPECT_EQ(Describe(log.Unread(config, {"numParallel"}, {})),
            (std::vector<std::string>{
                "simulation.numParalel -> numParallel",
                "simulation.sessions[0].maxNormalOrder -> maxNormalOrders",
                "Child.numAgent -> numAgents",
                "M.tickSise -> tickSize",
                // PAMS does not inherit a parent's from/to.
                "Parent.from -> ",
                "Parent.to -> ",
            }));
  // Entries with errors (or switched off) are not reported.
  EXPECT_EQ(Describe(log.Unread(config, {"numParallel"}, {"Child", "M", "simulation"})),
            std::vector<std::string>{});
}

}  // namespace
}  // namespace pams
