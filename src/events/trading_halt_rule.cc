#include "pams/events/trading_halt_rule.h"

#include <algorithm>
#include <cmath>

#include "event_settings.h"
#include "pams/simulator/session.h"

namespace pams {

void TradingHaltRule::setup(const Settings& settings) {
  if (settings.has("referenceMarket")) {
    simulator().warn("referenceMarket is obsolete");
  }
  target_markets_ = MarketsNamedBy(settings, "targetMarkets", simulator());
  trigger_change_rate_ = StrictFloat(settings, "triggerChangeRate");
  halting_time_length_ = StepsSetting(settings, "haltingTimeLength", 0);
  is_enabled_ = EnabledFlag(settings);
}

std::vector<EventHook> TradingHaltRule::hook_registration() {
  if (!is_enabled_) return {};
  std::vector<EventHook> hooks;
  EventHook execution;
  execution.event = this;
  execution.hook_type = HookType::kExecution;
  execution.is_before = false;
  hooks.push_back(execution);
  for (const Market* m : target_markets_) {
    EventHook step;
    step.event = this;
    step.hook_type = HookType::kMarket;
    step.is_before = true;
    step.specific_instance = m;
    hooks.push_back(step);
  }
  return hooks;
}

bool TradingHaltRule::IsTarget(const Market& market) const {
  return std::find(target_markets_.begin(), target_markets_.end(), &market) !=
         target_markets_.end();
}

void TradingHaltRule::hooked_after_execution(Simulator& simulator,
                                             const ExecutionLog& log) {
  Market& market = simulator.market(log.market_id);
  if (!IsTarget(market)) return;
  if (is_halting_ || !market.is_running()) return;
  const double reference_price = market.get_market_price(0);
  const double price_change = reference_price - market.get_market_price();
  const double threshold_change =
      reference_price * trigger_change_rate_ *
      static_cast<double>(activation_count_ + 1);
  if (std::fabs(price_change) >= std::fabs(threshold_change)) {
    is_halting_ = true;
    halting_time_started_ = market.get_time();
    ++activation_count_;
    halted_markets_ = target_markets_;
    for (Market* m : halted_markets_) m->set_is_running(false);
  }
}

void TradingHaltRule::hooked_before_step_for_market(Simulator& simulator,
                                                    Market& market) {
  if (!is_halting_) return;
  if (market.get_time() > halting_time_started_ + halting_time_length_) {
    const Session* session = simulator.current_session();
    for (Market* m : halted_markets_) {
      m->set_is_running(session->with_order_execution());
    }
    is_halting_ = false;
    halted_markets_.clear();
  } else {
    // Keep halting even though the session reset the running state.
    for (Market* m : halted_markets_) m->set_is_running(false);
  }
}

}  // namespace pams
