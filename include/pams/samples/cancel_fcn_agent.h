// CancelFCNAgent: the agent of PAMS development branch's cancel_test sample
// (plhamJ's CancelTest): an FCNAgent that cancels each order it places with
// probability cancelRate, right after placing it. For each market, its
// cancels follow all of that market's orders (one random() per order), so
// each order is placed before it is canceled; an order executed in full on
// placement is canceled to no effect.
//
// Config keys (besides FCNAgent's): cancelRate (optional, JsonRandom, in
// [0, 1]; default 0.3, plhamJ's). A built-in class since PAMS's development
// branch, replaceable as its sample's class (class_registry.h). Threading:
// see Agent.

#ifndef PAMS_SAMPLES_CANCEL_FCN_AGENT_H_
#define PAMS_SAMPLES_CANCEL_FCN_AGENT_H_

#include <vector>

#include "pams/agents/fcn_agent.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT CancelFCNAgent : public FCNAgent {
 public:
  static constexpr double kDefaultCancelRate = 0.3;

  explicit CancelFCNAgent(AgentInit init) : FCNAgent(std::move(init)) {}

  void setup(const Settings& settings,
             std::span<const int> accessible_market_ids) override;
  void submit_orders(Markets markets, std::vector<Action>* orders) override;

  double cancel_rate() const { return cancel_rate_; }

 private:
  double cancel_rate_ = kDefaultCancelRate;
};

}  // namespace pams

#endif  // PAMS_SAMPLES_CANCEL_FCN_AGENT_H_
