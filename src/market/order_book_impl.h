// The representation of OrderBook, shared by order_book.cc and market.cc
// (whose execution rule walks the books in priority order). Private to the
// library.
//
// Orders live in a B-tree ordered by priority key: (sort key, order id),
// where the sort key is -inf for market orders, -price for buy limit orders
// and price for sell limit orders. Order ids grow with placement time within
// a market, so this is exactly PAMS's order (kind, price, placed_at,
// order_id). Expiry uses a second B-tree ordered by (expiry time, order id).

#ifndef PAMS_SRC_MARKET_ORDER_BOOK_IMPL_H_
#define PAMS_SRC_MARKET_ORDER_BOOK_IMPL_H_

#include <cstdint>
#include <limits>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "pams/market/order.h"
#include "pams/market/order_book.h"

namespace pams {

struct PriorityKey {
  double key;
  int64_t order_id;
  bool operator<(const PriorityKey& o) const {
    return key < o.key || (key == o.key && order_id < o.order_id);
  }
};

struct ExpiryKey {
  int64_t expires_at;  // placed_at + ttl
  int64_t order_id;
  PriorityKey priority;
  bool operator<(const ExpiryKey& o) const {
    return expires_at < o.expires_at ||
           (expires_at == o.expires_at && order_id < o.order_id);
  }
};

inline PriorityKey PriorityKeyOf(const Order& order) {
  if (order.kind == OrderKind::kMarket) {
    return {-std::numeric_limits<double>::infinity(), order.order_id};
  }
  return {order.is_buy ? -*order.price : *order.price, order.order_id};
}

struct OrderBook::Impl {
  absl::btree_map<PriorityKey, Order> orders;
  absl::btree_set<ExpiryKey> expiry;

  using Iterator = absl::btree_map<PriorityKey, Order>::iterator;

  // Removes the order at it (and its expiry entry).
  Iterator Erase(Iterator it) {
    const Order& o = it->second;
    if (o.ttl) expiry.erase(ExpiryKey{o.placed_at + *o.ttl, o.order_id, {}});
    return orders.erase(it);
  }
};

}  // namespace pams

#endif  // PAMS_SRC_MARKET_ORDER_BOOK_IMPL_H_
