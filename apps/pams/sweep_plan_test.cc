// SweepPlan: the runs a sweep makes of its options, their order and names,
// and the --grid input it refuses.

#include "sweep_plan.h"

#include <gtest/gtest.h>

#include "pams/errors.h"

namespace pams::cli {
namespace {

SweepOptions Options(std::string seeds, std::vector<std::string> grid,
                     std::vector<std::string> sets = {}) {
  SweepOptions options;
  options.seeds = std::move(seeds);
  options.grid = std::move(grid);
  options.sets = std::move(sets);
  return options;
}

TEST(SweepPlanTest, WithoutAGridEachSeedIsARun) {
  const SweepPlan plan(Options("3,1-2", {}));
  EXPECT_EQ(plan.points(), 1u);
  ASSERT_EQ(plan.runs().size(), 3u);
  EXPECT_EQ(plan.RunName(plan.runs()[0]), "seed-3");
  EXPECT_EQ(plan.RunName(plan.runs()[2]), "seed-2");
  EXPECT_TRUE(plan.PointSets(0).empty());
}

TEST(SweepPlanTest, TheGridIsACartesianProductWithTheLastKeyFastest) {
  const SweepPlan plan(Options("1-2", {"A.x=[1, 2]", "B.y=[\"u\", [3], 0.5]"}));
  ASSERT_EQ(plan.points(), 6u);
  ASSERT_EQ(plan.runs().size(), 12u);
  EXPECT_EQ(plan.PointValues(0), (std::vector<std::string>{"1", "\"u\""}));
  EXPECT_EQ(plan.PointValues(1), (std::vector<std::string>{"1", "[3]"}));
  EXPECT_EQ(plan.PointValues(5), (std::vector<std::string>{"2", "0.5"}));
  EXPECT_EQ(plan.PointSets(4), (std::vector<std::string>{"A.x=2", "B.y=[3]"}));
  // Point-major: every seed of a point, then the next point.
  EXPECT_EQ(plan.RunName(plan.runs()[0]), "p0-seed-1");
  EXPECT_EQ(plan.RunName(plan.runs()[1]), "p0-seed-2");
  EXPECT_EQ(plan.RunName(plan.runs()[11]), "p5-seed-2");
  EXPECT_EQ(plan.PointObject(3), (Json{{"A.x", 2}, {"B.y", "u"}}));
  EXPECT_EQ(plan.GridRecord().dump(), R"([["A.x",[1,2]],["B.y",["u",[3],0.5]]])");
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
      {{"A.x"}, "--grid: expected KEY=JSON_ARRAY"},
      {{"=[1]"}, "--grid: expected KEY=JSON_ARRAY"},
      {{"A.x=1"}, "--grid A.x: expected a non-empty JSON array"},
      {{"A.x=[]"}, "--grid A.x: expected a non-empty JSON array"},
      {{"A.x=[1,"}, "--grid A.x"},
      {{"A.x=[1, 2, 1]"}, "--grid A.x: the value 1 is given twice"},
      {{"A.x=[1]", "A.x=[2]"}, "--grid A.x: the key is given twice"},
  };
  for (const auto& [grid, message] : cases) {
    try {
      SweepPlan plan(Options("1", grid));
      ADD_FAILURE() << "accepted " << grid.front();
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(SweepPlan(Options("1", {"A.x=[1]"}, {"A.x=2"})), ConfigError);
}

TEST(SweepPlanTest, TooManyRunsAreRefused) {
  std::vector<int> values(1001);
  for (int i = 0; i < 1001; ++i) values[static_cast<size_t>(i)] = i;
  EXPECT_THROW(SweepPlan(Options("1-1000", {"A.x=" + Json(values).dump()})), ConfigError);
}

}  // namespace
}  // namespace pams::cli
