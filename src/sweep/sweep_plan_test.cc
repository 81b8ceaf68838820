// SweepPlan: the runs a sweep makes of its input, their order and names,
// and the input it refuses, with the messages of each face (the CLI's
// flags, pams_cpp.sweep's arguments).

#include "sweep/sweep_plan.h"

#include <gtest/gtest.h>

#include "pams/errors.h"

namespace pams::sweep {
namespace {

// The plan's input as pams sweep's flags give it.
SweepSpec Cli(std::string seeds, std::vector<std::string> grid,
              std::vector<std::string> sets = {}) {
  return {std::move(seeds), SplitAssignments(grid, "--grid", "KEY=JSON_ARRAY"),
          SplitAssignments(sets, "--set", "KEY=JSON"), CliNames()};
}

// The plan's input as pams_cpp.sweep gives it (pairs, Python's names).
SweepSpec Python(std::string seeds, std::vector<Assignment> grid,
                 std::vector<Assignment> sets = {}) {
  return {std::move(seeds), std::move(grid), std::move(sets), PythonNames()};
}

// The message of the ConfigError that making the plan throws ("" if none).
std::string Refusal(const SweepSpec& spec) {
  try {
    SweepPlan plan(spec);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(SweepPlanTest, WithoutAGridEachSeedIsARun) {
  const SweepPlan plan(Cli("3,1-2", {}));
  EXPECT_EQ(plan.points(), 1u);
  ASSERT_EQ(plan.runs().size(), 3u);
  EXPECT_EQ(plan.RunName(plan.runs()[0]), "seed-3");
  EXPECT_EQ(plan.RunName(plan.runs()[2]), "seed-2");
  EXPECT_TRUE(plan.PointSets(0).empty());
  EXPECT_TRUE(plan.Keys().empty());
}

TEST(SweepPlanTest, TheGridIsACartesianProductWithTheLastKeyFastest) {
  const SweepPlan plan(Cli("1-2", {"A.x=[1, 2]", "B.y=[\"u\", [3], 0.5]"}));
  ASSERT_EQ(plan.points(), 6u);
  ASSERT_EQ(plan.runs().size(), 12u);
  EXPECT_EQ(plan.Keys(), (std::vector<std::string>{"A.x", "B.y"}));
  EXPECT_EQ(plan.PointValues(0), (std::vector<std::string>{"1", "\"u\""}));
  EXPECT_EQ(plan.PointValues(1), (std::vector<std::string>{"1", "[3]"}));
  EXPECT_EQ(plan.PointValues(5), (std::vector<std::string>{"2", "0.5"}));
  EXPECT_EQ(plan.PointSets(4), (std::vector<std::string>{"A.x=2", "B.y=[3]"}));
  EXPECT_EQ(plan.PointAssignments(4), (std::vector<Assignment>{{"A.x", "2"}, {"B.y", "[3]"}}));
  EXPECT_EQ(plan.PointText(4), "A.x=2, B.y=[3]");
  // Point-major: every seed of a point, then the next point.
  EXPECT_EQ(plan.RunName(plan.runs()[0]), "p0-seed-1");
  EXPECT_EQ(plan.RunName(plan.runs()[1]), "p0-seed-2");
  EXPECT_EQ(plan.RunName(plan.runs()[11]), "p5-seed-2");
  EXPECT_EQ(plan.PointObject(3), (Json{{"A.x", 2}, {"B.y", "u"}}));
  EXPECT_EQ(plan.GridRecord().dump(), R"([["A.x",[1,2]],["B.y",["u",[3],0.5]]])");
}

TEST(SweepPlanTest, BothFacesMakeTheSamePlan) {
  const SweepPlan cli(Cli("1-3,7", {"A.x=[1, 2.5]", "B.y=[{\"k\": [1]}]"}, {"C.z=4"}));
  const SweepPlan python(
      Python("1-3,7", {{"A.x", "[1, 2.5]"}, {"B.y", "[{\"k\": [1]}]"}}, {{"C.z", "4"}}));
  EXPECT_EQ(cli.seeds(), python.seeds());
  EXPECT_EQ(cli.GridRecord(), python.GridRecord());
  ASSERT_EQ(cli.runs().size(), python.runs().size());
  for (size_t point = 0; point < cli.points(); ++point) {
    EXPECT_EQ(cli.PointValues(point), python.PointValues(point));
  }
  EXPECT_EQ(cli.ApplySets(Json{{"C", {{"z", 0}}}}), python.ApplySets(Json{{"C", {{"z", 0}}}}));
}

TEST(SweepPlanTest, RunNames) {
  for (const char* name : {"seed-1", "seed-1.partial", "p0-seed-2", "p12-seed-3.failed"}) {
    EXPECT_TRUE(SweepPlan::IsRunName(name)) << name;
  }
  for (const char* name : {"p-seed-1", "px-seed-1", "summary.csv", "p1seed-1", "pseed"}) {
    EXPECT_FALSE(SweepPlan::IsRunName(name)) << name;
  }
}

TEST(SweepPlanTest, BadGridsAreRefusedNamingTheGrid) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"A.x=1"}, "--grid A.x: expected a non-empty JSON array"},
      {{"A.x=[]"}, "--grid A.x: expected a non-empty JSON array"},
      {{"A.x=[1,"}, "--grid A.x"},
      {{"A.x=[1, 2, 1]"}, "--grid A.x: the value 1 is given twice"},
      {{"A.x=[1]", "A.x=[2]"}, "--grid A.x: the key is given twice"},
  };
  for (const auto& [grid, message] : cases) {
    const std::string refusal = Refusal(Cli("1", grid));
    EXPECT_NE(refusal.find(message), std::string::npos) << grid.front() << ": " << refusal;
  }
  EXPECT_NE(Refusal(Cli("1", {"A.x=[1]"}, {"A.x=2"})).find("also given to --set"),
            std::string::npos);
}

