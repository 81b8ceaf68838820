// FundamentalPriceShock: multiplies the fundamental price of the target
// market by (1 + priceChangeRate) before its step at triggerTime (relative to
// the session start), for shockTimeLength steps. As in PAMS, the fundamental
// paths of all markets are regenerated from that step.
//
// Config keys: target (market name), triggerTime (int), priceChangeRate
// (number), enabled (bool, default true), shockTimeLength (int, default 1).

#ifndef PAMS_EVENTS_FUNDAMENTAL_PRICE_SHOCK_H_
#define PAMS_EVENTS_FUNDAMENTAL_PRICE_SHOCK_H_

#include <cstdint>
#include <string>

#include "pams/events/event.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT FundamentalPriceShock : public Event {
 public:
  explicit FundamentalPriceShock(EventInit init) : Event(std::move(init)) {}

  void setup(const Settings& settings) override;
  std::vector<EventHook> hook_registration() override;
  void hooked_before_step_for_market(Simulator& simulator,
                                     Market& market) override;

  const Market* target_market() const { return target_market_; }
  int64_t trigger_time() const { return trigger_time_; }
  double price_change_rate() const { return price_change_rate_; }
  bool is_enabled() const { return is_enabled_; }
  int64_t shock_time_length() const { return shock_time_length_; }

 private:
  Market* target_market_ = nullptr;
  int64_t trigger_time_ = 0;
  double price_change_rate_ = 0.0;
  bool is_enabled_ = true;
  int64_t shock_time_length_ = 1;
};

}  // namespace pams

#endif  // PAMS_EVENTS_FUNDAMENTAL_PRICE_SHOCK_H_
