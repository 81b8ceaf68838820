// Tests for OrderBook: PAMS's priority order, price levels, removal by
// equality, volume changes and expiry (order_book.py's semantics: an order
// expires when placed_at + ttl < time; expired orders come out by expiry time,
// then in placement order).

#include "pams/market/order_book.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "pams/errors.h"
#include "pams/market/order.h"

namespace pams {
namespace {

using PriceVolume = std::vector<std::pair<std::optional<double>, int64_t>>;

// An order as the market would hand it to the book: id set, not yet placed.
Order Limit(int64_t id, bool is_buy, double price, int64_t volume = 1,
            std::optional<int64_t> ttl = std::nullopt) {
  Order o = Order::Limit({.agent_id = static_cast<int>(id % 7),
                          .market_id = 0,
                          .is_buy = is_buy,
                          .price = price,
                          .volume = volume,
                          .ttl = ttl});
  o.order_id = id;
  return o;
}

Order MarketOrder(int64_t id, bool is_buy, int64_t volume = 1,
                  std::optional<int64_t> ttl = std::nullopt) {
  Order o = Order::Market({.agent_id = static_cast<int>(id % 7),
                           .market_id = 0,
                           .is_buy = is_buy,
                           .volume = volume,
                           .ttl = ttl});
  o.order_id = id;
  return o;
}

std::vector<int64_t> Ids(const OrderBook& book) {
  std::vector<int64_t> ids;
  book.for_each([&](const Order& o) { ids.push_back(o.order_id); });
  return ids;
}

std::vector<int64_t> Ids(const std::vector<Order>& orders) {
  std::vector<int64_t> ids;
  for (const Order& o : orders) ids.push_back(o.order_id);
  return ids;
}

// Moves the book to `time`, returning the ids of the orders that expired.
std::vector<int64_t> Advance(OrderBook* book, int64_t time) {
  std::vector<Order> expired;
  book->set_time(time, &expired);
  return Ids(expired);
}

using IdList = std::vector<int64_t>;

TEST(OrderBookTest, EmptyBook) {
  OrderBook book(true);
  EXPECT_TRUE(book.is_buy());
  EXPECT_EQ(book.size(), 0u);
  EXPECT_TRUE(book.empty());
  EXPECT_EQ(book.best_order(), nullptr);
  EXPECT_EQ(book.best_price(), std::nullopt);
  EXPECT_TRUE(book.get_price_volume().empty());
  EXPECT_EQ(book.time(), 0);
  EXPECT_FALSE(OrderBook(false).is_buy());
}

TEST(OrderBookTest, BuyPriority) {
  OrderBook book(true);
  Order orders[] = {Limit(0, true, 100.0), Limit(1, true, 101.0),
                    Limit(2, true, 100.0), MarketOrder(3, true),
                    MarketOrder(4, true),  Limit(5, true, 99.0)};
  for (Order& o : orders) book.add(&o);
  // Market orders first by id, then the highest price, ties by id.
  EXPECT_EQ(Ids(book), (IdList{3, 4, 1, 0, 2, 5}));
  EXPECT_EQ(book.size(), 6u);
  ASSERT_NE(book.best_order(), nullptr);
  EXPECT_EQ(book.best_order()->order_id, 3);
  // The best order is a market order: no best price (PAMS: None).
  EXPECT_EQ(book.best_price(), std::nullopt);
}

TEST(OrderBookTest, SellPriority) {
  OrderBook book(false);
  Order orders[] = {Limit(0, false, 100.0), Limit(1, false, 99.0),
                    Limit(2, false, 99.0), Limit(3, false, 100.5),
                    MarketOrder(4, false)};
  for (Order& o : orders) book.add(&o);
  EXPECT_EQ(Ids(book), (IdList{4, 1, 2, 0, 3}));
  Order m = MarketOrder(4, false);
  m.placed_at = 0;
  ASSERT_TRUE(book.remove(m));
  EXPECT_EQ(book.best_price(), 99.0);
  EXPECT_EQ(book.best_order()->order_id, 1);
}

TEST(OrderBookTest, PlacementOrderBreaksTiesAcrossSteps) {
  OrderBook book(true);
  Order a = Limit(0, true, 100.0);
  book.add(&a);
  std::vector<Order> expired;
  book.set_time(3, &expired);
  Order b = Limit(1, true, 100.0);
  book.add(&b);
  Order c = Limit(2, true, 100.25);
  book.add(&c);
  EXPECT_EQ(a.placed_at, 0);
  EXPECT_EQ(b.placed_at, 3);
  EXPECT_EQ(Ids(book), (IdList{2, 0, 1}));
}

TEST(OrderBookTest, AddSetsPlacedAtAndStoresACopy) {
  OrderBook book(true);
  std::vector<Order> expired;
  book.set_time(5, &expired);
  EXPECT_EQ(book.time(), 5);
  Order o = Limit(10, true, 50.0, 3, 4);
  book.add(&o);
  EXPECT_EQ(o.placed_at, 5);
  o.volume = 99;  // the book holds its own copy
  ASSERT_NE(book.best_order(), nullptr);
  EXPECT_EQ(book.best_order()->volume, 3);
  EXPECT_EQ(book.best_order()->placed_at, 5);
  EXPECT_EQ(book.best_order()->ttl, 4);
  EXPECT_EQ(book.best_price(), 50.0);
}

TEST(OrderBookTest, ContainsAndRemoveCompareIdKindAndPrice) {
  OrderBook book(true);
  Order a = Limit(0, true, 100.0);
  Order b = Limit(1, true, 101.0);
  Order m = MarketOrder(2, true);
  book.add(&a);
  book.add(&b);
  book.add(&m);
  EXPECT_TRUE(book.contains(a));
  EXPECT_TRUE(book.contains(b));
  EXPECT_TRUE(book.contains(m));

  Order other_price = a;
  other_price.price = 100.5;
  EXPECT_FALSE(book.contains(other_price));
  EXPECT_FALSE(book.remove(other_price));

  Order other_id = a;
  other_id.order_id = 7;
  EXPECT_FALSE(book.contains(other_id));

  Order as_market = a;
  as_market.kind = OrderKind::kMarket;
  as_market.price.reset();
  EXPECT_FALSE(book.contains(as_market));

  Order m_as_limit = m;
  m_as_limit.kind = OrderKind::kLimit;
  m_as_limit.price = 100.0;
  EXPECT_FALSE(book.contains(m_as_limit));

  Order no_price = a;
  no_price.price.reset();  // a limit order without a price matches nothing
  EXPECT_FALSE(book.contains(no_price));

  // A copy with another volume is still the same order.
  Order copy = a;
  copy.volume = 1000;
  EXPECT_TRUE(book.remove(copy));
  EXPECT_FALSE(book.contains(a));
  EXPECT_FALSE(book.remove(a));  // already gone
  EXPECT_EQ(Ids(book), (IdList{2, 1}));
  EXPECT_TRUE(book.remove(m));
  EXPECT_EQ(book.best_price(), 101.0);
  EXPECT_EQ(book.size(), 1u);
}

TEST(OrderBookTest, FindGivesTheRestingOrderWithItsRemainingVolume) {
  OrderBook book(true);
  Order a = Limit(0, true, 10.0, 5);
  book.add(&a);
  book.change_order_volume(a, -2);
  const Order* resting = book.find(a);  // a is the caller's copy: volume 5
  ASSERT_NE(resting, nullptr);
  EXPECT_EQ(resting->volume, 3);
  EXPECT_EQ(resting->order_id, a.order_id);
  Order other_price = a;
  other_price.price = 11.0;
  EXPECT_EQ(book.find(other_price), nullptr);
  book.change_order_volume(a, -3);
  EXPECT_EQ(book.find(a), nullptr);
}

TEST(OrderBookTest, ChangeOrderVolume) {
  OrderBook book(false);
  Order a = Limit(0, false, 10.0, 5);
  Order b = Limit(1, false, 10.0, 2);
  book.add(&a);
  book.add(&b);
  book.change_order_volume(a, -3);
  EXPECT_EQ(book.best_order()->volume, 2);
  EXPECT_EQ(book.get_price_volume(), (PriceVolume{{10.0, 4}}));
  book.change_order_volume(a, +4);
  EXPECT_EQ(book.best_order()->volume, 6);
  // Reaching 0 removes the order.
  book.change_order_volume(a, -6);
  EXPECT_FALSE(book.contains(a));
  EXPECT_EQ(book.size(), 1u);
  EXPECT_EQ(book.best_order()->order_id, 1);
  // A negative volume or an absent order is an error.
  EXPECT_THROW(book.change_order_volume(b, -3), SimulationError);
  EXPECT_THROW(book.change_order_volume(a, -1), SimulationError);
}

TEST(OrderBookTest, PriceVolumeGroupsLevelsInPriorityOrder) {
  OrderBook buys(true);
  Order b[] = {Limit(0, true, 100.0, 3), MarketOrder(1, true, 4),
               Limit(2, true, 101.0, 1), Limit(3, true, 100.0, 2),
               MarketOrder(4, true, 6),  Limit(5, true, 99.5, 7)};
  for (Order& o : b) buys.add(&o);
  EXPECT_EQ(buys.get_price_volume(),
            (PriceVolume{{std::nullopt, 10}, {101.0, 1}, {100.0, 5}, {99.5, 7}}));

  OrderBook sells(false);
  Order s[] = {Limit(0, false, 100.0, 3), Limit(1, false, 101.0, 1),
               Limit(2, false, 100.0, 2), Limit(3, false, 99.5, 7)};
  for (Order& o : s) sells.add(&o);
  EXPECT_EQ(sells.get_price_volume(),
            (PriceVolume{{99.5, 7}, {100.0, 5}, {101.0, 1}}));
}

// --- Expiry ---

TEST(OrderBookTest, ExpiresWhenPlacedAtPlusTtlIsBeforeTime) {
  OrderBook book(true);
  Order a = Limit(0, true, 10.0, 1, 1);  // placed 0, expires when time > 1
  Order b = Limit(1, true, 11.0, 1, 2);  // time > 2
  Order c = Limit(2, true, 12.0, 1);     // never
  book.add(&a);
  book.add(&b);
  book.add(&c);
  EXPECT_EQ(Advance(&book, 1), IdList{});
  EXPECT_EQ(book.size(), 3u);
  EXPECT_EQ(Advance(&book, 2), IdList{0});
  EXPECT_EQ(Advance(&book, 3), IdList{1});
  EXPECT_EQ(Advance(&book, 500), IdList{});
  EXPECT_EQ(Ids(book), IdList{2});
}

TEST(OrderBookTest, ExpiredOrdersCarryTheirCurrentState) {
  OrderBook book(false);
  std::vector<Order> expired;
  book.set_time(4, &expired);
  Order a = Limit(0, false, 10.0, 5, 3);
  book.add(&a);
  book.change_order_volume(a, -2);
  book.set_time(8, &expired);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].order_id, 0);
  EXPECT_EQ(expired[0].volume, 3);
  EXPECT_EQ(expired[0].placed_at, 4);
  EXPECT_EQ(expired[0].ttl, 3);
  EXPECT_EQ(expired[0].price, 10.0);
  EXPECT_TRUE(book.empty());
}

