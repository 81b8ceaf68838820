#include "pams/agents/arbitrage_agent.h"

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/market/index_market.h"
#include "pams/simulator/simulator_view.h"

namespace pams {

void ArbitrageAgent::setup(const Settings& settings,
                           std::span<const int> accessible_market_ids) {
  Agent::setup(settings, accessible_market_ids);
  order_volume_ = settings["orderVolume"].as_int();
  if (order_volume_ <= 0) settings["orderVolume"].fail("must be positive");
  order_threshold_price_ = settings["orderThresholdPrice"].as_float();
  if (auto length = settings.find("orderTimeLength")) {
    order_time_length_ = length->as_int();
    if (order_time_length_ <= 0) length->fail("must be positive");
  }
}

void ArbitrageAgent::submit_orders(Markets markets,
                                   std::vector<Action>* orders) {
  // PAMS's order: the index markets among those given, as given (a
  // runner gives every market in id order).
  for (const Market* market : markets) {
    const auto* index = dynamic_cast<const IndexMarket*>(market);
    if (index != nullptr && is_market_accessible(index->market_id())) {
      SubmitOrdersForIndex(*index, orders);
    }
  }
}

void ArbitrageAgent::SubmitOrdersForIndex(const IndexMarket& index,
                                          std::vector<Action>* orders) {
  const std::vector<const Market*>& spots = index.get_components();
  if (!index.is_running() || !index.is_all_markets_running()) return;
  const double market_index = index.get_index();
  const double market_price = index.get_market_price();
  for (const Market* m : spots) {
    if (m->outstanding_shares() != spots.front()->outstanding_shares()) {
      throw UnsupportedError(
          "ArbitrageAgent " + name() +
          ": the components of an index must have the same outstanding "
          "shares");
    }
  }
  const int64_t index_volume =
      static_cast<int64_t>(spots.size()) * order_volume_;
  // Buys the index and sells its components, or the other way round.
  auto trade = [&](bool buy_index) {
    orders->push_back(Order::Limit({.agent_id = agent_id(),
                                    .market_id = index.market_id(),
                                    .is_buy = buy_index,
                                    .price = index.get_market_price(),
                                    .volume = index_volume,
                                    .ttl = order_time_length_}));
    for (const Market* m : spots) {
      orders->push_back(Order::Limit({.agent_id = agent_id(),
                                      .market_id = m->market_id(),
                                      .is_buy = !buy_index,
                                      .price = m->get_market_price(),
                                      .volume = order_volume_,
                                      .ttl = order_time_length_}));
    }
  };
  if (market_price < market_index &&
      market_index - market_price > order_threshold_price_) {
    trade(/*buy_index=*/true);
  }
  if (market_price > market_index &&
      market_price - market_index > order_threshold_price_) {
    trade(/*buy_index=*/false);
  }
}

}  // namespace pams
