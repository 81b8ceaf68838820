// Batched model calls in the engine (Runner::set_model_batcher,
// RunBatchedAgents): each round's batching agents go through the batcher on
// the simulation thread, with one call_models per round, and the results
// are identical between SequentialRunner and MultiThreadAgentParallelRunner;
// batchModelCalls false asks their submit_orders instead; an error in a
// phase names the agent; a bad batchModelCalls is a ConfigError naming the
// key. The same for engine agents batching through Agent's own protocol
// (pams/agents/model_call.h), the process runner included.

#include "runners/model_batches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "pams/agents/fcn_agent.h"
#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/model_batcher.h"
#include "pams/runners/runner.h"

namespace pams {
namespace {

std::string Config(const std::string& simulation_extra = "") {
  return R"({
  "simulation": {"markets": ["Market"], "agents": ["FCNAgents", "ModelAgents"],
                 "numParallel": 2)" + simulation_extra + R"(,
                 "sessions": [{"sessionName": 0, "iterationSteps": 40,
                               "withOrderPlacement": true, "withOrderExecution": true,
                               "withPrint": false, "maxNormalOrders": 4}]},
  "Market": {"class": "Market", "tickSize": 0.01, "marketPrice": 300.0},
  "FCNAgents": {"class": "FCNAgent", "numAgents": 10, "markets": ["Market"],
                "assetVolume": 50, "cashAmount": 10000, "fundamentalWeight": 1.0,
                "chartWeight": 0.0, "noiseWeight": 1.0, "noiseScale": 0.001,
                "timeWindowSize": 10, "orderMargin": 0.01},
  "ModelAgents": {"class": "ModelAgent", "numAgents": 8, "markets": ["Market"],
                  "assetVolume": 50, "cashAmount": 10000}
})";
}

// The "model": a row-independent function of the input (batched and
// unbatched calls give the same bits).
double Model(double x) { return std::tanh(3.0 * x); }

// The agent's orders from the model's output.
void OrderFrom(const Agent& agent, const Market& market, double y, std::vector<Action>* out) {
  out->push_back(Order::Limit({.agent_id = agent.agent_id(), .market_id = market.market_id(),
                               .is_buy = y > 0,
                               .price = market.get_market_price() * (1.0 + 0.01 * y),
                               .volume = 1, .ttl = 5}));
}

// An agent whose input is a draw of its prng and the market price; it
// calls the model itself in submit_orders (what batchModelCalls false
// runs).
class ModelAgent : public Agent {
 public:
  using Agent::Agent;
  double Input(Markets markets) {
    return prng().random() - 0.5 + (markets[0]->get_market_price() / 300.0 - 1.0);
  }
  void submit_orders(Markets markets, std::vector<Action>* orders) override {
    ++unbatched_calls;
    OrderFrom(*this, *markets[0], Model(Input(markets)), orders);
  }
  int unbatched_calls = 0;
};

class FakeBatcher : public ModelBatcher {
 public:
  bool batches(const Agent& agent) const override {
    return dynamic_cast<const ModelAgent*>(&agent) != nullptr;
  }
  void prepare(Agent& agent, Markets markets) override {
    EXPECT_EQ(std::this_thread::get_id(), thread);
    if (agent.name() == fail_prepare) throw std::runtime_error("prepare failed");
    inputs[&agent] = static_cast<ModelAgent&>(agent).Input(markets);
  }
  void call_models() override {
    if (fail_model) throw std::runtime_error("the model failed for agents ...");
    batch_sizes.push_back(static_cast<int>(inputs.size()));
    for (const auto& [agent, x] : inputs) outputs[agent] = Model(x);
  }
  void submit(Agent& agent, Markets markets, std::vector<Action>* actions) override {
    OrderFrom(agent, *markets[0], outputs.at(&agent), actions);
  }
  void clear() override {
    inputs.clear();
    outputs.clear();
  }
  std::thread::id thread = std::this_thread::get_id();
  std::map<Agent*, double> inputs, outputs;
  std::vector<int> batch_sizes;
  std::string fail_prepare;
  bool fail_model = false;
};

