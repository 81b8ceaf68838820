#include "pams/events/fundamental_price_shock.h"

#include <algorithm>
#include <cmath>

#include "event_settings.h"
#include "pams/errors.h"
#include "pams/market/index_market.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams {

void FundamentalPriceShock::setup(const Settings& settings) {
  if (settings.has("triggerDays")) {
    throw ConfigError(settings.child_path("triggerDays"),
                      "triggerDays and numStepsOneDay are obsolete; use "
                      "triggerTime");
  }
  target_market_ = MarketNamedBy(settings, "target", simulator());
  trigger_time_ = session().session_start_time() + StepsSetting(settings, "triggerTime", 0);
  price_change_rate_ = settings["priceChangeRate"].as_float();
  if (!(price_change_rate_ > -1.0) || !std::isfinite(price_change_rate_)) {
    settings["priceChangeRate"].fail(
        "must be a number > -1 (the fundamental price is multiplied by 1 + "
        "priceChangeRate), got " + settings["priceChangeRate"].json().dump());
  }
  is_enabled_ = EnabledFlag(settings);
  if (settings.has("shockTimeLength")) {
    shock_time_length_ = StepsSetting(settings, "shockTimeLength", 0);
  }
  if (dynamic_cast<const IndexMarket*>(target_market_) != nullptr) {
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
  // As PAMS, every step of the shock is registered, also those after the
  // session that lists the event. Steps after the run's last one never
  // come, so they are left out (a shock of 10^12 steps stays small).
  int64_t last = simulator().total_steps();
  if (last == 0) {
    // A simulation built by hand knows no length: its sessions', or else
    // the shock's own (bounded, so that its times fit in memory).
    for (const Session* s : simulator().const_sessions()) {
      last = std::max(last, s->session_start_time() + s->iteration_steps());
    }
    if (last == 0) {
      constexpr int64_t kMaxHandBuiltShock = 10'000'000;
      if (shock_time_length_ > kMaxHandBuiltShock) {
        throw SimulationError("event " + name() + ": a shock of more than " +
                              std::to_string(kMaxHandBuiltShock) +
                              " steps in a simulation without sessions' lengths");
      }
      last = trigger_time_ + shock_time_length_;
    }
  }
  const int64_t end = std::min(trigger_time_ + shock_time_length_, last + 1);
  std::vector<int64_t> times;
  for (int64_t t = trigger_time_; t < end; ++t) times.push_back(t);
  hook.time = std::move(times);
  hook.specific_instance = target_market_;
  return {hook};
}

void FundamentalPriceShock::hooked_before_step_for_market(Simulator&,
                                                          Market& market) {
  const int64_t t = market.get_time();
  if (t < trigger_time_ || t - trigger_time_ >= shock_time_length_) {
    throw AssertionFailure("event " + name() + ": called at step " + std::to_string(t) +
                           ", outside its shock");
  }
  if (&market != target_market_) {
    throw AssertionFailure("event " + name() + ": called for market " + market.name() +
                           ", not its target");
  }
  market.change_fundamental_price(1 + price_change_rate_);
}

}  // namespace pams
