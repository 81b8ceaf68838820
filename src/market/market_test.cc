// Tests for Market: the tick grid, order acceptance, PAMS's execution rule,
// the per-step histories and their getters.
//
// Reference values: the tick table and the trading scenario below were
// computed by running PAMS 0.3.0's pams.market.Market in /usr/bin/python3
// (CPython 3.11, PYTHONPATH = the reference venv's site-packages): the same
// orders in the same order, with _add_order / _execution / _cancel_order /
// _update_time. The numbers are literals from that run (hex floats are
// float.hex() of PAMS's values; NaN stands for PAMS's None).

#include "pams/market/market.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/simulator/simulator.h"
#include "testing/catch_config_error.h"
#include "testing/sim_builder.h"

namespace pams {
namespace {

using test_support::Bits;
using test_support::CatchConfigError;
using test_support::SimBuilder;
using PriceVolume = std::vector<std::pair<std::optional<double>, int64_t>>;

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// --- Tick grid ---

struct TickCase {
  double tick;
  double price;
  std::optional<int64_t> on_tick_level;  // PAMS's _get_tick_level_if_on_tick
  int64_t buy_level;                     // convert_to_tick_level(p, True)
  int64_t sell_level;                    // convert_to_tick_level(p, False)
  double buy_price;                      // convert_to_price(buy_level)
  double sell_price;
};

// From PAMS's Market (see the header comment).
const TickCase kTickCases[] = {
    // tick 1e-05, price 300.000001: buy 300.0, sell 300.00001000000003
    {0x1.4f8b588e368f1p-17, 0x1.2c000010c6f7ap+8, std::nullopt, 30000000,
     30000001, 0x1.2c00000000000p+8, 0x1.2c0000a7c5ac5p+8},
    // tick 1e-05, price 300.0
    {0x1.4f8b588e368f1p-17, 0x1.2c00000000000p+8, 30000000, 30000000,
     30000000, 0x1.2c00000000000p+8, 0x1.2c00000000000p+8},
    // tick 1e-05, price 299.99999999999994 (1 ulp below 300)
    {0x1.4f8b588e368f1p-17, 0x1.2bfffffffffffp+8, 30000000, 30000000,
     30000000, 0x1.2c00000000000p+8, 0x1.2c00000000000p+8},
    // tick 0.1, price 0.3 (0.3 / 0.1 == 2.9999999999999996): on tick 3
    {0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 3, 3,
     0x1.3333333333334p-2, 0x1.3333333333334p-2},
    // tick 0.1, price 0.7: on tick 7, price 0.7000000000000001
    {0x1.999999999999ap-4, 0x1.6666666666666p-1, 7, 7, 7,
     0x1.6666666666667p-1, 0x1.6666666666667p-1},
    // tick 1.0, price 500000000001.001: off tick
    {1.0, 0x1.d1a94a2004010p+38, std::nullopt, 500000000001, 500000000002,
     0x1.d1a94a2004000p+38, 0x1.d1a94a2008000p+38},
    // tick 0.01, price 100.005: buy 100.0, sell 100.01
    {0x1.47ae147ae147bp-7, 0x1.90051eb851eb8p+6, std::nullopt, 10000, 10001,
     0x1.9000000000000p+6, 0x1.900a3d70a3d71p+6},
    // tick 1.0, price 99.5
    {1.0, 99.5, std::nullopt, 99, 100, 99.0, 100.0},
    // tick 0.001, price 1.0000000000000002: within 4 ulps of tick 1000
    {0x1.0624dd2f1a9fcp-10, 0x1.0000000000001p+0, 1000, 1000, 1000, 1.0, 1.0},
    // tick 1.0, price 2**50 + 0.5: a half tick is never on tick (0.25 cap)
    {1.0, 0x1.0000000000002p+50, std::nullopt, 1125899906842624,
     1125899906842625, 0x1.0000000000000p+50, 0x1.0000000000004p+50},
    // tick 1.0, price 2**50 + 0.25: on tick
    {1.0, 0x1.0000000000001p+50, 1125899906842624, 1125899906842624,
     1125899906842624, 0x1.0000000000000p+50, 0x1.0000000000000p+50},
    // tick 0.5, price 3.2 and 3.25
    {0.5, 0x1.999999999999ap+1, std::nullopt, 6, 7, 3.0, 3.5},
    {0.5, 3.25, std::nullopt, 6, 7, 3.0, 3.5},
    // tick 1.0, price 300.0000000000001
    {1.0, 0x1.2c00000000002p+8, 300, 300, 300, 300.0, 300.0},
    // tick 0.01, price 123.456: buy 123.45, sell 123.46000000000001
    {0x1.47ae147ae147bp-7, 0x1.edd2f1a9fbe77p+6, std::nullopt, 12345, 12346,
     0x1.edccccccccccdp+6, 0x1.edd70a3d70a3ep+6},
    // tick 1e-05, price 329.16531000000003
    {0x1.4f8b588e368f1p-17, 0x1.492a51c193b3bp+8, 32916531, 32916531,
     32916531, 0x1.492a51c193b3bp+8, 0x1.492a51c193b3bp+8},
    // tick 0.25, price 1e-09: buy 0.0, sell 0.25
    {0.25, 0x1.12e0be826d695p-30, std::nullopt, 0, 1, 0.0, 0.25},
};

std::string TickJson(double tick) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", tick);
  return std::string(R"({"tickSize": )") + buf + R"(, "marketPrice": 300.0})";
}

TEST(MarketTickTest, MatchesPamsConversions) {
  for (const TickCase& c : kTickCases) {
    SimBuilder b;
    Market* m = b.AddMarket("m", TickJson(c.tick));
    ASSERT_EQ(Bits(m->tick_size()), Bits(c.tick));
    const std::string label = "tick " + std::to_string(c.tick) + " price " +
                              std::to_string(c.price);
    EXPECT_EQ(m->convert_to_tick_level(c.price, true), c.buy_level) << label;
    EXPECT_EQ(m->convert_to_tick_level(c.price, false), c.sell_level) << label;
    EXPECT_EQ(m->convert_to_tick_level_rounded_lower(c.price), c.buy_level);
    EXPECT_EQ(m->convert_to_tick_level_rounded_upper(c.price), c.sell_level);
    if (c.on_tick_level) {
      // On tick: both sides give the same level.
      EXPECT_EQ(c.buy_level, *c.on_tick_level);
      EXPECT_EQ(c.sell_level, *c.on_tick_level);
    }
    EXPECT_EQ(Bits(m->convert_to_price(c.buy_level)), Bits(c.buy_price)) << label;
    EXPECT_EQ(Bits(m->convert_to_price(c.sell_level)), Bits(c.sell_price))
        << label;
  }
}

TEST(MarketTickTest, AcceptedOrdersAreMovedOntoTheGrid) {
  for (const TickCase& c : kTickCases) {
    SimBuilder b;
    Market* m = b.AddMarket("m", TickJson(c.tick));
    m->update_time(300.0);
    Order buy = Order::Limit({.agent_id = 0,
                              .market_id = 0,
                              .is_buy = true,
                              .price = c.price,
                              .volume = 1});
    Order sell = Order::Limit({.agent_id = 0,
                               .market_id = 0,
                               .is_buy = false,
                               .price = c.price,
                               .volume = 1});
    const OrderLog buy_log = m->add_order(&buy);
    const OrderLog sell_log = m->add_order(&sell);
    EXPECT_EQ(Bits(*buy.price), Bits(c.buy_price));
    EXPECT_EQ(Bits(*buy_log.price), Bits(c.buy_price));
    EXPECT_EQ(Bits(*sell.price), Bits(c.sell_price));
    EXPECT_EQ(Bits(*sell_log.price), Bits(c.sell_price));
  }
}

// Prices of more ticks than an int64 holds (or not finite) are errors, in
// every public conversion, not undefined behaviour.
TEST(MarketTickTest, HugePricesAreRefused) {
  SimBuilder b;
  Market* m = b.AddMarket("m", TickJson(0.01));
  m->update_time(300.0);
  for (double price :
       {1e17, -1e17, 1e300, std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_THROW(m->convert_to_tick_level_rounded_lower(price), SimulationError)
        << price;
    EXPECT_THROW(m->convert_to_tick_level_rounded_upper(price), SimulationError)
        << price;
    EXPECT_THROW(m->convert_to_tick_level(price, true), SimulationError)
        << price;
    Order o = Order::Limit({.agent_id = 0,
                            .market_id = 0,
                            .is_buy = true,
                            .price = price,
                            .volume = 1});
    EXPECT_THROW(m->add_order(&o), SimulationError) << price;
  }
  EXPECT_EQ(m->convert_to_tick_level_rounded_lower(9.1e16),
            int64_t{9'100'000'000'000'000'000});
}

// --- Setup ---

Market MakeBareMarket() {
  MarketInit init;
  init.name = "bare";
  return Market(std::move(init));
}

TEST(MarketSetupTest, ReadsItsKeys) {
  SimBuilder b;
  Market* m = b.AddMarket(
      "m", R"({"tickSize": 0.01, "marketPrice": 250, "fundamentalPrice": 300,
              "outstandingShares": 1000})");
  EXPECT_EQ(m->tick_size(), 0.01);
  EXPECT_FALSE(m->tick_size_is_int());
  EXPECT_EQ(m->outstanding_shares(), 1000);
  EXPECT_EQ(m->name(), "m");
  EXPECT_EQ(m->market_id(), 0);
  EXPECT_EQ(m->get_time(), -1);
  EXPECT_FALSE(m->is_running());
  // marketPrice wins over fundamentalPrice for the initial market price.
  m->update_time(300.0);
  EXPECT_EQ(m->get_market_price(), 250.0);
  EXPECT_EQ(m->get_fundamental_price(), 300.0);

  Market* n = b.AddMarket("n", R"({"tickSize": 1, "fundamentalPrice": 300})");
  EXPECT_TRUE(n->tick_size_is_int());
  EXPECT_EQ(n->outstanding_shares(), std::nullopt);
  n->update_time(300.0);
  EXPECT_EQ(n->get_market_price(), 300.0);
}

TEST(MarketSetupTest, RejectsBadSettings) {
  struct Case {
    const char* json;
    const char* path;
  } cases[] = {
      {R"({"marketPrice": 300})", "M.tickSize"},
      {R"({"tickSize": 0, "marketPrice": 300})", "M.tickSize"},
      {R"({"tickSize": -0.01, "marketPrice": 300})", "M.tickSize"},
      {R"({"tickSize": "0.01", "marketPrice": 300})", "M.tickSize"},
      {R"({"tickSize": 0.01})", "M"},
      {R"({"tickSize": 0.01, "marketPrice": "300"})", "M.marketPrice"},
      {R"({"tickSize": 0.01, "marketPrice": 0})", "M.marketPrice"},
      {R"({"tickSize": 0.01, "fundamentalPrice": -1})", "M.fundamentalPrice"},
      {R"({"tickSize": 0.01, "marketPrice": 300, "outstandingShares": 1.5})",
       "M.outstandingShares"},
      {R"({"tickSize": 0.01, "marketPrice": 300, "outstandingShares": 0})",
       "M.outstandingShares"},
  };
  for (const auto& c : cases) {
    Market m = MakeBareMarket();
    const Json j = Json::parse(c.json);
    const ConfigError e = CatchConfigError([&] { m.setup(Settings(j, "M")); });
    EXPECT_EQ(e.path(), c.path) << c.json << ": " << e.what();
  }
}

// --- Orders ---

TEST(MarketOrderTest, AddOrderAssignsIdsAndPlacedAt) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 0.01, "marketPrice": 300})");
  b.AddMarket("other", R"({"tickSize": 0.01, "marketPrice": 300})");
  m->update_time(300.0);
  Order a = Order::Limit({.agent_id = 3,
                          .market_id = 0,
                          .is_buy = true,
                          .price = 299.0,
                          .volume = 2,
                          .ttl = 5});
  const OrderLog la = m->add_order(&a);
  EXPECT_EQ(a.order_id, 0);
  EXPECT_EQ(a.placed_at, 0);
  EXPECT_EQ(la.order_id, 0);
  EXPECT_EQ(la.time, 0);
  EXPECT_EQ(la.agent_id, 3);
  EXPECT_EQ(la.market_id, 0);
  EXPECT_TRUE(la.is_buy);
  EXPECT_EQ(la.kind, OrderKind::kLimit);
  EXPECT_EQ(la.volume, 2);
  EXPECT_EQ(la.price, 299.0);
  EXPECT_EQ(la.ttl, 5);
  m->update_time(300.0);
  Order mo = Order::Market(
      {.agent_id = 4, .market_id = 0, .is_buy = false, .volume = 1});
  const OrderLog lm = m->add_order(&mo);
  EXPECT_EQ(mo.order_id, 1);
  EXPECT_EQ(mo.placed_at, 1);
  EXPECT_EQ(lm.kind, OrderKind::kMarket);
  EXPECT_EQ(lm.price, std::nullopt);
  // The log rebuilds the accepted order, e.g. for a cancel.
  const Order back = la.order();
  EXPECT_EQ(back.order_id, 0);
  EXPECT_EQ(back.placed_at, 0);
  EXPECT_TRUE(back.is_placed());

  // Submitting the same order again, or to the wrong market, is refused.
  EXPECT_THROW(m->add_order(&a), SimulationError);
  Order wrong = Order::Limit({.agent_id = 3,
                              .market_id = 1,
                              .is_buy = true,
                              .price = 299.0,
                              .volume = 1});
  EXPECT_THROW(m->add_order(&wrong), SimulationError);
  EXPECT_EQ(wrong.order_id, -1);
  // Cancels of orders never accepted or of another market are refused too.
  EXPECT_THROW(m->cancel_order(Cancel{Order::Limit({.agent_id = 3,
                                                    .market_id = 0,
                                                    .is_buy = true,
                                                    .price = 299.0,
                                                    .volume = 1})}),
               SimulationError);
  Order other = la.order();
  other.market_id = 1;
  EXPECT_THROW(m->cancel_order(Cancel{other}), SimulationError);
}