TEST(OrderBookTest, SameStepExpiryInPlacementOrder) {
  OrderBook book(true);
  // All expire at 10; ids in placement order, prices unrelated to it.
  Order a = Limit(0, true, 5.0, 1, 10);
  book.add(&a);
  Advance(&book, 3);
  Order b = Limit(1, true, 9.0, 1, 7);
  Order m = MarketOrder(2, true, 1, 7);
  book.add(&b);
  book.add(&m);
  Advance(&book, 9);
  Order c = Limit(3, true, 1.0, 1, 1);
  book.add(&c);
  EXPECT_EQ(Advance(&book, 10), IdList{});
  EXPECT_EQ(Advance(&book, 11), (IdList{0, 1, 2, 3}));
  EXPECT_TRUE(book.empty());
}

TEST(OrderBookTest, TimeJumpExpiresByExpiryTimeThenPlacement) {
  OrderBook book(false);
  Order a = Limit(0, false, 1.0, 1, 10);  // expires at 10
  Order b = Limit(1, false, 2.0, 1, 3);   // 3
  Order c = Limit(2, false, 3.0, 1, 6);   // 6
  book.add(&a);
  book.add(&b);
  book.add(&c);
  Advance(&book, 2);
  Order d = Limit(3, false, 4.0, 1, 1);   // 3
  Order e = Limit(4, false, 5.0, 1, 30);  // 32
  book.add(&d);
  book.add(&e);
  EXPECT_EQ(Advance(&book, 20), (IdList{1, 3, 2, 0}));
  EXPECT_EQ(Ids(book), IdList{4});
  EXPECT_EQ(Advance(&book, 33), IdList{4});
}

