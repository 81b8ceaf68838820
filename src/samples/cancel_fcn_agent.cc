// CancelFCNAgent: the cancel_test sample's cancel_fcn_agent.py.

#include "pams/samples/cancel_fcn_agent.h"

#include "pams/config/settings.h"
#include "pams/market/market.h"

namespace pams {

void CancelFCNAgent::setup(const Settings& settings,
                           std::span<const int> accessible_market_ids) {
  FCNAgent::setup(settings, accessible_market_ids);
  cancel_rate_ = kDefaultCancelRate;
  if (auto rate = settings.find("cancelRate")) {
    cancel_rate_ = rate->json_random(prng());
    if (!(0.0 <= cancel_rate_ && cancel_rate_ <= 1.0)) {
      rate->fail("cancelRate have to be between 0.0 and 1.0");
    }
  }
}

void CancelFCNAgent::submit_orders(Markets markets, std::vector<Action>* orders) {
  for (const Market* market : markets) {
    const size_t first = orders->size();
    submit_orders_by_market(*market, orders);
    const size_t end = orders->size();
    for (size_t i = first; i < end; ++i) {
      const Order* order = std::get_if<Order>(&(*orders)[i]);
      if (order == nullptr || !(prng().random() < cancel_rate_)) continue;
      // A cancel of an order of this same result: the runner completes it
      // from the placed order (Cancel::same_batch_order).
      Cancel cancel;
      cancel.order.agent_id = order->agent_id;
      cancel.order.market_id = order->market_id;
      cancel.order.is_buy = order->is_buy;
      cancel.order.kind = order->kind;
      cancel.same_batch_order = static_cast<int32_t>(i);
      orders->push_back(cancel);
    }
  }
}

}  // namespace pams
