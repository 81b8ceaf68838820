// MultiThreadAgentParallelRunner's worker initializer: once in each thread
// (the simulation's included) before the first task, and its failure stops
// the run with its error; a stop while a helper thread is inside a call
// that does not return ends the run at once, leaving that thread behind
// with a warning.

#include "pams/runners/parallel_runners.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <utility>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "pams/agents/fcn_agent.h"

#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"

namespace pams {
namespace {

const char* kConfig = R"({
  "simulation": {"markets": ["Market"], "agents": ["FCNAgents"], "numParallel": 3,
                 "sessions": [{"sessionName": 0, "iterationSteps": 20,
                               "withOrderPlacement": true, "withOrderExecution": true,
                               "withPrint": false, "maxNormalOrders": 3}]},
  "Market": {"class": "Market", "tickSize": 0.01, "marketPrice": 300.0},
  "FCNAgents": {"class": "FCNAgent", "numAgents": 10, "markets": ["Market"],
                "assetVolume": 50, "cashAmount": 10000, "fundamentalWeight": 1.0,
                "chartWeight": 0.0, "noiseWeight": 1.0, "noiseScale": 0.001,
                "timeWindowSize": 10, "orderMargin": 0.01}
})";

std::unique_ptr<Runner> ThreadRunner(const ClassRegistry& registry) {
  return registry.create_runner("MultiThreadAgentParallelRunner", ParseJson(kConfig, "config"),
                                Random(7), nullptr, "runner");
}

TEST(MultiThreadAgentParallelRunnerTest, InitializesEachWorkerThreadOnce) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  std::unique_ptr<Runner> runner = ThreadRunner(registry);
  std::mutex mutex;
  std::multiset<std::thread::id> threads;
  runner->set_worker_initializer([&] {
    std::lock_guard<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  runner->setup();
  runner->run();
  EXPECT_EQ(threads.size(), 3u);
  EXPECT_EQ(std::set<std::thread::id>(threads.begin(), threads.end()).size(), 3u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 1u);
}

TEST(MultiThreadAgentParallelRunnerTest, AFailingInitializerStopsTheRun) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  std::unique_ptr<Runner> runner = ThreadRunner(registry);
  runner->set_worker_initializer([] { throw SimulationError("no model here"); });
  runner->setup();
  EXPECT_THROW(
      {
        try {
          runner->run();
        } catch (const SimulationError& e) {
          EXPECT_NE(std::string(e.what()).find("no model here"), std::string::npos);
          throw;
        }
      },
      SimulationError);
}

// An FCNAgent that, from step 5, does not return from submit_orders on a
// helper thread until *release is set (and is slow on the simulation's
// thread, so that the helpers take calls of the round).
std::atomic<bool>* g_release = nullptr;
std::thread::id g_main_thread;

class StuckAgent : public FCNAgent {
 public:
  using FCNAgent::FCNAgent;
  void submit_orders(Markets markets, std::vector<Action>* orders) override {
    if (markets[0]->get_time() >= 5) {
      if (std::this_thread::get_id() == g_main_thread) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      } else {
        while (!g_release->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return;
      }
    }
    FCNAgent::submit_orders(markets, orders);
  }
};

TEST(MultiThreadAgentParallelRunnerTest, AStopLeavesAThreadInAStuckCallBehind) {
  std::atomic<bool> release{false};
  g_release = &release;
  g_main_thread = std::this_thread::get_id();
  ClassRegistry registry = ClassRegistry::WithBuiltins();
  registry.add_agent<StuckAgent>("StuckAgent");
  Json config = ParseJson(kConfig, "config");
  config["FCNAgents"]["class"] = "StuckAgent";
  std::unique_ptr<Runner> runner = registry.create_runner(
      "MultiThreadAgentParallelRunner", config, Random(7), nullptr, "runner");
  std::atomic<bool> stop{false};
  runner->set_stop_flag(&stop);
  // The program learns of the stop while the round waits (as Python's
  // signal handlers run in the wait check).
  std::chrono::steady_clock::time_point stopped_at;
  int checks = 0;
  runner->set_wait_check([&] {
    if (++checks == 5) {
      stopped_at = std::chrono::steady_clock::now();
      stop.store(true);
    }
  });
  std::vector<std::string> warnings;
  runner->simulator().set_warning_handler(
      [&](std::string_view w) { warnings.emplace_back(w); });
  runner->setup();
  try {
    runner->run();
    ADD_FAILURE() << "the run ended";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("interrupted at step "), std::string::npos)
        << e.what();
  }
  const double seconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - stopped_at).count();
  EXPECT_LT(seconds, 0.5);
  std::vector<std::string> left;
  for (const std::string& w : warnings) {
    if (w.find("left behind") != std::string::npos) left.push_back(w);
  }
  ASSERT_FALSE(left.empty());
  for (const std::string& w : left) {
    EXPECT_NE(w.find("MultiThreadAgentParallelRunner: a thread running submit_orders of agent "
                     "FCNAgents-"),
              std::string::npos) << w;
    EXPECT_NE(w.find("(StuckAgent) did not return and is left behind"), std::string::npos) << w;
  }
  EXPECT_TRUE(static_cast<MultiThreadAgentParallelRunner*>(runner.get())->left_threads_behind());
  // The run is gone; the stuck calls then return and their threads end
  // without touching it (ASan, which runs this test in make sanitize, would
  // see them touch it). ThreadSanitizer would report what the threads read
  // of the run before their calls got stuck as racing with its destruction
  // here: nothing orders the two, by design (a thread left behind cannot be
  // waited for), so this test is not in the ThreadSanitizer job.
  runner.reset();
  release.store(true);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// ConcurrencyFor is the rule a runner's concurrency() follows, for callers
// without a runner (the Python framework runners).
TEST(AgentParallelRunnerTest, ConcurrencyForIsTheRunnersRule) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  Json config = ParseJson(kConfig, "config");
  for (const auto& [num_parallel, orders] :
       std::vector<std::pair<int, int>>{{3, 3}, {8, 2}, {2, 5}, {1, 4}}) {
    config["simulation"]["numParallel"] = num_parallel;
    config["simulation"]["sessions"][0]["maxNormalOrders"] = orders;
    std::unique_ptr<Runner> runner = registry.create_runner(
        "MultiThreadAgentParallelRunner", config, Random(7), nullptr, "runner");
    runner->setup();
    const auto& parallel = dynamic_cast<const AgentParallelRunner&>(*runner);
    EXPECT_EQ(AgentParallelRunner::ConcurrencyFor(config), parallel.concurrency());
    EXPECT_EQ(parallel.concurrency(), std::min(num_parallel, orders));
  }
  // No sessions, no numParallel: one.
  EXPECT_EQ(AgentParallelRunner::ConcurrencyFor(Json::object()), 1);
  config["simulation"]["numParallel"] = 0;
  try {
    AgentParallelRunner::ConcurrencyFor(config);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("simulation.numParallel"), std::string::npos);
  }
}

}  // namespace
}  // namespace pams
