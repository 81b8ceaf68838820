// DarkPoolFCNAgent: the dark_pool sample's dark_pool_fcn_agent.py.

#include "pams/samples/dark_pool_fcn_agent.h"

#include "pams/config/settings.h"
#include "pams/market/market.h"
#include "pams/samples/dark_pool_market.h"

namespace pams {

void DarkPoolFCNAgent::setup(const Settings& settings,
                             std::span<const int> accessible_market_ids) {
  FCNAgent::setup(settings, accessible_market_ids);
  const Settings chance = settings["darkPoolChance"];
  dark_pool_chance_ = chance.json_random(prng());
  if (!(0.0 <= dark_pool_chance_ && dark_pool_chance_ <= 1.0)) {
    chance.fail("darkPoolChance must be between 0.0 and 1.0");
  }
}

void DarkPoolFCNAgent::submit_orders(Markets markets, std::vector<Action>* orders) {
  // FCNAgent.submit_orders over the markets, with the sample's
  // submit_orders_by_market.
  for (const Market* market : markets) {
    const auto* dark_pool = dynamic_cast<const DarkPoolMarket*>(market);
    if (dark_pool == nullptr || !is_market_accessible(market->market_id())) continue;
    lit_orders_.clear();
    FCNAgent::submit_orders_by_market(dark_pool->lit_market(), &lit_orders_);
    for (Action& action : lit_orders_) {
      const Order* lit = std::get_if<Order>(&action);
      if (lit != nullptr && prng().random() < dark_pool_chance_) {
        orders->push_back(Order::Market({.agent_id = agent_id(),
                                         .market_id = market->market_id(),
                                         .is_buy = lit->is_buy,
                                         .volume = lit->volume,
                                         .ttl = lit->ttl}));
      } else {
        orders->push_back(std::move(action));
      }
    }
  }
}

}  // namespace pams
