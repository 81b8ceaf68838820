// InvestDivFCNAgent: the invest_div sample's invest_div_fcn_agent.py, with
// Python's order of floating-point operations.

#include "pams/samples/invest_div_fcn_agent.h"

#include <cmath>

#include "pams/config/settings.h"
#include "pams/market/market.h"

namespace pams {

namespace {

double ReadRatio(const Settings& settings, const char* key) {
  const Settings value = settings[key];
  if (!value.json().is_number()) {
    value.fail(std::string(key) + " have to be float, got " + value.json().dump());
  }
  return value.as_float();
}

}  // namespace

void InvestDivFCNAgent::setup(const Settings& settings,
                              std::span<const int> accessible_market_ids) {
  FCNAgent::setup(settings, accessible_market_ids);
  leverage_ratio_ = ReadRatio(settings, "leverageRatio");
  diversity_ratio_ = ReadRatio(settings, "diversityRatio");
}

double InvestDivFCNAgent::get_asset_value(const Market& market) const {
  return market.get_market_price() *
         static_cast<double>(get_asset_volume(market.market_id()));
}

bool InvestDivFCNAgent::is_market_order_executable(const Market& market, bool is_buy) {
  if (!market.is_running()) return false;
  return !(is_buy ? market.sell_order_book() : market.buy_order_book()).empty();
}

void InvestDivFCNAgent::submit_orders(Markets markets, std::vector<Action>* orders) {
  accessible_.clear();
  for (const Market* m : markets) {
    if (is_market_accessible(m->market_id())) accessible_.push_back(m);
  }
  double net_asset_value = get_cash_amount();
  double total_asset_value_abs = 0.0;
  for (const Market* m : accessible_) {
    const double asset_value = get_asset_value(*m);
    net_asset_value += asset_value;
    total_asset_value_abs += std::fabs(asset_value);
  }
  if (total_asset_value_abs > leverage_ratio_ * net_asset_value) return;

  // FCNAgent.submit_orders over the accessible markets.
  fcn_orders_.clear();
  for (const Market* m : accessible_) submit_orders_by_market(*m, &fcn_orders_);
  for (Action& action : fcn_orders_) {
    const Order& order = std::get<Order>(action);
    const Market* market = nullptr;
    for (const Market* m : accessible_) {
      if (m->market_id() == order.market_id) market = m;
    }
    if (std::fabs(get_asset_value(*market)) <= diversity_ratio_ * net_asset_value) {
      orders->push_back(std::move(action));
      continue;
    }
    // Replaced by a market order that reduces the position by one unit.
    const int64_t asset_volume = get_asset_volume(market->market_id());
    if (asset_volume != 0 && is_market_order_executable(*market, asset_volume < 0)) {
      orders->push_back(Order::Market({.agent_id = agent_id(),
                                       .market_id = market->market_id(),
                                       .is_buy = asset_volume < 0,
                                       .volume = 1,
                                       .ttl = 10}));
    }
  }
}

}  // namespace pams