// --- The trading scenario, step by step, against PAMS ---

struct State {
  double market;
  double mid;   // NaN = None
  double last;  // NaN = None
  int64_t volume;
  double total;
  int64_t n_buy;
  int64_t n_sell;
  std::optional<double> best_buy;
  std::optional<double> best_sell;
  PriceVolume buy_book;
  PriceVolume sell_book;
};

void ExpectOptionalBits(std::optional<double> got, double want,
                        const char* what, const std::string& tag) {
  if (std::isnan(want)) {
    EXPECT_EQ(got, std::nullopt) << tag << ": " << what;
  } else {
    ASSERT_TRUE(got.has_value()) << tag << ": " << what;
    EXPECT_EQ(Bits(*got), Bits(want)) << tag << ": " << what << " " << *got;
  }
}

void ExpectState(const Market& m, const State& s, const std::string& tag) {
  EXPECT_EQ(Bits(m.get_market_price()), Bits(s.market)) << tag;
  ExpectOptionalBits(m.get_mid_price(), s.mid, "mid", tag);
  ExpectOptionalBits(m.get_last_executed_price(), s.last, "last", tag);
  EXPECT_EQ(m.get_executed_volume(), s.volume) << tag;
  EXPECT_EQ(Bits(m.get_executed_total_price()), Bits(s.total)) << tag;
  EXPECT_EQ(m.get_n_buy_order(), s.n_buy) << tag;
  EXPECT_EQ(m.get_n_sell_order(), s.n_sell) << tag;
  EXPECT_EQ(m.get_best_buy_price(), s.best_buy) << tag;
  EXPECT_EQ(m.get_best_sell_price(), s.best_sell) << tag;
  EXPECT_EQ(m.get_buy_order_book(), s.buy_book) << tag;
  EXPECT_EQ(m.get_sell_order_book(), s.sell_book) << tag;
}