// Every market price and every agent's cash and volume.
struct Outcome {
  std::vector<double> prices;
  std::vector<double> cash;
  std::vector<int64_t> volumes;
  bool operator==(const Outcome&) const = default;
};

Outcome RunWith(const std::string& runner_class, FakeBatcher* batcher, const std::string& extra = "",
            int* unbatched_calls = nullptr) {
  ClassRegistry registry = ClassRegistry::WithBuiltins();
  registry.add_agent<ModelAgent>("ModelAgent");
  std::unique_ptr<Runner> runner = registry.create_runner(
      runner_class, ParseJson(Config(extra), "config"), Random(11), nullptr, "runner");
  runner->set_model_batcher(batcher);
  runner->setup();
  runner->run();
  Outcome out;
  const Market& market = *runner->simulator().markets()[0];
  for (int64_t t = 0; t <= market.get_time(); ++t) out.prices.push_back(market.get_market_price(t));
  for (const auto& agent : runner->simulator().agents()) {
    out.cash.push_back(agent->cash_amount());
    out.volumes.push_back(agent->get_asset_volume(0));
    if (unbatched_calls != nullptr) {
      if (auto* m = dynamic_cast<ModelAgent*>(agent.get())) *unbatched_calls += m->unbatched_calls;
    }
  }
  return out;
}

TEST(ModelBatchesTest, EveryRunnerMakesTheSameBatchesAndResults) {
  FakeBatcher sequential_batcher;
  const Outcome sequential = RunWith("SequentialRunner", &sequential_batcher);
  ASSERT_FALSE(sequential_batcher.batch_sizes.empty());
  int largest = 0;
  for (int n : sequential_batcher.batch_sizes) largest = std::max(largest, n);
  EXPECT_GT(largest, 1);
  FakeBatcher thread_batcher;
  EXPECT_EQ(RunWith("MultiThreadAgentParallelRunner", &thread_batcher), sequential);
  EXPECT_EQ(thread_batcher.batch_sizes, sequential_batcher.batch_sizes);
  // The model is row-independent: unbatched gives the same results.
  FakeBatcher unused;
  int unbatched_calls = 0;
  EXPECT_EQ(RunWith("SequentialRunner", &unused, R"(, "batchModelCalls": false)", &unbatched_calls),
            sequential);
  EXPECT_TRUE(unused.batch_sizes.empty());
  int rows = 0;
  for (int n : sequential_batcher.batch_sizes) rows += n;
  EXPECT_EQ(unbatched_calls, rows);
}

TEST(ModelBatchesTest, ErrorsNameTheAgent) {
  for (const char* runner_class : {"SequentialRunner", "MultiThreadAgentParallelRunner"}) {
    FakeBatcher batcher;
    batcher.fail_prepare = "ModelAgents-3";
    try {
      RunWith(runner_class, &batcher);
      ADD_FAILURE() << "no error";
    } catch (const SimulationError& e) {
      EXPECT_NE(std::string(e.what()).find("agent ModelAgents-3 (ModelAgent) failed"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("prepare failed"), std::string::npos) << e.what();
    }
    FakeBatcher failing_model;
    failing_model.fail_model = true;
    try {
      RunWith(runner_class, &failing_model);
      ADD_FAILURE() << "no error";
    } catch (const SimulationError& e) {
      EXPECT_NE(std::string(e.what()).find("the model failed for agents"), std::string::npos)
          << e.what();
    }
  }
}

TEST(ModelBatchesTest, BatchModelCallsMustBeABool) {
  FakeBatcher batcher;
  try {
    RunWith("SequentialRunner", &batcher, R"(, "batchModelCalls": "yes")");
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "simulation.batchModelCalls");
  }
}

// --- The engine's own protocol (Agent::batches_model_calls) ---

