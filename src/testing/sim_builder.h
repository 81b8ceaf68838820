// Test helpers: a Simulator with markets and agents built the way
// runners/runner.cc builds them (Simulator(Random(seed)), MarketInit,
// simulator->add_market, fundamentals().add_market, market->setup(Settings)),
// without going through a config file. Header-only; for tests only.

#ifndef PAMS_SRC_TESTING_SIM_BUILDER_H_
#define PAMS_SRC_TESTING_SIM_BUILDER_H_

#include <bit>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pams/agents/agent.h"
#include "pams/config/json.h"
#include "pams/config/settings.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/random/random.h"
#include "pams/simulator/simulator.h"

namespace pams {
namespace test_support {

inline uint64_t Bits(double x) { return std::bit_cast<uint64_t>(x); }

class SimBuilder {
 public:
  explicit SimBuilder(uint64_t seed = 1)
      : simulator_(std::make_unique<Simulator>(Random(seed))) {}

  Simulator& sim() { return *simulator_; }

  // Creates market `name` of type M (id = number of markets so far) with
  // the given settings (a JSON object text), registers it in the simulator
  // (group = name unless given) and, for non-index markets, in the
  // Fundamentals, then runs setup(Settings(json, settings_path)).
  template <typename M = Market>
  M* AddMarket(const std::string& name, const std::string& settings_json,
               uint64_t prng_seed = 0, double drift = 0.0,
               double volatility = 0.0, std::string group = "",
               std::string settings_path = "Market") {
    const Json& json = Keep(Json::parse(settings_json));
    MarketInit init;
    init.market_id = static_cast<int>(simulator_->markets().size());
    init.prng = Random(prng_seed);
    init.simulator = simulator_.get();
    init.name = name;
    init.class_name = "Market";
    auto owned = std::make_unique<M>(std::move(init));
    M* market = owned.get();
    simulator_->add_market(std::move(owned), group.empty() ? name : group);
    if (dynamic_cast<IndexMarket*>(static_cast<Market*>(market)) == nullptr) {
      const Json& price = json.contains("fundamentalPrice")
                              ? json["fundamentalPrice"]
                              : json["marketPrice"];
      simulator_->fundamentals().add_market(market->market_id(),
                                            price.get<double>(), drift,
                                            volatility);
    }
    market->setup(Settings(json, settings_path));
    return market;
  }

  // Creates agent `name` of type A with prng Random(prng_seed), registers it
  // and runs setup(Settings(json, settings_path), accessible).
  template <typename A>
  A* AddAgent(const std::string& name, const std::string& settings_json,
              uint64_t prng_seed, std::vector<int> accessible,
              std::string class_name = "", std::string settings_path = "") {
    const Json& json = Keep(Json::parse(settings_json));
    AgentInit init;
    init.agent_id = static_cast<int>(simulator_->agents().size());
    init.prng = Random(prng_seed);
    init.simulator = &simulator_->view();
    init.name = name;
    init.class_name = class_name.empty() ? name : class_name;
    auto owned = std::make_unique<A>(std::move(init));
    A* agent = owned.get();
    simulator_->add_agent(std::move(owned), name);
    agent->setup(Settings(json, settings_path.empty() ? name : settings_path),
                 std::span<const int>(accessible));
    return agent;
  }

  // Advances every market one step as the runner does.
  void Step() { simulator_->update_times_on_markets(); }

  void SetRunning(bool running) {
    for (const auto& m : simulator_->market_objects()) m->set_is_running(running);
  }

  // Keeps a JSON value alive as long as the builder.
  const Json& Keep(Json json) {
    kept_.push_back(std::move(json));
    return kept_.back();
  }

 private:
  std::unique_ptr<Simulator> simulator_;
  std::deque<Json> kept_;
};

}  // namespace test_support
}  // namespace pams

#endif  // PAMS_SRC_TESTING_SIM_BUILDER_H_
