// The representation of OrderBook, shared by order_book.cc and market.cc
// (whose execution rule walks the books in priority order). Private to the
// library.
//
// Orders live in a pool of slots (reused, so steady-state steps allocate
// nothing). A B-tree of small entries orders them by priority key:
// (sort key, order id), where the sort key is -inf for market orders, -price
// for buy limit orders and price for sell limit orders. Order ids grow with
// placement time within a market, so this is exactly PAMS's order (kind,
// price, placed_at, order_id).
//
// Expiry: orders are filed under their expiry time (placed_at + ttl) in a
// ring of per-step buckets, or in a min-heap when the time to live is longer
// than the ring may grow. An order that leaves the book early (executed,
// canceled) keeps its entry until that time comes; the entry is then
// recognised as stale because its slot no longer holds that order id.

#ifndef PAMS_SRC_MARKET_ORDER_BOOK_IMPL_H_
#define PAMS_SRC_MARKET_ORDER_BOOK_IMPL_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

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

inline PriorityKey PriorityKeyOf(const Order& order) {
  if (order.kind == OrderKind::kMarket) {
    return {-std::numeric_limits<double>::infinity(), order.order_id};
  }
  return {order.is_buy ? -*order.price : *order.price, order.order_id};
}

struct OrderBook::Impl {
  struct Entry {
    PriorityKey key;
    uint32_t slot;
  };
  struct EntryLess {
    using is_transparent = void;
    bool operator()(const Entry& a, const Entry& b) const { return a.key < b.key; }
    bool operator()(const Entry& a, const PriorityKey& b) const { return a.key < b; }
    bool operator()(const PriorityKey& a, const Entry& b) const { return a < b.key; }
  };
  struct Expiry {
    int64_t expires_at;  // placed_at + ttl
    int64_t order_id;
    uint32_t slot;
    // std::push_heap builds a max-heap; "greater" puts the earliest on top.
    bool operator<(const Expiry& o) const {
      return expires_at > o.expires_at ||
             (expires_at == o.expires_at && order_id > o.order_id);
    }
  };
  // Times to live below this go to the ring (which grows to a power of two
  // above the longest one seen); longer ones go to the heap.
  static constexpr int64_t kMaxRingTtl = 1024;
  using Iterator = absl::btree_set<Entry, EntryLess>::iterator;

  absl::btree_set<Entry, EntryLess> entries;
  std::vector<Order> slots;
  std::vector<uint32_t> free_slots;
  // The ring: one FIFO list per bucket (bucket = expires_at & (size - 1)),
  // linked through a pool of nodes, so that filing an order allocates
  // nothing once the pool has grown to the book's size.
  static constexpr uint32_t kNil = 0xffffffffu;
  struct Node {
    Expiry expiry;
    uint32_t next;
  };
  struct Bucket {
    uint32_t head = kNil;
    uint32_t tail = kNil;
  };
  std::vector<Bucket> ring;
  std::vector<Node> nodes;
  uint32_t free_node = kNil;
  std::vector<Expiry> far;    // heap, for long times to live
  int64_t expired_until = 0;  // times < this are processed

  void Append(Bucket& bucket, const Expiry& e) {
    uint32_t n;
    if (free_node != kNil) {
      n = free_node;
      free_node = nodes[n].next;
      nodes[n] = Node{e, kNil};
    } else {
      n = static_cast<uint32_t>(nodes.size());
      nodes.push_back(Node{e, kNil});
    }
    if (bucket.tail == kNil) {
      bucket.head = n;
    } else {
      nodes[bucket.tail].next = n;
    }
    bucket.tail = n;
  }

  void FileExpiry(const Expiry& e, int64_t ttl) {
    if (ttl >= kMaxRingTtl) {
      far.push_back(e);
      std::push_heap(far.begin(), far.end());
      return;
    }
    if (static_cast<int64_t>(ring.size()) <= ttl) GrowRing(ttl);
    Append(ring[static_cast<size_t>(e.expires_at) & (ring.size() - 1)], e);
  }

  void GrowRing(int64_t ttl) {
    size_t size = ring.empty() ? 64 : ring.size();
    while (static_cast<int64_t>(size) <= ttl) size *= 2;
    std::vector<Bucket> old = std::move(ring);
    ring.assign(size, Bucket{});
    // Entries of one new bucket come from one old bucket, in order.
    for (const Bucket& bucket : old) {
      for (uint32_t n = bucket.head; n != kNil;) {
        const uint32_t next = nodes[n].next;
        const Expiry e = nodes[n].expiry;
        nodes[n].next = free_node;
        free_node = n;
        Append(ring[static_cast<size_t>(e.expires_at) & (size - 1)], e);
        n = next;
      }
    }
  }

  Order& order(const Entry& e) { return slots[e.slot]; }
  const Order& order(const Entry& e) const { return slots[e.slot]; }

  // A free slot holding a copy of `order`.
  uint32_t Store(const Order& o) {
    if (free_slots.empty()) {
      slots.push_back(o);
      return static_cast<uint32_t>(slots.size() - 1);
    }
    const uint32_t slot = free_slots.back();
    free_slots.pop_back();
    slots[slot] = o;
    return slot;
  }

  // Removes the order at it. Its expiry entry goes stale (see above).
  Iterator Erase(Iterator it) {
    const uint32_t slot = it->slot;
    slots[slot].order_id = -1;  // marks the slot free for stale-entry checks
    free_slots.push_back(slot);
    return entries.erase(it);
  }
};

}  // namespace pams

#endif  // PAMS_SRC_MARKET_ORDER_BOOK_IMPL_H_