// A BatchModel that counts its batches: each output row is a row-wise
// function of the input row.
class CountingModel : public BatchModel {
 public:
  std::string name() const override { return "counting"; }
  void run_batch(std::span<ModelCall* const> calls) const override {
    if (fail) throw std::runtime_error("no signal");
    batch_sizes.push_back(static_cast<int>(calls.size()));
    for (ModelCall* c : calls) c->outputs = {static_cast<float>(Model(c->inputs[0]))};
  }
  mutable std::vector<int> batch_sizes;
  bool fail = false;
};

CountingModel* g_model = nullptr;

// ModelAgent's decisions through the engine's protocol.
class EngineModelAgent : public ModelAgent {
 public:
  using ModelAgent::ModelAgent;
  bool batches_model_calls() const override { return true; }
  void prepare_model_calls(Markets markets, std::vector<ModelCall>* calls) override {
    ModelCall call;
    call.model = g_model;
    call.inputs = {static_cast<float>(Input(markets))};
    calls->push_back(std::move(call));
  }
  void submit_orders_with_model_outputs(Markets markets, std::span<const ModelCall> calls,
                                        std::vector<Action>* orders) override {
    ASSERT_EQ(calls.size(), 1u);
    OrderFrom(*this, *markets[0], calls[0].outputs[0], orders);
  }
  void submit_orders(Markets markets, std::vector<Action>* orders) override {
    ++unbatched_calls;
    std::vector<ModelCall> calls;
    prepare_model_calls(markets, &calls);
    calls[0].model->run_one(&calls[0]);
    submit_orders_with_model_outputs(markets, calls, orders);
  }
};

Outcome RunEngine(const std::string& runner_class, const std::string& extra = "") {
  ClassRegistry registry = ClassRegistry::WithBuiltins();
  registry.add_agent<EngineModelAgent>("ModelAgent");
  std::unique_ptr<Runner> runner = registry.create_runner(
      runner_class, ParseJson(Config(extra), "config"), Random(11), nullptr, "runner");
  runner->setup();
  runner->run();
  Outcome out;
  const Market& market = *runner->simulator().markets()[0];
  for (int64_t t = 0; t <= market.get_time(); ++t) out.prices.push_back(market.get_market_price(t));
  for (const auto& agent : runner->simulator().agents()) {
    out.cash.push_back(agent->cash_amount());
    out.volumes.push_back(agent->get_asset_volume(0));
  }
  return out;
}

TEST(ModelBatchesTest, EngineAgentsBatchUnderEveryRunner) {
  CountingModel model;
  g_model = &model;
  const Outcome sequential = RunEngine("SequentialRunner");
  const std::vector<int> batches = model.batch_sizes;
  ASSERT_FALSE(batches.empty());
  EXPECT_GT(*std::max_element(batches.begin(), batches.end()), 1);
  model.batch_sizes.clear();
  EXPECT_EQ(RunEngine("MultiThreadAgentParallelRunner"), sequential);
  EXPECT_EQ(model.batch_sizes, batches);
  model.batch_sizes.clear();
  EXPECT_EQ(RunEngine("MultiProcessAgentParallelRunner", R"(, "startMethod": "fork")"),
            sequential);
  EXPECT_EQ(model.batch_sizes, batches);  // all in this process
  // Unbatched: one row a call, same results (a row-wise model).
  model.batch_sizes.clear();
  EXPECT_EQ(RunEngine("SequentialRunner", R"(, "batchModelCalls": false)"), sequential);
  EXPECT_EQ(std::set<int>(model.batch_sizes.begin(), model.batch_sizes.end()),
            std::set<int>{1});
  // A failing model names itself and its agents.
  model.fail = true;
  try {
    RunEngine("SequentialRunner");
    ADD_FAILURE() << "no error";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("the batched call of model counting on"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("for agents ModelAgents-"), std::string::npos)
        << e.what();
  }
  g_model = nullptr;
}

}  // namespace
}  // namespace pams
