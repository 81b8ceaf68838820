#include "pams/market/order_book.h"

#include <algorithm>
#include <limits>

#include "order_book_impl.h"
#include "pams/errors.h"

namespace pams {

OrderBook::OrderBook(bool is_buy)
    : is_buy_(is_buy), impl_(std::make_unique<Impl>()) {}

OrderBook::~OrderBook() = default;

size_t OrderBook::size() const { return impl_->entries.size(); }

const Order* OrderBook::best_order() const {
  if (impl_->entries.empty()) return nullptr;
  return &impl_->order(*impl_->entries.begin());
}

std::optional<double> OrderBook::best_price() const {
  if (impl_->entries.empty()) return std::nullopt;
  return impl_->order(*impl_->entries.begin()).price;
}

void OrderBook::for_each(const std::function<void(const Order&)>& f) const {
  for (const Impl::Entry& e : impl_->entries) f(impl_->order(e));
}

std::vector<std::pair<std::optional<double>, int64_t>>
OrderBook::get_price_volume() const {
  // Orders at one price are adjacent in priority order (market orders, which
  // have no price, all come first), so one pass groups them.
  std::vector<std::pair<std::optional<double>, int64_t>> result;
  for (const Impl::Entry& e : impl_->entries) {
    const Order& order = impl_->order(e);
    if (!result.empty() && result.back().first == order.price) {
      result.back().second += order.volume;
    } else {
      result.emplace_back(order.price, order.volume);
    }
  }
  return result;
}

const Order* OrderBook::find(const Order& order) const {
  if (order.kind == OrderKind::kLimit && !order.price) return nullptr;
  auto it = impl_->entries.find(PriorityKeyOf(order));
  if (it == impl_->entries.end()) return nullptr;
  const Order& held = impl_->order(*it);
  return held.kind == order.kind && held.price == order.price ? &held : nullptr;
}

void OrderBook::add(Order* order) {
  order->placed_at = time_;
  const uint32_t slot = impl_->Store(*order);
  impl_->entries.insert(Impl::Entry{PriorityKeyOf(*order), slot});
  // A time to live that reaches past the last representable step never runs
  // out (PAMS's Python ints would keep such an order forever too).
  if (order->ttl &&
      *order->ttl <= std::numeric_limits<int64_t>::max() - std::max<int64_t>(time_, 0)) {
    // PAMS expires an order at the first set_time past placed_at + ttl. A
    // time to live <= 0 (PAMS's Order refuses one, but a program may set
    // it after) or a book moved back in time gives a step the expiry has
    // passed already: the order runs out at the next set_time, as in PAMS.
    const int64_t ttl = std::max<int64_t>(*order->ttl, 0);
    const int64_t expires = std::max(order->placed_at + ttl, impl_->expired_until);
    impl_->FileExpiry(Impl::Expiry{expires, order->order_id, slot},
                      std::max<int64_t>(expires - time_, 0));
  }
}

bool OrderBook::remove(const Order& order) {
  if (!contains(order)) return false;
  impl_->Erase(impl_->entries.find(PriorityKeyOf(order)));
  return true;
}

void OrderBook::change_order_volume(const Order& order, int64_t delta) {
  auto it = impl_->entries.find(PriorityKeyOf(order));
  if (it == impl_->entries.end()) {
    throw SimulationError("order " + std::to_string(order.order_id) +
                          " is not in the order book");
  }
  Order& held = impl_->order(*it);
  held.volume += delta;
  if (held.volume < 0) {
    throw SimulationError("order " + std::to_string(order.order_id) +
                          " would get a negative volume");
  }
  if (held.volume == 0) impl_->Erase(it);
}

void OrderBook::set_time(int64_t time, std::vector<Order>* expired) {
  time_ = time;
  Impl& b = *impl_;
  // PAMS removes orders with placed_at + ttl < time, earliest expiry time
  // first, each time in placement (order id) order.
  auto expire = [&](const Impl::Expiry& e) {
    const Order& held = b.slots[e.slot];
    if (held.order_id != e.order_id) return;  // left the book earlier
    expired->push_back(held);
    b.Erase(b.entries.find(PriorityKeyOf(held)));
  };
  for (; b.expired_until < time; ++b.expired_until) {
    const int64_t t = b.expired_until;
    Impl::Bucket* bucket =
        b.ring.empty() ? nullptr
                       : &b.ring[static_cast<size_t>(t) & (b.ring.size() - 1)];
    uint32_t n = bucket == nullptr ? Impl::kNil : bucket->head;
    // Merge the bucket's list and the heap's entries due at t by order id.
    auto far_due = [&] {
      return !b.far.empty() && b.far.front().expires_at == t;
    };
    while (n != Impl::kNil || far_due()) {
      if (far_due() && (n == Impl::kNil ||
                        b.far.front().order_id < b.nodes[n].expiry.order_id)) {
        const Impl::Expiry e = b.far.front();
        std::pop_heap(b.far.begin(), b.far.end());
        b.far.pop_back();
        expire(e);
      } else {
        const uint32_t next = b.nodes[n].next;
        expire(b.nodes[n].expiry);
        b.nodes[n].next = b.free_node;
        b.free_node = n;
        n = next;
      }
    }
    if (bucket != nullptr) *bucket = Impl::Bucket{};
  }
}

}  // namespace pams
