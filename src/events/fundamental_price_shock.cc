#include "pams/events/fundamental_price_shock.h"

#include "event_settings.h"
#include "pams/simulator/session.h"

namespace pams {

void FundamentalPriceShock::setup(const Settings& settings) {
  if (settings.has("triggerDays")) {
    throw ConfigError(settings.child_path("triggerDays"),
                      "triggerDays and numStepsOneDay are obsolete; use "
                      "triggerTime");
  }
  target_market_ = MarketNamedBy(settings, "target", simulator());
  const int64_t trigger = settings["triggerTime"].as_int();
  trigger_time_ = session().session_start_time() + trigger;
  price_change_rate_ = settings["priceChangeRate"].as_float();
  is_enabled_ = EnabledFlag(settings);
  if (auto length = settings.find("shockTimeLength")) {
    shock_time_length_ = length->as_int();
    if (shock_time_length_ < 0) length->fail("must be >= 0");
  }
  if (!simulator().fundamentals().has_market(target_market_->market_id())) {
    settings["target"].fail(
        "market \"" + target_market_->name() +
        "\" has no fundamental price of its own (an index market follows its "
        "components)");
  }
}

std::vector<EventHook> FundamentalPriceShock::hook_registration() {
  if (!is_enabled_) return {};
  EventHook hook;
  hook.event = this;
  hook.hook_type = HookType::kMarket;
  hook.is_before = true;
  std::vector<int64_t> times;
  for (int64_t i = 0; i < shock_time_length_; ++i) times.push_back(trigger_time_ + i);
  hook.time = std::move(times);
  hook.specific_instance = target_market_;
  return {hook};
}

void FundamentalPriceShock::hooked_before_step_for_market(Simulator&,
                                                          Market& market) {
  market.change_fundamental_price(1 + price_change_rate_);
}

}  // namespace pams
