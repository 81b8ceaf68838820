// Tests of the worker CPU plan (workerCpuAffinity) and of PinProcess.

#include "runners/cpu_affinity.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <thread>

#include "pams/config/json.h"
#include "pams/config/settings.h"
#include "pams/errors.h"

namespace pams {
namespace {

using Plan = std::vector<std::vector<int>>;

Plan PlanOf(const char* json, const std::vector<int>& allowed, int workers) {
  const Json value = Json::parse(json);
  return PlanWorkerCpus(Settings(value, "simulation.workerCpuAffinity"), allowed,
                        workers);
}

std::string ErrorOf(const char* json, const std::vector<int>& allowed, int workers) {
  try {
    PlanOf(json, allowed, workers);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SplitCpusTest, ConsecutiveBlocksFirstOnesLarger) {
  EXPECT_EQ(SplitCpus({0, 1}, 2), (Plan{{0}, {1}}));
  EXPECT_EQ(SplitCpus({0, 1, 2, 3, 4}, 2), (Plan{{0, 1, 2}, {3, 4}}));
  EXPECT_EQ(SplitCpus({2, 3, 6, 7}, 1), (Plan{{2, 3, 6, 7}}));
  // More workers than CPUs: they take turns.
  EXPECT_EQ(SplitCpus({4, 5}, 3), (Plan{{4}, {5}, {4}}));
}

TEST(PlanWorkerCpusTest, ReadsEveryForm) {
  EXPECT_EQ(PlanOf("false", {0, 1}, 2), Plan{});
  EXPECT_EQ(PlanOf("true", {0, 1, 2, 3}, 2), (Plan{{0, 1}, {2, 3}}));
  EXPECT_EQ(PlanOf("[1, 0]", {0, 1}, 2), (Plan{{1}, {0}}));
  EXPECT_EQ(PlanOf("[[3, 2, 3], 0]", {0, 1, 2, 3}, 3), (Plan{{2, 3}, {0}, {2, 3}}));
}

TEST(PlanWorkerCpusTest, RefusesBadValuesNamingTheKey) {
  EXPECT_NE(ErrorOf("\"yes\"", {0, 1}, 2).find("simulation.workerCpuAffinity: expected true"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[]", {0, 1}, 2).find("non-empty array"), std::string::npos);
  EXPECT_NE(ErrorOf("[0, []]", {0, 1}, 2).find("simulation.workerCpuAffinity[1]: expected a non-empty"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[0, 7]", {0, 1}, 2)
                .find("simulation.workerCpuAffinity[1]: CPU 7 is not one this process may "
                      "run on (it may run on 0-1)"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[[0, -1]]", {0, 1}, 1).find("simulation.workerCpuAffinity[0][1]: CPU -1"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[true]", {0, 1}, 1).find("simulation.workerCpuAffinity[0]"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[0.5]", {0, 1}, 1).find("simulation.workerCpuAffinity[0]"),
            std::string::npos);
}

TEST(FormatCpusTest, WritesRanges) {
  EXPECT_EQ(FormatCpus({0}), "0");
  EXPECT_EQ(FormatCpus({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
}

// Runs in a forked child, so that this test process keeps its affinity.
TEST(PinProcessTest, PinsEveryThreadOfTheProcess) {
  const std::vector<int> allowed = AllowedCpus();
  const int cpu = allowed.back();
  EXPECT_EXIT(
      {
        std::atomic<bool> done{false};
        std::thread other([&] {
          while (!done.load()) std::this_thread::yield();
        });
        const std::string error = PinProcess({cpu});
        cpu_set_t set;
        CPU_ZERO(&set);
        sched_getaffinity(0, sizeof set, &set);
        const bool main_pinned = CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
        CPU_ZERO(&set);
        pthread_getaffinity_np(other.native_handle(), sizeof set, &set);
        const bool other_pinned = CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
        done = true;
        other.join();
        std::exit(error.empty() && main_pinned && other_pinned ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(PinProcess({CPU_SETSIZE - 1}).empty(), false);
}

}  // namespace
}  // namespace pams
