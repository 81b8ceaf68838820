#include "pams/events/price_limit_rule.h"

#include <algorithm>
#include <cmath>

#include "event_settings.h"

namespace pams {

void PriceLimitRule::setup(const Settings& settings) {
  if (settings.has("referenceMarket")) {
    simulator().warn("referenceMarket is obsoleted");
  }
  for (Market* m : MarketsNamedBy(settings, "targetMarkets", simulator())) {
    target_markets_.push_back(m);
  }
  // The rule sees every order of every market, and PAMS fails on one for a
  // market it does not target: with no target, the first order would end
  // the run.
  if (target_markets_.empty()) {
    settings["targetMarkets"].fail(
        "must name at least one market (the rule is applied to every order, and "
        "an order for a market not listed stops the run)");
  }
  trigger_change_rate_ = StrictFloat(settings, "triggerChangeRate");
  // The rate is the largest relative move allowed from the market price at
  // time 0 (p0): limited orders get a price in [p0 (1 - rate), p0 (1 + rate)].
  // PAMS takes a negative rate without complaint and turns that range upside
  // down: every limit order whose price differs from p0 by at least
  // |rate| p0, up or down, is then priced p0 (1 + rate), below p0.
  if (trigger_change_rate_ < 0) {
    settings["triggerChangeRate"].fail(
        "must be >= 0 (the largest relative price change allowed, e.g. 0.1 for "
        "10%), got " + settings["triggerChangeRate"].json().dump());
  }
  is_enabled_ = EnabledFlag(settings);
}

std::vector<EventHook> PriceLimitRule::hook_registration() {
  if (!is_enabled_) return {};
  EventHook hook;
  hook.event = this;
  hook.hook_type = HookType::kOrder;
  hook.is_before = true;
  return {hook};
}

std::optional<double> PriceLimitRule::get_limited_price(
    const Order& order, const Market& market) const {
  const double reference_price = market.get_market_price(0);
  if (std::find(target_markets_.begin(), target_markets_.end(), &market) ==
      target_markets_.end()) {
    throw AssertionFailure("PriceLimitRule " + name() + ": an order for market " +
                          market.name() +
                          ", which is not one of its targetMarkets (PAMS "
                          "applies the rule to every order)");
  }
  if (!order.price) return order.price;
  const double order_price = *order.price;
  const double price_change = order_price - reference_price;
  const double threshold_change = reference_price * trigger_change_rate_;
  if (std::fabs(price_change) >= std::fabs(threshold_change)) {
    const double max_price = reference_price * (1 + trigger_change_rate_);
    const double min_price = reference_price * (1 - trigger_change_rate_);
    // Python's min(max(p, lo), hi): max keeps p unless lo is greater, min
    // keeps that unless hi is smaller.
    double limited = order_price;
    if (min_price > limited) limited = min_price;
    if (max_price < limited) limited = max_price;
    return limited;
  }
  return order_price;
}

void PriceLimitRule::hooked_before_order(Simulator& simulator, Order& order) {
  const std::optional<double> limited =
      get_limited_price(order, simulator.market(order.market_id));
  if (order.price != limited) ++activation_count_;
  order.price = limited;
}

}  // namespace pams