struct Exec {
  int64_t buy_order_id;
  int buy_agent;
  int64_t sell_order_id;
  int sell_agent;
  double price;
  int64_t volume;
};

class MarketScenarioTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_ = b_.AddMarket("m", R"({"tickSize": 0.01, "marketPrice": 300.0})", 2);
  }

  // Adds an order; when the market runs, executes like the runner and
  // checks the executions.
  Order Add(int agent, bool is_buy, std::optional<double> price,
            int64_t volume, std::optional<int64_t> ttl,
            int64_t want_id, std::optional<double> want_price,
            const std::vector<Exec>& want_execs = {}) {
    Order o = price ? Order::Limit({.agent_id = agent,
                                    .market_id = 0,
                                    .is_buy = is_buy,
                                    .price = *price,
                                    .volume = volume,
                                    .ttl = ttl})
                    : Order::Market({.agent_id = agent,
                                     .market_id = 0,
                                     .is_buy = is_buy,
                                     .volume = volume,
                                     .ttl = ttl});
    const OrderLog log = m_->add_order(&o);
    EXPECT_EQ(log.order_id, want_id);
    EXPECT_EQ(log.time, m_->get_time());
    if (want_price) {
      EXPECT_EQ(Bits(*log.price), Bits(*want_price)) << "order " << want_id;
    } else {
      EXPECT_EQ(log.price, std::nullopt);
    }
    std::vector<ExecutionLog> logs;
    if (m_->is_running()) m_->execution(&logs);
    EXPECT_EQ(logs.size(), want_execs.size()) << "order " << want_id;
    for (size_t i = 0; i < std::min(logs.size(), want_execs.size()); ++i) {
      const ExecutionLog& l = logs[i];
      const Exec& w = want_execs[i];
      EXPECT_EQ(l.market_id, 0);
      EXPECT_EQ(l.time, m_->get_time());
      EXPECT_EQ(l.buy_order_id, w.buy_order_id) << "order " << want_id;
      EXPECT_EQ(l.buy_agent_id, w.buy_agent) << "order " << want_id;
      EXPECT_EQ(l.sell_order_id, w.sell_order_id) << "order " << want_id;
      EXPECT_EQ(l.sell_agent_id, w.sell_agent) << "order " << want_id;
      EXPECT_EQ(Bits(l.price), Bits(w.price)) << "order " << want_id;
      EXPECT_EQ(l.volume, w.volume) << "order " << want_id;
    }
    return o;
  }

  SimBuilder b_;
  Market* m_ = nullptr;
};

