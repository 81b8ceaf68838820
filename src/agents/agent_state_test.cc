// Agent::serialize_state / deserialize_state: an agent of the same class and
// setup that loads another's state behaves identically afterwards.

#include <gtest/gtest.h>

#include <string>

#include "pams/agents/fcn_agent.h"
#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"
#include "pams/util/state.h"

namespace pams {
namespace {

class CountingAgent : public FCNAgent {
 public:
  using FCNAgent::FCNAgent;
  void submit_orders(Markets markets, std::vector<Action>* orders) override {
    ++calls_;
    FCNAgent::submit_orders(markets, orders);
  }
  void save_state(StateWriter& out) const override { out.write(calls_); }
  void load_state(StateReader& in) override { calls_ = in.read<int64_t>(); }
  int64_t calls() const { return calls_; }

 private:
  int64_t calls_ = 0;
};

Json Config() {
  Json c = ParseJsonFile(std::string(PAMS_SOURCE_DIR) +
                         "/samples/CI2002/config.json");
  c["FCNAgents"]["class"] = "CountingAgent";
  return c;
}

TEST(AgentStateTest, RoundTripCarriesEverything) {
  ClassRegistry registry = ClassRegistry::WithBuiltins();
  registry.add_agent<CountingAgent>("CountingAgent");
  SequentialRunner a(Config(), Random(3), nullptr, registry);
  SequentialRunner b(Config(), Random(3), nullptr, registry);
  a.setup();
  b.setup();
  a.run();  // changes cash, assets, prngs and call counts of a's agents
  for (size_t i = 0; i < a.simulator().agents().size(); ++i) {
    Agent& from = *a.simulator().agents()[i];
    Agent& to = *b.simulator().agents()[i];
    std::string state;
    from.serialize_state(&state);
    to.deserialize_state(state);
    EXPECT_EQ(from.cash_amount(), to.cash_amount());
    EXPECT_EQ(from.get_asset_volume(0), to.get_asset_volume(0));
    EXPECT_EQ(from.prng().getstate(), to.prng().getstate());
    EXPECT_EQ(static_cast<CountingAgent&>(from).calls(),
              static_cast<CountingAgent&>(to).calls());
    std::string again;
    to.serialize_state(&again);
    EXPECT_EQ(state, again);
  }
}

TEST(AgentStateTest, MalformedStateIsAnError) {
  ClassRegistry registry = ClassRegistry::WithBuiltins();
  registry.add_agent<CountingAgent>("CountingAgent");
  SequentialRunner a(Config(), Random(3), nullptr, registry);
  a.setup();
  Agent& agent = *a.simulator().agents()[0];
  std::string state;
  agent.serialize_state(&state);
  EXPECT_THROW(agent.deserialize_state(state.substr(0, state.size() - 1)),
               SimulationError);
  EXPECT_THROW(agent.deserialize_state(state + "x"), SimulationError);
}

}  // namespace
}  // namespace pams
