#include "pams/agents/test_agent.h"

#include "pams/market/market.h"

#include <typeinfo>

namespace pams {

bool TestAgent::has_cheap_submit_orders() const { return typeid(*this) == typeid(TestAgent); }

void TestAgent::submit_orders(Markets markets, std::vector<Action>* orders) {
  const double margin_scale = 10.0;
  const int64_t volume_scale = 100;
  const int64_t time_length_scale = 100;
  const double buy_chance = 0.4;
  const double sell_chance = 0.4;
  for (const Market* market : markets) {
    if (!is_market_accessible(market->market_id())) continue;
    const double price = market->get_market_price() +
                         (prng().random() * 2 * margin_scale - margin_scale);
    const int64_t volume = prng().randint(1, volume_scale);
    const int64_t time_length = prng().randint(1, time_length_scale);
    const double p = prng().random();
    if (p < buy_chance + sell_chance) {
      orders->push_back(Order::Limit({.agent_id = agent_id(),
                                      .market_id = market->market_id(),
                                      .is_buy = p < buy_chance,
                                      .price = price,
                                      .volume = volume,
                                      .ttl = time_length}));
    }
  }
}

}  // namespace pams