TEST_F(MarketScenarioTest, MatchesPamsStepByStep) {
  Market& m = *m_;
  const auto none = std::nullopt;
  m.update_time(300.0);
  ExpectState(m, {300.0, kNone, kNone, 0, 0.0, 0, 0, none, none, {}, {}},
              "t0 start");

  // Not running: orders rest, the mid price moves, the market price not.
  Add(0, true, 299.5, 5, none, 0, 299.5);
  const Order o1 = Add(1, false, 300.5, 3, none, 1, 300.5);
  ExpectState(m, {300.0, 300.0, kNone, 0, 0.0, 1, 1, 299.5, 300.5,
                  {{299.5, 5}}, {{300.5, 3}}},
              "t0 not running");

  m.set_is_running(true);
  // Limit against limit at one step: the order with the smaller id sets the
  // price.
  const Order o2 = Add(2, true, 301.0, 2, none, 2, 301.0,
                       {{2, 2, 1, 1, 300.5, 2}});
  ExpectState(m, {300.5, 300.0, 300.5, 2, 601.0, 2, 1, 299.5, 300.5,
                  {{299.5, 5}}, {{300.5, 1}}},
              "t0 after exec");

  // Off-tick prices: buys rounded down, sells up.
  Add(3, true, 300.123, 1, 1, 3, 0x1.2c1eb851eb852p+8);   // 300.12
  const Order o4 = Add(4, false, 300.127, 1, none, 4, 0x1.2c2147ae147aep+8);  // 300.13
  ExpectState(m, {300.5, 300.125, 300.5, 2, 601.0, 3, 2, 0x1.2c1eb851eb852p+8,
                  0x1.2c2147ae147aep+8,
                  {{0x1.2c1eb851eb852p+8, 1}, {299.5, 5}},
                  {{0x1.2c2147ae147aep+8, 1}, {300.5, 1}}},
              "t0 offtick");

  m.update_time(301.5);
  ExpectState(m, {300.5, 300.125, 300.5, 0, 0.0, 0, 0, 0x1.2c1eb851eb852p+8,
                  0x1.2c2147ae147aep+8,
                  {{0x1.2c1eb851eb852p+8, 1}, {299.5, 5}},
                  {{0x1.2c2147ae147aep+8, 1}, {300.5, 1}}},
              "t1 start");
  EXPECT_EQ(m.get_fundamental_price(), 301.5);

  // A market sell eats the best buys; a partial fill of order 0.
  Add(5, false, none, 4, none, 5, none,
      {{3, 3, 5, 5, 299.5, 1}, {0, 0, 5, 5, 299.5, 3}});
  ExpectState(m, {299.5, 0x1.2bd0a3d70a3d7p+8 /* 299.815 */, 299.5, 4, 1198.0,
                  0, 1, 299.5, 0x1.2c2147ae147aep+8, {{299.5, 2}},
                  {{0x1.2c2147ae147aep+8, 1}, {300.5, 1}}},
              "t1 after market sell");

  // Cancel of a resting order: logged with the volume the book holds.
  const CancelLog cancel4 = m.cancel_order(Cancel{o4});
  EXPECT_EQ(cancel4.order_id, 4);
  EXPECT_EQ(cancel4.volume, 1);
  EXPECT_EQ(cancel4.cancel_time, 1);
  EXPECT_EQ(cancel4.order_time, 0);
  Add(6, false, 301.0, 1, none, 6, 301.0);
  Add(7, false, 302.0, 3, none, 7, 302.0);
  ExpectState(m, {299.5, 300.0, 299.5, 4, 1198.0, 0, 3, 299.5, 300.5,
                  {{299.5, 2}}, {{300.5, 1}, {301.0, 1}, {302.0, 3}}},
              "t1 sells");

  // A market buy larger than the sell book: everything at one price, the
  // last limit price matched (302), the rest of it rests.
  Add(8, true, none, 6, none, 8, none,
      {{8, 8, 1, 1, 302.0, 1}, {8, 8, 6, 6, 302.0, 1}, {8, 8, 7, 7, 302.0, 3}});
  ExpectState(m, {302.0, kNone, 302.0, 9, 2708.0, 1, 3, none, none,
                  {{none, 1}, {299.5, 2}}, {}},
              "t1 after market buy");

  m.update_time(302.0);
  ExpectState(m, {302.0, kNone, 302.0, 0, 0.0, 0, 0, none, none,
                  {{none, 1}, {299.5, 2}}, {}},
              "t2 start");

  // Market orders on both sides with unequal volumes: the sell excess (4)
  // cannot be absorbed by the buy limits (2), so nothing trades.
  Add(9, false, none, 5, none, 9, none);
  EXPECT_FALSE(m.remain_executable_orders());
  ExpectState(m, {302.0, kNone, 302.0, 0, 0.0, 0, 1, none, none,
                  {{none, 1}, {299.5, 2}}, {{none, 5}}},
              "t2 unequal market orders");
  // More buy limits absorb it: one price for all, the last pair's 299.0.
  Add(10, true, 299.0, 2, none, 10, 299.0,
      {{8, 8, 9, 9, 299.0, 1}, {0, 0, 9, 9, 299.0, 2}, {10, 10, 9, 9, 299.0, 2}});
  ExpectState(m, {299.0, kNone, 299.0, 5, 1495.0, 1, 1, none, none, {}, {}},
              "t2 absorbed");

  const Order o11 = Add(14, true, 298.0, 3, none, 11, 298.0);
  Add(15, false, 298.0, 1, none, 12, 298.0, {{11, 14, 12, 15, 298.0, 1}});
  ExpectState(m, {298.0, kNone, 298.0, 6, 1793.0, 2, 2, 298.0, none,
                  {{298.0, 2}}, {}},
              "t2 partial");
  const CancelLog cancel11 = m.cancel_order(Cancel{o11});
  EXPECT_EQ(cancel11.order_id, 11);
  EXPECT_EQ(cancel11.volume, 2);  // what was left of it
  EXPECT_EQ(cancel11.cancel_time, 2);
  EXPECT_EQ(cancel11.order_time, 2);
  // Cancel of an order that has been executed: nothing changes.
  const CancelLog cancel2 = m.cancel_order(Cancel{o2});
  EXPECT_EQ(cancel2.order_id, 2);
  EXPECT_EQ(cancel2.cancel_time, 2);
  EXPECT_EQ(cancel2.order_time, 0);
  ExpectState(m, {298.0, kNone, 298.0, 6, 1793.0, 2, 2, none, none, {}, {}},
              "t2 after cancels");

  Add(11, true, 298.0, 1, 1, 13, 298.0);
  Add(12, false, 305.0, 2, none, 14, 305.0);
  ExpectState(m, {298.0, 301.5, 298.0, 6, 1793.0, 3, 3, 298.0, 305.0,
                  {{298.0, 1}}, {{305.0, 2}}},
              "t2 book");

  m.update_time(303.0);
  ExpectState(m, {298.0, 301.5, 298.0, 0, 0.0, 0, 0, 298.0, 305.0,
                  {{298.0, 1}}, {{305.0, 2}}},
              "t3");
  // The last executed price is carried into the new step, so a new order
  // moves the mid price but the market price stays at the last execution.
  Add(13, true, 299.0, 1, none, 15, 299.0);
  ExpectState(m, {298.0, 302.0, 298.0, 0, 0.0, 1, 0, 299.0, 305.0,
                  {{299.0, 1}, {298.0, 1}}, {{305.0, 2}}},
              "t3 order");

  // Order 13 (placed at 2, ttl 1) expires at step 4.
  m.update_time(304.0);
  ExpectState(m, {298.0, 302.0, 298.0, 0, 0.0, 0, 0, 299.0, 305.0,
                  {{299.0, 1}}, {{305.0, 2}}},
              "t4");
  // A resting buy placed earlier sets the price against a new sell.
  Add(16, false, 298.5, 3, none, 16, 298.5, {{15, 13, 16, 16, 299.0, 1}});
  ExpectState(m, {299.0, kNone, 299.0, 1, 299.0, 0, 1, none, 298.5, {},
                  {{298.5, 2}, {305.0, 2}}},
              "t4 sell");
  // Two limit pairs: 298.5 (same step, the sell's smaller id) then 305.0
  // (the older sell): all at the last pair's price.
  Add(17, true, 310.0, 3, none, 17, 310.0,
      {{17, 17, 16, 16, 305.0, 2}, {17, 17, 14, 12, 305.0, 1}});
  ExpectState(m, {305.0, kNone, 305.0, 4, 1214.0, 1, 1, none, 305.0, {},
                  {{305.0, 1}}},
              "t4 buy");

  m.set_is_running(false);
  m.update_time(305.0);
  ExpectState(m, {305.0, kNone, 305.0, 0, 0.0, 0, 0, none, 305.0, {},
                  {{305.0, 1}}},
              "t5 not running");
  Add(18, true, 300.0, 1, none, 18, 300.0);
  Add(19, false, 301.0, 1, none, 19, 301.0);
  ExpectState(m, {305.0, 300.5, 305.0, 0, 0.0, 1, 1, 300.0, 301.0,
                  {{300.0, 1}}, {{301.0, 1}, {305.0, 1}}},
              "t5 orders");
  m.update_time(306.0);
  ExpectState(m, {305.0, 300.5, 305.0, 0, 0.0, 0, 0, 300.0, 301.0,
                  {{300.0, 1}}, {{301.0, 1}, {305.0, 1}}},
              "t6 not running");

  // Whole histories (PAMS's get_*_prices()).
  const std::vector<double> market = {300.5, 302.0, 298.0, 298.0,
                                      305.0, 305.0, 305.0};
  const std::vector<double> mid = {300.125, kNone, 301.5, 302.0,
                                   kNone,   300.5, 300.5};
  const std::vector<double> last = {300.5, 302.0, 298.0, 298.0,
                                    305.0, 305.0, 305.0};
  const std::vector<double> fundamental = {300.0, 301.5, 302.0, 303.0,
                                           304.0, 305.0, 306.0};
  const std::vector<int64_t> volumes = {2, 9, 6, 0, 4, 0, 0};
  const std::vector<int64_t> n_buy = {3, 1, 3, 1, 1, 1, 0};
  const std::vector<int64_t> n_sell = {2, 3, 3, 0, 1, 1, 0};
  // get_vwap(t) for t = 0..6.
  const std::vector<double> vwap = {
      300.5, 0x1.2cd1745d1745dp+8, 0x1.2c1e1e1e1e1e2p+8, 0x1.2c1e1e1e1e1e2p+8,
      0x1.2cc30c30c30c3p+8, 0x1.2cc30c30c30c3p+8, 0x1.2cc30c30c30c3p+8};
  ASSERT_EQ(m.market_prices().size(), 7u);
  ASSERT_EQ(m.mid_prices().size(), 7u);
  ASSERT_EQ(m.executed_volumes().size(), 7u);
  for (int64_t t = 0; t < 7; ++t) {
    SCOPED_TRACE("t=" + std::to_string(t));
    EXPECT_EQ(Bits(m.market_prices()[t]), Bits(market[t]));
    EXPECT_EQ(Bits(m.get_market_price(t)), Bits(market[t]));
    ExpectOptionalBits(m.get_mid_price(t), mid[t], "mid", "");
    EXPECT_EQ(std::isnan(m.mid_prices()[t]), std::isnan(mid[t]));
    ExpectOptionalBits(m.get_last_executed_price(t), last[t], "last", "");
    EXPECT_EQ(Bits(m.last_executed_prices()[t]), Bits(last[t]));
    EXPECT_EQ(m.get_fundamental_price(t), fundamental[t]);
    EXPECT_EQ(m.fundamental_prices()[t], fundamental[t]);
    EXPECT_EQ(m.get_executed_volume(t), volumes[t]);
    EXPECT_EQ(m.executed_volumes()[t], volumes[t]);
    EXPECT_EQ(m.get_n_buy_order(t), n_buy[t]);
    EXPECT_EQ(m.get_n_sell_order(t), n_sell[t]);
    EXPECT_EQ(Bits(m.get_vwap(t)), Bits(vwap[t]));
    EXPECT_FALSE(m.market_price_is_int(t));  // tickSize 0.01 is a float
  }
  (void)o1;
}

