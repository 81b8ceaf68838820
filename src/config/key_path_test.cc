// Tests of AssignKeyPath (--set's paths).

#include "pams/config/key_path.h"

#include <gtest/gtest.h>

#include "pams/errors.h"

namespace pams {
namespace {

Json Base() {
  return Json::parse(R"({"simulation": {"sessions": [{"a": 1}, {"a": 2, "b": [[0, 1]]}]},
                         "FCNAgents": {"numAgents": 10}})");
}

std::string ErrorOf(const std::string& key) {
  Json config = Base();
  try {
    AssignKeyPath(&config, key, 5, "--set");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(AssignKeyPathTest, SetsExistingAndNewLastKeys) {
  Json config = Base();
  AssignKeyPath(&config, "simulation.sessions[1].a", 7, "--set");
  AssignKeyPath(&config, "simulation.sessions[1].b[0][1]", "x", "--set");
  AssignKeyPath(&config, "FCNAgents.fundamentalWeight", 1.5, "--set");
  AssignKeyPath(&config, "NewTop", Json::array({1}), "--set");
  EXPECT_EQ(config["simulation"]["sessions"][1]["a"], 7);
  EXPECT_EQ(config["simulation"]["sessions"][1]["b"][0][1], "x");
  EXPECT_EQ(config["FCNAgents"]["fundamentalWeight"], 1.5);
  EXPECT_EQ(config["NewTop"], Json::array({1}));
  // Key order is kept: a replaced value stays where it was.
  EXPECT_EQ(config.begin().key(), "simulation");
}

TEST(AssignKeyPathTest, NamesWhatIsWrong) {
  EXPECT_EQ(ErrorOf("simulation.sessions[7].a"),
            "--set simulation.sessions[7].a: \"simulation.sessions\" has no element 7");
  EXPECT_EQ(ErrorOf("simulaton.x"),
            "--set simulaton.x: \"simulaton\" does not exist (only the last key of a path "
            "may be new)");
  EXPECT_EQ(ErrorOf("FCNAgents.numAgents.x"),
            "--set FCNAgents.numAgents.x: \"FCNAgents.numAgents\" is not an object");
  EXPECT_NE(ErrorOf("simulation.sessions[x].a").find("a list index must be a number"),
            std::string::npos);
  EXPECT_NE(ErrorOf("simulation.sessions[99999999999].a").find("a list index must be a number"),
            std::string::npos);
  EXPECT_NE(ErrorOf("simulation..a").find("empty key part"), std::string::npos);
  EXPECT_NE(ErrorOf("simulation.sessions]").find("unbalanced"), std::string::npos);
}

}  // namespace
}  // namespace pams