TEST(OrderBookTest, RemovedOrdersAreNotReportedAtTheirExpiry) {
  OrderBook book(true);
  Order a = Limit(0, true, 10.0, 2, 5);
  Order b = Limit(1, true, 11.0, 1, 5);
  Order c = Limit(2, true, 12.0, 1, 5);
  Order far = Limit(3, true, 13.0, 1, 2000);  // in the heap
  book.add(&a);
  book.add(&b);
  book.add(&c);
  book.add(&far);
  EXPECT_TRUE(book.remove(b));
  book.change_order_volume(a, -2);  // executed away
  EXPECT_TRUE(book.remove(far));
  // New orders reuse the freed slots with other expiry times.
  Order d = Limit(4, true, 14.0, 1, 100);
  Order e = Limit(5, true, 15.0, 1, 1);
  Order f = Limit(6, true, 16.0, 1, 3000);
  book.add(&d);
  book.add(&e);
  book.add(&f);
  EXPECT_EQ(Advance(&book, 2), IdList{5});
  EXPECT_EQ(Advance(&book, 6), IdList{2});
  EXPECT_EQ(Advance(&book, 2001), IdList{4});
  EXPECT_EQ(Advance(&book, 3001), IdList{6});
  EXPECT_TRUE(book.empty());
}