TEST(MarketTest, ExecutionNeedsARunningMarket) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  m->update_time(100.0);
  Order buy = Order::Limit({.agent_id = 0,
                            .market_id = 0,
                            .is_buy = true,
                            .price = 101.0,
                            .volume = 1});
  Order sell = Order::Limit({.agent_id = 1,
                             .market_id = 0,
                             .is_buy = false,
                             .price = 100.0,
                             .volume = 1});
  m->add_order(&buy);
  m->add_order(&sell);
  EXPECT_TRUE(m->remain_executable_orders());
  std::vector<ExecutionLog> logs;
  EXPECT_THROW(m->execution(&logs), SimulationError);  // PAMS: AssertionError
  EXPECT_EQ(m->buy_order_book().size(), 1u);           // nothing changed
  m->set_is_running(true);
  m->execution(&logs);
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0].price, 101.0);
  // An integer tick size makes the market price an int, as in PAMS.
  EXPECT_TRUE(m->market_price_is_int(0));
  m->update_time(100.0);
  EXPECT_TRUE(m->market_price_is_int(1));
  // Nothing left to execute: execution() does nothing.
  m->execution(&logs);
  EXPECT_TRUE(logs.empty());
  EXPECT_FALSE(m->remain_executable_orders());
}

// Records what a market reports to its logger, in order.
class RecordingLogger : public Logger {
 public:
  void process_order_log(const OrderLog& log) override {
    events.push_back("order " + std::to_string(log.order_id));
  }
  void process_cancel_log(const CancelLog& log) override {
    events.push_back("cancel " + std::to_string(log.order_id) + " volume " +
                     std::to_string(log.volume));
  }
  void process_execution_log(const ExecutionLog& log) override {
    events.push_back("execution " + std::to_string(log.buy_order_id) + "/" +
                     std::to_string(log.sell_order_id) + " volume " +
                     std::to_string(log.volume));
  }
  void process_expiration_log(const ExpirationLog& log) override {
    events.push_back("expiration " + std::to_string(log.order_id) + " at " +
                     std::to_string(log.time) + " placed " +
                     std::to_string(log.order_time) + " volume " +
                     std::to_string(log.volume) + (log.is_buy ? " buy" : " sell"));
  }
  std::vector<std::string> events;
};

