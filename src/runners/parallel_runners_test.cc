// MultiThreadAgentParallelRunner's worker initializer: once in each thread
// (the simulation's included) before the first task, and its failure stops
// the run with its error.

#include "pams/runners/parallel_runners.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

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

}  // namespace
}  // namespace pams