TEST(OrderBookTest, LongTimesToLiveMixWithShortOnesAtTheSameStep) {
  OrderBook book(true);
  int64_t id = 0;
  std::vector<Order> keep;
  auto add = [&](int64_t ttl) {
    Order o = Limit(id, true, 100.0 + static_cast<double>(id % 5), 1, ttl);
    ++id;
    book.add(&o);
    keep.push_back(o);
  };
  // Every order below expires at 3000 (time 3001 removes them).
  add(3000);                     // id 0, t=0, heap
  Advance(&book, 1);
  add(2999);                     // id 1, heap
  Advance(&book, 1976);
  add(1024);                     // id 2, heap (the smallest heap ttl)
  Advance(&book, 1977);
  add(1023);                     // id 3, ring (the largest ring ttl)
  add(5000);                     // id 4, heap, expires at 6977
  Advance(&book, 2500);
  add(500);                      // id 5, ring
  Advance(&book, 2999);
  add(1);                        // id 6, ring
  add(1);                        // id 7, ring
  EXPECT_EQ(Advance(&book, 3000), IdList{});
  EXPECT_EQ(Advance(&book, 3001), (IdList{0, 1, 2, 3, 5, 6, 7}));
  EXPECT_EQ(Ids(book), IdList{4});
  EXPECT_EQ(Advance(&book, 6977), IdList{});
  EXPECT_EQ(Advance(&book, 6978), IdList{4});
}

TEST(OrderBookTest, RingGrowsWithoutLosingEntries) {
  OrderBook book(false);
  // Short times to live first (a small ring), then longer ones make it grow
  // while the short ones are still waiting.
  Order a = Limit(0, false, 1.0, 1, 3);     // 3
  Order b = Limit(1, false, 2.0, 1, 40);    // 40
  book.add(&a);
  book.add(&b);
  Advance(&book, 1);
  Order c = Limit(2, false, 3.0, 1, 200);   // 201
  Order d = Limit(3, false, 4.0, 1, 39);    // 40
  book.add(&c);
  book.add(&d);
  Advance(&book, 2);
  Order e = Limit(4, false, 5.0, 1, 1000);  // 1002
  Order f = Limit(5, false, 6.0, 1, 199);   // 201
  book.add(&e);
  book.add(&f);
  std::vector<std::pair<int64_t, IdList>> seen;
  for (int64_t t = 3; t <= 1100; ++t) {
    IdList ids = Advance(&book, t);
    if (!ids.empty()) seen.emplace_back(t, ids);
  }
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, IdList>>{
                      {4, {0}}, {41, {1, 3}}, {202, {2, 5}}, {1003, {4}}}));
}