TEST(MarketTest, LogsEveryEventInOrder) {
  RecordingLogger logger;
  Simulator sim(Random(1));
  MarketInit init;
  init.market_id = 0;
  init.simulator = &sim;
  init.name = "m";
  init.logger = &logger;
  Market* m = sim.add_market(std::make_unique<Market>(std::move(init)), "m");
  const Json settings = Json::parse(R"({"tickSize": 1, "marketPrice": 100})");
  m->setup(Settings(settings, "m"));
  m->update_time(100.0);  // t = 0
  m->set_is_running(true);
  Order s1 = Order::Limit({.agent_id = 0,
                           .market_id = 0,
                           .is_buy = false,
                           .price = 105.0,
                           .volume = 1,
                           .ttl = 2});  // expires at t = 3
  Order b1 = Order::Limit({.agent_id = 0,
                           .market_id = 0,
                           .is_buy = true,
                           .price = 95.0,
                           .volume = 4,
                           .ttl = 2});  // partly executed
  Order b2 = Order::Limit({.agent_id = 0,
                           .market_id = 0,
                           .is_buy = true,
                           .price = 94.0,
                           .volume = 1,
                           .ttl = 2});
  Order s2 = Order::Limit({.agent_id = 0,
                           .market_id = 0,
                           .is_buy = false,
                           .price = 106.0,
                           .volume = 1,
                           .ttl = 1});  // expires at t = 2
  for (Order* o : {&s1, &b1, &b2, &s2}) m->add_order(o);
  Order hit = Order::Market(
      {.agent_id = 1, .market_id = 0, .is_buy = false, .volume = 1});
  m->add_order(&hit);
  std::vector<ExecutionLog> logs;
  m->execution(&logs);
  m->cancel_order(Cancel{b2});
  m->update_time(100.0);  // t = 1
  m->update_time(100.0);  // t = 2: s2
  Order b3 = Order::Limit({.agent_id = 0,
                           .market_id = 0,
                           .is_buy = true,
                           .price = 96.0,
                           .volume = 1,
                           .ttl = 1});  // placed at 2, expires 4
  m->add_order(&b3);
  m->update_time(100.0);  // t = 3: b1 (buy book first), then s1
  m->update_time(100.0);  // t = 4: b3
  EXPECT_EQ(logger.events,
            (std::vector<std::string>{
                "order 0", "order 1", "order 2", "order 3", "order 4",
                "execution 1/4 volume 1", "cancel 2 volume 1",
                "expiration 3 at 2 placed 0 volume 1 sell", "order 5",
                "expiration 1 at 3 placed 0 volume 3 buy",
                "expiration 0 at 3 placed 0 volume 1 sell",
                "expiration 5 at 4 placed 2 volume 1 buy"}));
}

