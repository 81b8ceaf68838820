// InvestDivFCNAgent: the agent of PAMS development branch's invest_div sample
// (after Nozaki, Mizuta and Yagi 2016): an FCNAgent under a rule for
// investment diversification. When asked, it values its position: net asset
// value = cash + sum of price * volume over its accessible markets.
//   * If the sum of the absolute position values exceeds leverageRatio times
//     the net asset value, it places nothing.
//   * Otherwise it makes FCNAgent's orders over its accessible markets; an
//     order for a market whose absolute position value is at most
//     diversityRatio times the net asset value is kept, any other is
//     replaced by a market order of volume 1 (ttl 10) that reduces the
//     position, placed only when it can execute at once (the market is
//     running and the other side of its book has orders).
//
// Config keys (besides FCNAgent's): leverageRatio, diversityRatio (both
// required numbers). A built-in class since PAMS's development branch,
// replaceable as its sample's class (class_registry.h). Threading: see
// Agent.

#ifndef PAMS_SAMPLES_INVEST_DIV_FCN_AGENT_H_
#define PAMS_SAMPLES_INVEST_DIV_FCN_AGENT_H_

#include <vector>

#include "pams/agents/fcn_agent.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT InvestDivFCNAgent : public FCNAgent {
 public:
  explicit InvestDivFCNAgent(AgentInit init) : FCNAgent(std::move(init)) {}

  void setup(const Settings& settings,
             std::span<const int> accessible_market_ids) override;
  void submit_orders(Markets markets, std::vector<Action>* orders) override;

  double leverage_ratio() const { return leverage_ratio_; }
  double diversity_ratio() const { return diversity_ratio_; }
  // The position's value in `market`: price * volume (negative when short).
  double get_asset_value(const Market& market) const;
  // Whether a market order of that side would execute at once in `market`.
  static bool is_market_order_executable(const Market& market, bool is_buy);

 private:
  double leverage_ratio_ = 1.0;
  double diversity_ratio_ = 1.0;
  std::vector<const Market*> accessible_;  // scratch, reused
  std::vector<Action> fcn_orders_;         // scratch, reused
};

}  // namespace pams

#endif  // PAMS_SAMPLES_INVEST_DIV_FCN_AGENT_H_
