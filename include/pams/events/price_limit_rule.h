// PriceLimitRule: clamps the price of every limit order to within
// triggerChangeRate of the step-0 market price of its market, when it is that
// far away. As in PAMS, every order of the simulation passes through the
// rule, and an order for a market that is not one of targetMarkets is an
// error.
//
// Config keys: targetMarkets (market names), triggerChangeRate (float),
// enabled (bool, default true).

#ifndef PAMS_EVENTS_PRICE_LIMIT_RULE_H_
#define PAMS_EVENTS_PRICE_LIMIT_RULE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "pams/events/event.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT PriceLimitRule : public Event {
 public:
  explicit PriceLimitRule(EventInit init) : Event(std::move(init)) {}

  void setup(const Settings& settings) override;
  std::vector<EventHook> hook_registration() override;
  void hooked_before_order(Simulator& simulator, Order& order) override;

  // The price the rule gives `order` in `market`.
  std::optional<double> get_limited_price(const Order& order,
                                          const Market& market) const;
  int64_t activation_count() const { return activation_count_; }
  // The settings read by setup().
  const std::vector<const Market*>& target_markets() const { return target_markets_; }
  double trigger_change_rate() const { return trigger_change_rate_; }
  bool is_enabled() const { return is_enabled_; }

 private:
  std::vector<const Market*> target_markets_;
  double trigger_change_rate_ = 0.0;
  bool is_enabled_ = true;
  int64_t activation_count_ = 0;
};

}  // namespace pams

#endif  // PAMS_EVENTS_PRICE_LIMIT_RULE_H_