TEST(OrderBookTest, JumpOverManyRingWraps) {
  OrderBook book(true);
  Order a = Limit(0, true, 1.0, 1, 50);
  book.add(&a);
  Advance(&book, 10);
  Order b = Limit(1, true, 2.0, 1, 5);    // 15
  Order c = Limit(2, true, 3.0, 1, 63);   // 73
  book.add(&b);
  book.add(&c);
  // One jump across several turns of the ring.
  EXPECT_EQ(Advance(&book, 1000), (IdList{1, 0, 2}));
  EXPECT_TRUE(book.empty());
  // The book keeps working after the jump.
  Order d = Limit(3, true, 4.0, 1, 2);
  book.add(&d);
  EXPECT_EQ(d.placed_at, 1000);
  EXPECT_EQ(Advance(&book, 1002), IdList{});
  EXPECT_EQ(Advance(&book, 1003), IdList{3});
}

// PAMS keeps an order with a huge time to live forever (Python ints do not
// overflow), and it must not stop other long orders from expiring (placed_at
// + ttl must not overflow).
TEST(OrderBookTest, HugeTimeToLiveNeverExpires) {
  OrderBook book(true);
  Advance(&book, 1);
  Order forever = Limit(0, true, 1.0, 1, std::numeric_limits<int64_t>::max());
  Order later = Limit(1, true, 2.0, 1, 2000);
  book.add(&forever);
  book.add(&later);
  EXPECT_EQ(Advance(&book, 2001), IdList{});
  EXPECT_EQ(Advance(&book, 2002), IdList{1});
  EXPECT_EQ(Advance(&book, 100000), IdList{});
  EXPECT_EQ(Ids(book), IdList{0});
}

// --- A long random run against a plain model of PAMS's order book ---

// PAMS's Order.__lt__ for one side.
bool HigherPriority(const Order& a, const Order& b) {
  const bool am = a.kind == OrderKind::kMarket;
  const bool bm = b.kind == OrderKind::kMarket;
  if (am != bm) return am;
  if (!am && *a.price != *b.price) {
    return a.is_buy ? *a.price > *b.price : *a.price < *b.price;
  }
  if (a.placed_at != b.placed_at) return a.placed_at < b.placed_at;
  return a.order_id < b.order_id;
}