TEST(MarketTest, RemainExecutableOrders) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  m->update_time(100.0);
  EXPECT_FALSE(m->remain_executable_orders());  // empty books
  Order s1 = Order::Limit({.agent_id = 0,
                           .market_id = 0,
                           .is_buy = false,
                           .price = 101.0,
                           .volume = 2});
  m->add_order(&s1);
  EXPECT_FALSE(m->remain_executable_orders());  // one side empty
  Order b1 = Order::Limit({.agent_id = 0,
                           .market_id = 0,
                           .is_buy = true,
                           .price = 100.0,
                           .volume = 1});
  m->add_order(&b1);
  EXPECT_FALSE(m->remain_executable_orders());  // prices do not cross
  Order b2 = Order::Market(
      {.agent_id = 0, .market_id = 0, .is_buy = true, .volume = 1});
  m->add_order(&b2);
  EXPECT_TRUE(m->remain_executable_orders());  // a market order on one side
  Order s2 = Order::Market(
      {.agent_id = 0, .market_id = 0, .is_buy = false, .volume = 1});
  m->add_order(&s2);
  // Both best orders are market orders with equal volumes: the limit
  // orders behind them decide (101 > 100: no).
  EXPECT_FALSE(m->remain_executable_orders());
  Order b3 = Order::Limit({.agent_id = 0,
                           .market_id = 0,
                           .is_buy = true,
                           .price = 101.0,
                           .volume = 1});
  m->add_order(&b3);
  EXPECT_TRUE(m->remain_executable_orders());
}

TEST(MarketTest, EqualMarketOrdersNeedCrossingLimits) {
  // PAMS: market orders on both sides with equal volumes and no limit
  // orders: not executable (no price).
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  m->update_time(100.0);
  m->set_is_running(true);
  Order bm = Order::Market(
      {.agent_id = 0, .market_id = 0, .is_buy = true, .volume = 2});
  Order sm = Order::Market(
      {.agent_id = 1, .market_id = 0, .is_buy = false, .volume = 2});
  m->add_order(&bm);
  m->add_order(&sm);
  EXPECT_FALSE(m->remain_executable_orders());
  std::vector<ExecutionLog> logs;
  m->execution(&logs);
  EXPECT_TRUE(logs.empty());
}

TEST(MarketTest, GettersRefuseFutureAndNegativeSteps) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  // Before the first step nothing can be read.
  EXPECT_THROW(m->get_market_price(), SimulationError);
  EXPECT_THROW(m->get_fundamental_price(), SimulationError);
  EXPECT_TRUE(m->market_prices().empty());
  m->update_time(100.0);
  m->update_time(101.0);
  EXPECT_EQ(m->get_time(), 1);
  EXPECT_EQ(m->get_market_price(1), 100.0);
  EXPECT_EQ(m->get_fundamental_price(1), 101.0);
  EXPECT_THROW(m->get_market_price(2), SimulationError);
  EXPECT_THROW(m->get_market_price(-1), SimulationError);
  EXPECT_THROW(m->get_mid_price(2), SimulationError);
  EXPECT_THROW(m->get_last_executed_price(5), SimulationError);
  EXPECT_THROW(m->get_fundamental_price(2), SimulationError);
  EXPECT_THROW(m->get_executed_volume(2), SimulationError);
  EXPECT_THROW(m->get_executed_total_price(-3), SimulationError);
  EXPECT_THROW(m->get_n_buy_order(2), SimulationError);
  EXPECT_THROW(m->get_n_sell_order(-1), SimulationError);
  EXPECT_THROW(m->get_vwap(2), SimulationError);
  EXPECT_THROW(m->market_price_is_int(2), SimulationError);
  try {
    m->get_market_price(7);
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("future"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("m"), std::string::npos);
  }
  // VWAP with nothing executed is NaN (PAMS: float("nan")).
  EXPECT_TRUE(std::isnan(m->get_vwap()));
  EXPECT_EQ(m->get_mid_price(), std::nullopt);
  EXPECT_EQ(m->get_last_executed_price(), std::nullopt);
}

TEST(MarketTest, HistoriesGrowPastTheReservedSteps) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  m->reserve_steps(3);
  m->set_is_running(true);
  for (int t = 0; t < 400; ++t) {
    m->update_time(100.0 + t);
    if (t == 250) {
      Order buy = Order::Limit({.agent_id = 0,
                                .market_id = 0,
                                .is_buy = true,
                                .price = 120.0,
                                .volume = 1});
      Order sell = Order::Limit({.agent_id = 1,
                                 .market_id = 0,
                                 .is_buy = false,
                                 .price = 110.0,
                                 .volume = 1});
      m->add_order(&buy);
      m->add_order(&sell);
      std::vector<ExecutionLog> logs;
      m->execution(&logs);
      ASSERT_EQ(logs.size(), 1u);
    }
  }
  EXPECT_EQ(m->market_prices().size(), 400u);
  EXPECT_EQ(m->get_market_price(250), 120.0);
  EXPECT_EQ(m->get_market_price(399), 120.0);
  EXPECT_EQ(m->get_market_price(249), 100.0);
  EXPECT_EQ(m->get_fundamental_price(399), 499.0);
  EXPECT_EQ(m->get_executed_volume(250), 1);
  EXPECT_EQ(m->get_executed_volume(251), 0);
  EXPECT_EQ(m->get_vwap(399), 120.0);
}

