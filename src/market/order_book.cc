#include "pams/market/order_book.h"

#include "order_book_impl.h"
#include "pams/errors.h"

namespace pams {

OrderBook::OrderBook(bool is_buy)
    : is_buy_(is_buy), impl_(std::make_unique<Impl>()) {}

OrderBook::~OrderBook() = default;

size_t OrderBook::size() const { return impl_->orders.size(); }

const Order* OrderBook::best_order() const {
  if (impl_->orders.empty()) return nullptr;
  return &impl_->orders.begin()->second;
}

std::optional<double> OrderBook::best_price() const {
  if (impl_->orders.empty()) return std::nullopt;
  return impl_->orders.begin()->second.price;
}

void OrderBook::for_each(const std::function<void(const Order&)>& f) const {
  for (const auto& [key, order] : impl_->orders) f(order);
}

std::vector<std::pair<std::optional<double>, int64_t>>
OrderBook::get_price_volume() const {
  // Orders at one price are adjacent in priority order (market orders, which
  // have no price, all come first), so one pass groups them.
  std::vector<std::pair<std::optional<double>, int64_t>> result;
  for (const auto& [key, order] : impl_->orders) {
    if (!result.empty() && result.back().first == order.price) {
      result.back().second += order.volume;
    } else {
      result.emplace_back(order.price, order.volume);
    }
  }
  return result;
}

bool OrderBook::contains(const Order& order) const {
  if (order.kind == OrderKind::kLimit && !order.price) return false;
  auto it = impl_->orders.find(PriorityKeyOf(order));
  return it != impl_->orders.end() && it->second.kind == order.kind &&
         it->second.price == order.price;
}

void OrderBook::add(Order* order) {
  order->placed_at = time_;
  const PriorityKey key = PriorityKeyOf(*order);
  impl_->orders.emplace(key, *order);
  if (order->ttl) {
    impl_->expiry.insert(
        ExpiryKey{order->placed_at + *order->ttl, order->order_id, key});
  }
}

bool OrderBook::remove(const Order& order) {
  if (!contains(order)) return false;
  impl_->Erase(impl_->orders.find(PriorityKeyOf(order)));
  return true;
}

void OrderBook::change_order_volume(const Order& order, int64_t delta) {
  auto it = impl_->orders.find(PriorityKeyOf(order));
  if (it == impl_->orders.end()) {
    throw SimulationError("order " + std::to_string(order.order_id) +
                          " is not in the order book");
  }
  it->second.volume += delta;
  if (it->second.volume < 0) {
    throw SimulationError("order " + std::to_string(order.order_id) +
                          " would get a negative volume");
  }
  if (it->second.volume == 0) impl_->Erase(it);
}

void OrderBook::set_time(int64_t time, std::vector<Order>* expired) {
  time_ = time;
  auto& expiry = impl_->expiry;
  while (!expiry.empty() && expiry.begin()->expires_at < time) {
    const ExpiryKey e = *expiry.begin();
    expiry.erase(expiry.begin());
    auto it = impl_->orders.find(e.priority);
    expired->push_back(it->second);
    impl_->orders.erase(it);
  }
}

}  // namespace pams
