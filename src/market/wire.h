// The byte encoding of orders and actions shared by the market journal and
// the worker protocol of the multi-process runner. Private to the library.

#ifndef PAMS_SRC_MARKET_WIRE_H_
#define PAMS_SRC_MARKET_WIRE_H_

#include <variant>
#include <vector>

#include "pams/errors.h"
#include "pams/market/order.h"
#include "pams/util/state.h"

namespace pams {

inline void WriteOrder(const Order& o, StateWriter& w) {
  w.write(o.agent_id);
  w.write(o.market_id);
  w.write(o.is_buy);
  w.write(o.kind);
  w.write(o.volume);
  w.write(o.price.has_value());
  w.write(o.price.value_or(0.0));
  w.write(o.ttl.has_value());
  w.write(o.ttl.value_or(0));
  w.write(o.order_id);
  w.write(o.placed_at);
}

inline Order ReadOrder(StateReader& r) {
  Order o;
  o.agent_id = r.read<int>();
  o.market_id = r.read<int>();
  o.is_buy = r.read<bool>();
  o.kind = r.read<OrderKind>();
  o.volume = r.read<int64_t>();
  const bool has_price = r.read<bool>();
  const double price = r.read<double>();
  if (has_price) o.price = price;
  const bool has_ttl = r.read<bool>();
  const int64_t ttl = r.read<int64_t>();
  if (has_ttl) o.ttl = ttl;
  o.order_id = r.read<int64_t>();
  o.placed_at = r.read<int64_t>();
  return o;
}

inline void WriteActions(const std::vector<Action>& actions, StateWriter& w) {
  w.write<uint64_t>(actions.size());
  for (const Action& a : actions) {
    const bool is_cancel = std::holds_alternative<Cancel>(a);
    w.write(is_cancel);
    WriteOrder(is_cancel ? std::get<Cancel>(a).order : std::get<Order>(a), w);
    if (is_cancel) w.write(std::get<Cancel>(a).same_batch_order);
  }
}

inline void ReadActions(StateReader& r, std::vector<Action>* actions) {
  const uint64_t n = r.read<uint64_t>();
  actions->clear();
  for (uint64_t i = 0; i < n; ++i) {
    const bool is_cancel = r.read<bool>();
    if (is_cancel) {
      Cancel cancel{.order = ReadOrder(r)};
      cancel.same_batch_order = r.read<int32_t>();
      actions->push_back(cancel);
    } else {
      actions->push_back(ReadOrder(r));
    }
  }
}

}  // namespace pams

#endif  // PAMS_SRC_MARKET_WIRE_H_
