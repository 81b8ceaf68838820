#include "pams/agents/market_maker_agent.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/market/market.h"
#include "pams/simulator/simulator_view.h"
#include "support/python_format.h"

namespace pams {

void MarketMakerAgent::setup(const Settings& settings,
                             std::span<const int> accessible_market_ids) {
  Agent::setup(settings, accessible_market_ids);
  const Settings target = settings["targetMarket"];
  const Market* market = simulator().find_market(target.as_string());
  if (market == nullptr) {
    target.fail("no market is named \"" + target.as_string() + "\"");
  }
  target_market_id_ = market->market_id();
  if (!is_market_accessible(target_market_id_)) {
    target.fail("market \"" + market->name() + "\" is not one of the agent's markets");
  }
  net_interest_spread_ = settings["netInterestSpread"].json_random(prng());
  if (auto length = settings.find("orderTimeLength")) {
    const double x = length->json_random(prng());
    // An order's time to live is at least one step.
    if (!(x >= 1.0 && x < 1e12)) {
      length->fail("must draw a time to live >= 1, drew " + PythonFloat(x));
    }
    order_time_length_ = static_cast<int64_t>(x);
  }
}

std::optional<double> MarketMakerAgent::get_base_price(Markets markets) const {
  double max_buy = -std::numeric_limits<double>::infinity();
  for (const Market* m : markets) {
    const std::optional<double> best = m->get_best_buy_price();
    if (is_market_accessible(m->market_id()) && best) {
      max_buy = std::max(max_buy, *best);
    }
  }
  double min_sell = std::numeric_limits<double>::infinity();
  for (const Market* m : markets) {
    const std::optional<double> best = m->get_best_sell_price();
    if (is_market_accessible(m->market_id()) && best) {
      min_sell = std::min(min_sell, *best);
    }
  }
  if (max_buy == -std::numeric_limits<double>::infinity() ||
      min_sell == std::numeric_limits<double>::infinity()) {
    return std::nullopt;
  }
  return (max_buy + min_sell) / 2.0;
}

void MarketMakerAgent::submit_orders(Markets markets,
                                     std::vector<Action>* orders) {
  const Market& target = *markets[target_market_id_];
  double base_price;
  if (std::optional<double> base = get_base_price(markets)) {
    base_price = *base;
  } else {
    base_price = target.get_market_price();
  }
  const double price_margin =
      target.get_fundamental_price() * net_interest_spread_ * 0.5;
  orders->push_back(Order::Limit({.agent_id = agent_id(),
                                  .market_id = target_market_id_,
                                  .is_buy = true,
                                  .price = base_price - price_margin,
                                  .volume = 1,
                                  .ttl = order_time_length_}));
  orders->push_back(Order::Limit({.agent_id = agent_id(),
                                  .market_id = target_market_id_,
                                  .is_buy = false,
                                  .price = base_price + price_margin,
                                  .volume = 1,
                                  .ttl = order_time_length_}));
}

}  // namespace pams
