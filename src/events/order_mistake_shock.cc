#include "pams/events/order_mistake_shock.h"

#include <cmath>

#include "event_settings.h"
#include "support/python_format.h"
#include "pams/simulator/session.h"

namespace pams {

void OrderMistakeShock::setup(const Settings& settings) {
  if (settings.has("agent")) {
    simulator().warn("agent in OrderMistakeShock is obsoleted.");
  }
  target_market_ = MarketNamedBy(settings, "target", simulator());
  trigger_time_ = session().session_start_time() + StepsSetting(settings, "triggerTime", 0);
  price_change_rate_ = StrictFloat(settings, "priceChangeRate");
  // The mistaken price is the market price times (1 + priceChangeRate):
  // -1 or less makes it 0 or negative (PAMS fails with a math domain error).
  if (!(price_change_rate_ > -1.0) || !std::isfinite(price_change_rate_)) {
    settings["priceChangeRate"].fail(
        "must be a number > -1 (the order price is the market price times "
        "1 + priceChangeRate), got " + PythonFloat(price_change_rate_));
  }
  order_volume_ = settings["orderVolume"].as_int();
  if (order_volume_ <= 0) settings["orderVolume"].fail("must be positive");
  order_time_length_ = StepsSetting(settings, "orderTimeLength", 1);
  is_enabled_ = EnabledFlag(settings);
}

std::vector<EventHook> OrderMistakeShock::hook_registration() {
  if (!is_enabled_) return {};
  EventHook hook;
  hook.event = this;
  hook.hook_type = HookType::kOrder;
  hook.is_before = true;
  hook.time = std::vector<int64_t>{trigger_time_};
  return {hook};
}

void OrderMistakeShock::hooked_before_order(Simulator& simulator,
                                            Order& order) {
  if (order.market_id != target_market_->market_id() || triggered_) return;
  const double base_price = simulator.market(order.market_id).get_market_price();
  order.is_buy = price_change_rate_ > 0.0;
  order.kind = OrderKind::kLimit;
  order.volume = order_volume_;
  order.price = base_price * (1 + price_change_rate_);
  order.ttl = order_time_length_;
  triggered_ = true;
}

}  // namespace pams
