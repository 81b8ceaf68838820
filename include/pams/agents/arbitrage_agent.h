// ArbitrageAgent: a high-frequency agent that trades an index market against
// its components when the index's market price departs from the index of the
// components' market prices by more than orderThresholdPrice.
//
// Config keys (besides those of Agent): orderVolume (int, required),
// orderThresholdPrice (number, required), orderTimeLength (int, default 1).

#ifndef PAMS_AGENTS_ARBITRAGE_AGENT_H_
#define PAMS_AGENTS_ARBITRAGE_AGENT_H_

#include <cstdint>
#include <vector>

#include "pams/agents/agent.h"
#include "pams/export.h"

namespace pams {

class IndexMarket;

class PAMS_EXPORT ArbitrageAgent : public HighFrequencyAgent {
 public:
  explicit ArbitrageAgent(AgentInit init)
      : HighFrequencyAgent(std::move(init)) {}

  void setup(const Settings& settings,
             std::span<const int> accessible_market_ids) override;
  void submit_orders(Markets markets, std::vector<Action>* orders) override;

  int64_t order_volume() const { return order_volume_; }
  double order_threshold_price() const { return order_threshold_price_; }
  int64_t order_time_length() const { return order_time_length_; }

 private:
  void SubmitOrdersForIndex(const IndexMarket& index,
                            std::vector<Action>* orders);

  int64_t order_volume_ = 1;
  double order_threshold_price_ = 1.0;
  int64_t order_time_length_ = 1;
};

}  // namespace pams

#endif  // PAMS_AGENTS_ARBITRAGE_AGENT_H_
