// Order and Cancel: what agents submit to markets. Both are plain values.
//
// An agent builds an Order with Order::Limit or Order::Market, naming each
// field as PAMS's keyword arguments do:
//
//   Order::Limit({.agent_id = agent_id(), .market_id = m, .is_buy = true,
//                 .price = 300.5, .volume = 2, .ttl = 10})
//   Order::Market({.agent_id = agent_id(), .market_id = m, .is_buy = false,
//                  .volume = 1})
//
// so that a price and a volume cannot be swapped by accident (the fields
// are named, and braces refuse a double where an integer volume belongs and
// an integer variable where the price belongs). The market sets order_id
// and placed_at when it accepts the order (they stay unset, -1, in the
// agent's copy). To cancel, an agent submits a Cancel holding a copy of
// the accepted order, e.g. built from the OrderLog passed to
// Agent::submitted_order. A Cancel finds its order by market, side, kind,
// price and order id, as PAMS compares orders; a cancel of an order that has
// already been executed, expired or canceled changes nothing.
//
// Action is one element of what Agent::submit_orders returns.

#ifndef PAMS_MARKET_ORDER_H_
#define PAMS_MARKET_ORDER_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include "pams/export.h"

namespace pams {

enum class OrderKind : uint8_t { kMarket = 0, kLimit = 1 };

// "MARKET_ORDER" or "LIMIT_ORDER", as PAMS prints kinds.
PAMS_EXPORT std::string_view OrderKindName(OrderKind kind);

struct PAMS_EXPORT Order {
  int agent_id = -1;
  int market_id = -1;
  bool is_buy = true;
  OrderKind kind = OrderKind::kLimit;
  int64_t volume = 0;
  // Set for limit orders only. The market moves an off-tick price onto the
  // tick grid (down for buys, up for sells) when it accepts the order.
  std::optional<double> price;
  // Steps the order stays in the book after it is placed; none = forever.
  std::optional<int64_t> ttl;
  // Set by the market on acceptance.
  int64_t order_id = -1;
  int64_t placed_at = -1;

  // What Order::Limit takes (designated initializers, in this order).
  struct LimitArgs {
    int agent_id;
    int market_id;
    bool is_buy;
    double price;
    int64_t volume;
    std::optional<int64_t> ttl = std::nullopt;
  };
  // What Order::Market takes.
  struct MarketArgs {
    int agent_id;
    int market_id;
    bool is_buy;
    int64_t volume;
    std::optional<int64_t> ttl = std::nullopt;
  };

  static Order Limit(const LimitArgs& args) {
    Order o;
    o.agent_id = args.agent_id;
    o.market_id = args.market_id;
    o.is_buy = args.is_buy;
    o.kind = OrderKind::kLimit;
    o.price = args.price;
    o.volume = args.volume;
    o.ttl = args.ttl;
    return o;
  }

  static Order Market(const MarketArgs& args) {
    Order o;
    o.agent_id = args.agent_id;
    o.market_id = args.market_id;
    o.is_buy = args.is_buy;
    o.kind = OrderKind::kMarket;
    o.volume = args.volume;
    o.ttl = args.ttl;
    return o;
  }

  bool is_placed() const { return order_id >= 0 && placed_at >= 0; }
};

struct PAMS_EXPORT Cancel {
  // The order to cancel, as it was accepted (order_id and placed_at set).
  Order order;
  // For a cancel of an order submitted in the same submit_orders() result,
  // before this cancel (as PAMS's agents may: the market places that order
  // first): its index in the result. `order` then needs agent_id and
  // market_id only; the runner completes it from the placed order. -1: not
  // used.
  int32_t same_batch_order = -1;
  // For a program that hands a step's batches back to the runner
  // (Runner::reset_batches): the batch whose action same_batch_order names,
  // when it is another batch (that order must be placed by the time the
  // cancel is). -1: this cancel's own batch. Never sent to workers.
  int32_t other_batch = -1;

  int agent_id() const { return order.agent_id; }
  int market_id() const { return order.market_id; }
};

using Action = std::variant<Order, Cancel>;

// The agent that submitted an action (for the spoofing check).
inline int ActionAgentId(const Action& a) {
  return std::holds_alternative<Order>(a) ? std::get<Order>(a).agent_id
                                          : std::get<Cancel>(a).agent_id();
}

}  // namespace pams

#endif  // PAMS_MARKET_ORDER_H_
