// One run of a sweep: each grid point checked before any run, with the
// message naming the face's grid; a Python task's run in this process gives
// the steps and the facts of the CLI's way of making the same run.

#include "sweep/sweep_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pams/errors.h"
#include "pams/logs/csv_loggers.h"

namespace pams::sweep {
namespace {

namespace fs = std::filesystem;

// CI2002, short.
Json ShortCi2002() {
  Json config = ParseJsonFile(std::string(PAMS_SOURCE_DIR) + "/samples/CI2002/config.json");
  config["simulation"]["sessions"][1]["iterationSteps"] = 50;
  return config;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class SweepRunTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("sweep_run_test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  const ClassRegistry registry_ = ClassRegistry::WithBuiltins();
};

TEST_F(SweepRunTest, CheckPointsNamesTheBadPointAsEachFaceCallsTheGrid) {
  for (const SweepNames& names : {CliNames(), PythonNames()}) {
    const SweepPlan plan(SweepSpec{
        "1-2", {{"FCNAgents.timeWindowSize", "[[100, 200], [100]]"}}, {}, names});
    try {
      CheckPoints(registry_, plan, ShortCi2002(), {"", "SequentialRunner", names},
                  [](std::string_view) {});
      ADD_FAILURE() << "accepted timeWindowSize [100]";
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(
                    names.grid + " point 1 (FCNAgents.timeWindowSize=[100]): ", 0),
                0u)
          << e.what();
    }
  }
}

TEST_F(SweepRunTest, CheckPointsNamesTheRunnerAndGivesTheWarnings) {
  const SweepPlan plan(SweepSpec{"1", {}, {{"simulation.unreadKey", "1"}}, PythonNames()});
  const Json config = plan.ApplySets(ShortCi2002());
  try {
    CheckPoints(registry_, plan, config, {"", "NoSuchRunner", plan.names()},
                [](std::string_view) {});
    ADD_FAILURE() << "accepted NoSuchRunner";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("runner", 0), 0u) << e.what();
  }
  std::vector<std::string> warnings;
  CheckPoints(registry_, plan, config, {"", "SequentialRunner", plan.names()},
              [&warnings](std::string_view message) { warnings.emplace_back(message); });
  EXPECT_EQ(std::count_if(warnings.begin(), warnings.end(),
                          [](const std::string& w) {
                            return w.find("unreadKey") != std::string::npos;
                          }),
            1);
}

TEST_F(SweepRunTest, APythonTaskRunsAsTheCliWorkerDoes) {
  const std::vector<Assignment> point = {{"FCNAgents.fundamentalWeight", "0.50"}};
  const RunSite site{"", "SequentialRunner", PythonNames()};
  const analysis::RunFacts facts = RunInProcess(registry_, ShortCi2002(), point, 7, site, {},
                                                (dir_ / "task.csv").string());
  EXPECT_EQ(facts.seed, 7);
  EXPECT_EQ(facts.point_values, (std::vector<std::string>{"0.5"}));
  ASSERT_EQ(facts.markets.size(), 1u);
  EXPECT_EQ(facts.markets[0].steps, 150);

  // The CLI's worker: the same config and runner, with its own loggers.
  {
    Loggers loggers;
    StepsCsvLogger steps((dir_ / "cli.csv").string());
    loggers.add(&steps);
    std::FILE* out = std::tmpfile();
    MakeRunner(registry_, PointConfig(ShortCi2002(), point, CliNames()), 7,
               {"", "SequentialRunner", CliNames()}, &loggers, [](std::string_view) {})
        ->main(out);
    std::fclose(out);
  }
  EXPECT_EQ(ReadFile(dir_ / "task.csv"), ReadFile(dir_ / "cli.csv"));
  const std::vector<analysis::RunFacts> cli =
      RunsFacts({{0, {"0.5"}, 7, (dir_ / "cli.csv").string()}}, 1, {});
  EXPECT_EQ(analysis::SummaryCsv(cli, {"FCNAgents.fundamentalWeight"}),
            analysis::SummaryCsv({facts}, {"FCNAgents.fundamentalWeight"}));
}

TEST_F(SweepRunTest, ABrokenStepsFileIsTheRunsErrorNotAThrow) {
  const std::vector<analysis::RunFacts> facts =
      RunsFacts({{2, {"1"}, 3, (dir_ / "missing.csv").string()}}, 1, {});
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].point, 2u);
  EXPECT_FALSE(facts[0].error.empty());
}

}  // namespace
}  // namespace pams::sweep