TEST(SweepPlanTest, TheFlagsFormIsTheCliFaces) {
  for (const char* grid : {"A.x", "=[1]"}) {
    try {
      SplitAssignment(grid, "--grid", "KEY=JSON_ARRAY");
      ADD_FAILURE() << "accepted " << grid;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("--grid: expected KEY=JSON_ARRAY"),
                std::string::npos)
          << e.what();
    }
  }
  // Only the first '=' splits: the value may hold more.
  EXPECT_EQ(SplitAssignment("A.x=[\"a=b\"]", "--grid", "KEY=JSON_ARRAY"),
            (Assignment{"A.x", "[\"a=b\"]"}));
}

TEST(SweepPlanTest, PythonsInputIsRefusedNamingItsArguments) {
  const std::vector<std::pair<SweepSpec, std::string>> cases = {
      {Python("1-x", {}), "seeds: expected seeds such as 1-100"},
      {Python("-1", {}), "seeds: expected seeds such as 1-100 or 1,5,9 (non-negative"},
      {Python("1,2,1", {}), "seeds: a seed is given twice: 1"},
      {Python("", {}), "seeds: expected seeds"},
      {Python("0-1000000", {}), "seeds: at most 1000000 runs"},
      {Python("1", {{"A.x", "[]"}}), "grid A.x: expected a non-empty JSON array"},
      {Python("1", {{"A.x", "[1, 1.0]"}}), "grid A.x: the value 1.0 is given twice"},
      {Python("1", {{"", "[1]"}}), "grid: an empty key"},
      {Python("1", {{"A.x", "[1]"}}, {{"A.x", "2"}}),
       "grid A.x: the key is also given to sets; give it to one of them: with a key also "
       "in sets"},
  };
  for (const auto& [spec, message] : cases) {
    const std::string refusal = Refusal(spec);
    EXPECT_NE(refusal.find(message), std::string::npos)
        << spec.seeds << ": " << (refusal.empty() ? "accepted" : refusal);
  }
}

TEST(SweepPlanTest, TooManyRunsAreRefusedWhateverTheFace) {
  std::vector<int> values(1001);
  for (int i = 0; i < 1001; ++i) values[static_cast<size_t>(i)] = i;
  EXPECT_NE(Refusal(Cli("1-1000", {"A.x=" + Json(values).dump()})).find("--grid: at most"),
            std::string::npos);
  EXPECT_NE(Refusal(Python("1-1000", {{"A.x", Json(values).dump()}})).find("grid: at most"),
            std::string::npos);
  // The limit is on the runs, checked before a range is expanded.
  EXPECT_NE(Refusal(Python("0-999999999999", {})).find("seeds: at most 1000000 runs"),
            std::string::npos);
}

TEST(SweepPlanTest, SetsApplyInOrderAndNameTheFacesInput) {
  const SweepPlan plan(Python("1", {}, {{"A.x", "1"}, {"A.y", "[1, 2]"}}));
  EXPECT_EQ(plan.ApplySets(Json{{"A", Json::object()}}),
            (Json{{"A", {{"x", 1}, {"y", {1, 2}}}}}));
  try {
    SweepPlan(Python("1", {}, {{"B.x", "1"}})).ApplySets(Json{{"A", Json::object()}});
    ADD_FAILURE() << "applied B.x";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("sets B.x", 0), 0u) << e.what();
  }
  try {
    SweepPlan(Cli("1", {}, {"A.x=fork"})).ApplySets(Json{{"A", Json::object()}});
    ADD_FAILURE() << "applied A.x=fork";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--set A.x: the value must be JSON"),
              std::string::npos)
        << e.what();
  }
}

TEST(SweepPlanTest, FormatSeedsIsParseSeedsInverse) {
  const std::vector<int64_t> seeds = {1, 2, 3, 7, 9, 10, 5};
  EXPECT_EQ(FormatSeeds(seeds), "1-3,7,9-10,5");
  EXPECT_EQ(ParseSeeds(FormatSeeds(seeds)), seeds);
}

}  // namespace
}  // namespace pams::sweep