TEST(MarketTest, ChangeFundamentalPriceScalesAndRegenerates) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  b.Step();  // t = 0
  b.Step();  // t = 1
  EXPECT_EQ(m->get_fundamental_price(), 100.0);
  m->change_fundamental_price(0.5);
  EXPECT_EQ(m->get_fundamental_price(), 50.0);
  EXPECT_EQ(b.sim().fundamentals().get_fundamental_price(0, 1), 50.0);
  // Without volatility or drift the path stays at the new price.
  b.Step();
  EXPECT_EQ(m->get_fundamental_price(), 50.0);
  EXPECT_EQ(m->get_fundamental_price(0), 100.0);
}

// PAMS's _set_time: a market jumps to a step, its books expire what ran
// out meanwhile and its prices carry over the last ones known.
TEST(MarketTest, SetTimeJumpsAndCarriesTheLastPrices) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1.0, "marketPrice": 100.0})");
  m->set_is_running(true);
  m->update_time(100.0);
  Order buy = Order::Limit({.agent_id = 0, .market_id = 0, .is_buy = true, .price = 99.0,
                            .volume = 1, .ttl = 3});
  Order sell = Order::Limit({.agent_id = 0, .market_id = 0, .is_buy = false, .price = 101.0,
                             .volume = 1});
  m->add_order(&buy);
  m->add_order(&sell);
  EXPECT_EQ(m->get_mid_price(), 100.0);
  m->set_time(10, 90.0);
  EXPECT_EQ(m->get_time(), 10);
  EXPECT_EQ(m->get_fundamental_price(), 90.0);
  // The buy order's ttl ran out (placed at 0, ttl 3); the mid price of step
  // 0 is carried, and a running market prices at it.
  EXPECT_EQ(m->buy_order_book().size(), 0u);
  EXPECT_EQ(m->sell_order_book().size(), 1u);
  EXPECT_EQ(m->get_mid_price(), 100.0);
  EXPECT_EQ(m->get_market_price(), 100.0);
  EXPECT_FALSE(m->get_mid_price(5).has_value());
  EXPECT_THROW(m->set_time(-1, 1.0), SimulationError);
  // The clock alone: what the skipped steps hold is None.
  m->set_time_only(12);
  EXPECT_EQ(m->get_time(), 12);
  EXPECT_THROW(m->get_market_price(), AssertionFailure);
  EXPECT_THROW(m->get_market_price(13), AssertionFailure);
}

// PAMS's `market.time = t` moves the market's clock only: its books stay at
// their step (PAMS's market then refuses orders, as its book places them
// at the book's step; the Python binding raises its AssertionError).
TEST(MarketTest, SetTimeOnlyLeavesTheBooksAtTheirStep) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1.0, "marketPrice": 100.0})");
  m->update_time(100.0);
  m->set_time_only(7);
  EXPECT_EQ(m->get_time(), 7);
  EXPECT_EQ(m->buy_order_book().time(), 0);
  EXPECT_EQ(m->sell_order_book().time(), 0);
  m->update_time(100.0);
  EXPECT_EQ(m->buy_order_book().time(), 8);
}

// A market before its first step has no histories to write: orders,
// cancels and executions are refused there (the runner never sends any).
TEST(MarketTest, NothingIsPlacedBeforeTheFirstStep) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1.0, "marketPrice": 100.0})");
  Order buy = Order::Limit({.agent_id = 0, .market_id = 0, .is_buy = true, .price = 99.0,
                            .volume = 1});
  EXPECT_THROW(m->add_order(&buy), SimulationError);
  EXPECT_EQ(m->buy_order_book().size(), 0u);
  m->update_time(100.0);
  m->add_order(&buy);
  m->set_time_only(-1);
  Cancel cancel;
  cancel.order = buy;
  EXPECT_THROW(m->cancel_order(cancel), SimulationError);
}

// PAMS's _next_order_id, settable forward: the books key orders by id.
TEST(MarketTest, TheNextOrderIdMovesForwardOnly) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1.0, "marketPrice": 100.0})");
  m->update_time(100.0);
  EXPECT_EQ(m->next_order_id(), 0);
  m->set_next_order_id(10);
  Order buy = Order::Limit({.agent_id = 0, .market_id = 0, .is_buy = true, .price = 99.0,
                            .volume = 1});
  EXPECT_EQ(m->add_order(&buy).order_id, 10);
  EXPECT_EQ(m->next_order_id(), 11);
  EXPECT_THROW(m->set_next_order_id(3), SimulationError);
}

// PAMS's _execute_orders: two resting orders execute at the price given.
TEST(MarketTest, ExecuteOrdersTradesTwoRestingOrders) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 0.5, "marketPrice": 10.0})");
  m->update_time(10.0);
  Order buy = Order::Limit({.agent_id = 0, .market_id = 0, .is_buy = true, .price = 11.0,
                            .volume = 3});
  Order sell = Order::Limit({.agent_id = 1, .market_id = 0, .is_buy = false, .price = 12.0,
                             .volume = 2});
  m->add_order(&buy);
  m->add_order(&sell);
  EXPECT_THROW(m->execute_orders(11.5, 1, buy, sell), SimulationError);  // not running
  m->set_is_running(true);
  EXPECT_THROW(m->execute_orders(11.5, 0, buy, sell), SimulationError);
  EXPECT_THROW(m->execute_orders(11.5, 5, buy, sell), SimulationError);  // too much
  const ExecutionLog log = m->execute_orders(11.5, 2, buy, sell);
  EXPECT_EQ(log.volume, 2);
  EXPECT_EQ(log.price, 11.5);
  EXPECT_EQ(m->get_executed_volume(), 2);
  EXPECT_EQ(m->get_last_executed_price(), 11.5);
  EXPECT_EQ(m->buy_order_book().best_order()->volume, 1);
  EXPECT_TRUE(m->sell_order_book().empty());
}

}  // namespace
}  // namespace pams
