// DarkPoolFCNAgent: the agent of PAMS development branch's dark_pool sample.
// It orders only when asked about a DarkPoolMarket it can access: it decides
// the orders an FCNAgent would place in that dark pool's lit market and
// sends each of them to the dark pool instead, as a market order of the
// same side, volume and ttl, with probability "darkPoolChance" (one
// random() per order), else to the lit market unchanged. It must be able
// to trade in both markets.
//
// Config keys (besides FCNAgent's): darkPoolChance (required, JsonRandom,
// in [0, 1]). A built-in class since PAMS's development branch, replaceable
// as its sample's class (class_registry.h). Threading: see Agent.

#ifndef PAMS_SAMPLES_DARK_POOL_FCN_AGENT_H_
#define PAMS_SAMPLES_DARK_POOL_FCN_AGENT_H_

#include <vector>

#include "pams/agents/fcn_agent.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT DarkPoolFCNAgent : public FCNAgent {
 public:
  explicit DarkPoolFCNAgent(AgentInit init) : FCNAgent(std::move(init)) {}

  void setup(const Settings& settings,
             std::span<const int> accessible_market_ids) override;
  void submit_orders(Markets markets, std::vector<Action>* orders) override;

  double dark_pool_chance() const { return dark_pool_chance_; }

 private:
  double dark_pool_chance_ = 0.0;
  std::vector<Action> lit_orders_;  // scratch, reused
};

}  // namespace pams

#endif  // PAMS_SAMPLES_DARK_POOL_FCN_AGENT_H_
