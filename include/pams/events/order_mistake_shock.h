// OrderMistakeShock: a fat-finger error. The first order for the target
// market placed at triggerTime (relative to the session start) is replaced by
// a limit order of orderVolume at the market price * (1 + priceChangeRate),
// a buy when the rate is positive, with time to live orderTimeLength.
//
// Config keys: target (market name), triggerTime (int), priceChangeRate
// (float), orderVolume (int), orderTimeLength (int), enabled (bool).

#ifndef PAMS_EVENTS_ORDER_MISTAKE_SHOCK_H_
#define PAMS_EVENTS_ORDER_MISTAKE_SHOCK_H_

#include <cstdint>

#include "pams/events/event.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT OrderMistakeShock : public Event {
 public:
  explicit OrderMistakeShock(EventInit init) : Event(std::move(init)) {}

  void setup(const Settings& settings) override;
  std::vector<EventHook> hook_registration() override;
  void hooked_before_order(Simulator& simulator, Order& order) override;

  bool triggered() const { return triggered_; }
  // The settings read by setup().
  const Market* target_market() const { return target_market_; }
  int64_t trigger_time() const { return trigger_time_; }
  double price_change_rate() const { return price_change_rate_; }
  int64_t order_volume() const { return order_volume_; }
  int64_t order_time_length() const { return order_time_length_; }
  bool is_enabled() const { return is_enabled_; }

 private:
  const Market* target_market_ = nullptr;
  int64_t trigger_time_ = 0;
  double price_change_rate_ = 0.0;
  int64_t order_volume_ = 0;
  int64_t order_time_length_ = 1;
  bool is_enabled_ = true;
  bool triggered_ = false;
};

}  // namespace pams

#endif  // PAMS_EVENTS_ORDER_MISTAKE_SHOCK_H_
