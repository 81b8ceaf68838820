// OrderBook: the resting orders of one side (buy or sell) of a market, in
// PAMS's total priority order: market orders first, then limit orders by
// price (highest first for buys, lowest first for sells), then by placement
// time and order id (earlier first).
//
// Every operation is O(log n) or better: no scan and no heap rebuild per
// cancel, execution or expiry (PAMS's list.remove + heapify are O(n)).
// Expired orders are found through an index ordered by expiry time.
//
// Only the owning Market changes a book; agents read it through const
// methods. Threading: const methods may run concurrently with each other (the
// parallel runners' read-only phase), never with a mutation.

#ifndef PAMS_MARKET_ORDER_BOOK_H_
#define PAMS_MARKET_ORDER_BOOK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "pams/export.h"
#include "pams/market/order.h"

namespace pams {

class PAMS_EXPORT OrderBook {
 public:
  explicit OrderBook(bool is_buy);
  ~OrderBook();
  OrderBook(const OrderBook&) = delete;
  OrderBook& operator=(const OrderBook&) = delete;

  bool is_buy() const { return is_buy_; }
  // The step the book is at; orders placed now get placed_at = time().
  int64_t time() const { return time_; }

  // Number of resting orders (PAMS: len(order_book)).
  size_t size() const;
  bool empty() const { return size() == 0; }

  // The order with the highest priority, or nullptr when the book is empty.
  const Order* best_order() const;
  // Its price; nullopt when the book is empty or the best order is a market
  // order (PAMS's get_best_price).
  std::optional<double> best_price() const;

  // Calls f for every resting order, highest priority first.
  void for_each(const std::function<void(const Order&)>& f) const;

  // PAMS's get_price_volume: total volume per price level, market orders
  // (price nullopt) first, then prices in priority order.
  std::vector<std::pair<std::optional<double>, int64_t>> get_price_volume()
      const;

  // Whether an order equal to `order` (same id, kind and price) rests here.
  bool contains(const Order& order) const { return find(order) != nullptr; }
  // The resting order equal to `order` (with its remaining volume), or
  // nullptr. Valid until the book changes.
  const Order* find(const Order& order) const;

  // --- Mutations, for Market only. ---

  // Places an order: sets its placed_at to time() and stores a copy.
  // REQUIRES: order->is_buy == is_buy(), order->order_id is set and unique,
  // limit orders have a finite price.
  void add(Order* order);

  // Removes the order equal to `order`. Returns false if it is not here (for
  // example already executed), as PAMS's cancel does.
  bool remove(const Order& order);

  // Adds delta to the volume of the resting order equal to `order`; removes
  // it when the volume reaches 0. REQUIRES: the order rests here and the new
  // volume is >= 0.
  void change_order_volume(const Order& order, int64_t delta);

  // Moves the book to step `time` and removes the orders whose time to live
  // has run out (placed_at + ttl < time), appending them to *expired in
  // PAMS's order (by expiry time, then placement order).
  void set_time(int64_t time, std::vector<Order>* expired);

 private:
  friend class Market;
  struct Impl;

  bool is_buy_;
  int64_t time_ = 0;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pams

#endif  // PAMS_MARKET_ORDER_BOOK_H_