TEST(OrderBookTest, RandomOperationsMatchAModel) {
  for (bool is_buy : {true, false}) {
    std::mt19937_64 rng(is_buy ? 12345 : 54321);
    auto uniform = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    OrderBook book(is_buy);
    std::vector<Order> model;  // resting orders
    int64_t time = 0;
    int64_t next_id = 0;
    for (int op = 0; op < 6000; ++op) {
      const int64_t kind = uniform(0, 99);
      if (kind < 45) {  // add
        const double price = 100.0 + 0.5 * static_cast<double>(uniform(-10, 10));
        std::optional<int64_t> ttl;
        const int64_t t = uniform(0, 9);
        if (t < 5) ttl = uniform(1, 8);
        else if (t < 7) ttl = uniform(60, 1100);
        else if (t < 8) ttl = uniform(1000, 1030);
        Order o = uniform(0, 9) == 0
                      ? MarketOrder(next_id, is_buy, uniform(1, 5), ttl)
                      : Limit(next_id, is_buy, price, uniform(1, 5), ttl);
        ++next_id;
        book.add(&o);
        ASSERT_EQ(o.placed_at, time);
        model.push_back(o);
      } else if (kind < 60 && !model.empty()) {  // cancel
        const size_t i = static_cast<size_t>(uniform(0, model.size() - 1));
        ASSERT_TRUE(book.remove(model[i]));
        ASSERT_FALSE(book.remove(model[i]));
        model.erase(model.begin() + static_cast<ptrdiff_t>(i));
      } else if (kind < 75 && !model.empty()) {  // partial or full execution
        const size_t i = static_cast<size_t>(uniform(0, model.size() - 1));
        const int64_t take = uniform(1, model[i].volume);
        book.change_order_volume(model[i], -take);
        model[i].volume -= take;
        if (model[i].volume == 0) {
          ASSERT_FALSE(book.contains(model[i]));
          model.erase(model.begin() + static_cast<ptrdiff_t>(i));
        }
      } else if (kind < 95) {  // advance, sometimes by several steps
        time += uniform(0, 9) == 0 ? uniform(2, 40) : 1;
        std::vector<Order> want;
        for (auto it = model.begin(); it != model.end();) {
          if (it->ttl && it->placed_at + *it->ttl < time) {
            want.push_back(*it);
            it = model.erase(it);
          } else {
            ++it;
          }
        }
        std::stable_sort(want.begin(), want.end(),
                         [](const Order& a, const Order& b) {
                           const int64_t ea = a.placed_at + *a.ttl;
                           const int64_t eb = b.placed_at + *b.ttl;
                           if (ea != eb) return ea < eb;
                           return a.order_id < b.order_id;
                         });
        std::vector<Order> got;
        book.set_time(time, &got);
        ASSERT_EQ(Ids(got), Ids(want)) << "time " << time;
        for (size_t k = 0; k < got.size(); ++k) {
          ASSERT_EQ(got[k].volume, want[k].volume);
        }
      } else {  // a cancel of an order that is not there
        Order ghost = Limit(next_id + 1000, is_buy, 100.0);
        ghost.placed_at = time;
        ASSERT_FALSE(book.remove(ghost));
      }
      // The whole book, in priority order.
      std::vector<Order> sorted = model;
      std::sort(sorted.begin(), sorted.end(), HigherPriority);
      ASSERT_EQ(Ids(book), Ids(sorted)) << "op " << op;
      ASSERT_EQ(book.size(), model.size());
      if (sorted.empty()) {
        ASSERT_EQ(book.best_order(), nullptr);
      } else {
        ASSERT_EQ(book.best_order()->order_id, sorted[0].order_id);
        ASSERT_EQ(book.best_price(), sorted[0].price);
      }
      // Price levels as PAMS's get_price_volume.
      std::map<double, int64_t> levels;
      int64_t market_volume = 0;
      bool has_market = false;
      for (const Order& o : model) {
        if (o.price) {
          levels[*o.price] += o.volume;
        } else {
          has_market = true;
          market_volume += o.volume;
        }
      }
      PriceVolume want_levels;
      if (has_market) want_levels.emplace_back(std::nullopt, market_volume);
      if (is_buy) {
        for (auto it = levels.rbegin(); it != levels.rend(); ++it) {
          want_levels.emplace_back(it->first, it->second);
        }
      } else {
        for (const auto& [p, v] : levels) want_levels.emplace_back(p, v);
      }
      ASSERT_EQ(book.get_price_volume(), want_levels) << "op " << op;
    }
  }
}

// A time to live of 0 or less (PAMS's Order refuses one; a program may set
// it after): the order runs out at the next step, as PAMS's does (its
// placed_at + ttl < time then), whatever the ttl.
TEST(OrderBookTest, ATimeToLiveOfZeroOrLessRunsOutAtTheNextStep) {
  OrderBook book(true);
  std::vector<Order> expired;
  book.set_time(4, &expired);
  Order a = Limit(1, true, 10.0, 1, 0);
  Order b = Limit(2, true, 11.0, 1, -1);
  Order c = Limit(3, true, 12.0, 1, std::numeric_limits<int64_t>::min());
  Order d = Limit(4, true, 13.0, 1, 2);
  for (Order* o : {&a, &b, &c, &d}) book.add(o);
  EXPECT_EQ(book.size(), 4u);
  EXPECT_EQ(Advance(&book, 5), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(Advance(&book, 7), (std::vector<int64_t>{4}));
  // A book moved back: an order placed then runs out at its next step too.
  book.set_time(2, &expired);
  Order e = Limit(5, true, 9.0, 1, 1);
  book.add(&e);
  EXPECT_EQ(Advance(&book, 8), (std::vector<int64_t>{5}));
}

}  // namespace
}  // namespace pams
