// MarketMakerAgent: a high-frequency agent that quotes one buy and one sell
// limit order around the mid of the best prices of its markets, half a spread
// of fundamental price * netInterestSpread away on each side.
//
// Config keys (besides those of Agent): targetMarket (market name, required),
// netInterestSpread (JsonRandom, required), orderTimeLength (JsonRandom,
// default 2).

#ifndef PAMS_AGENTS_MARKET_MAKER_AGENT_H_
#define PAMS_AGENTS_MARKET_MAKER_AGENT_H_

#include <cstdint>
#include <optional>

#include "pams/agents/agent.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT MarketMakerAgent : public HighFrequencyAgent {
 public:
  explicit MarketMakerAgent(AgentInit init)
      : HighFrequencyAgent(std::move(init)) {}

  void setup(const Settings& settings,
             std::span<const int> accessible_market_ids) override;
  void submit_orders(Markets markets, std::vector<Action>* orders) override;

  // (max best buy + min best sell) / 2 over the accessible markets; nullopt
  // when either side is empty everywhere.
  std::optional<double> get_base_price(Markets markets) const;

  int target_market_id() const { return target_market_id_; }
  double net_interest_spread() const { return net_interest_spread_; }
  int64_t order_time_length() const { return order_time_length_; }

 private:
  int target_market_id_ = -1;
  double net_interest_spread_ = 0.0;
  int64_t order_time_length_ = 2;
};

}  // namespace pams

#endif  // PAMS_AGENTS_MARKET_MAKER_AGENT_H_
