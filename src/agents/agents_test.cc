// Tests for the built-in agents: parameters drawn in setup() and the orders
// of one submit_orders() call, against PAMS.
//
// Reference values: /usr/bin/python3 (CPython 3.11) with PAMS 0.3.0 built
// the same simulation (Simulator(random.Random(1)); markets m0, m1 and the
// index idx driven step by step with _update_time / _add_order /
// _execution as in BuildMarkets below), then created each agent with
// prng=random.Random(seed), called setup(settings, accessible ids) and
// submit_orders(simulator.markets), and drew one more prng.random() to
// check how many numbers the agent used. The printed values are literals
// here (hex floats are float.hex()).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "testing/sim_builder.h"
#include "pams/agents/agent.h"
#include "pams/agents/arbitrage_agent.h"
#include "pams/agents/fcn_agent.h"
#include "pams/agents/market_maker_agent.h"
#include "pams/agents/test_agent.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/market/index_market.h"

namespace pams {
namespace {

using test_support::Bits;
using test_support::SimBuilder;

// The market state every agent sees (step 5).
class AgentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m0_ = b_.AddMarket(
        "m0",
        R"({"tickSize": 0.01, "marketPrice": 300.0, "outstandingShares": 1000})",
        100);
    m1_ = b_.AddMarket(
        "m1",
        R"({"tickSize": 0.01, "marketPrice": 310.0, "outstandingShares": 1000})",
        101);
    idx_ = b_.AddMarket<IndexMarket>(
        "idx", R"({"tickSize": 0.01, "marketPrice": 290.0, "markets": ["m0", "m1"]})",
        102);
    Step(0);
    b_.SetRunning(true);
    Step(1);
    Add(m0_, true, 299.5, 2);
    Add(m0_, false, 301.0, 2);
    Step(2);
    Add(m0_, false, 299.0, 1);
    Step(3);
    Add(m1_, true, 305.0, 1);
    Add(m1_, false, 306.0, 1);
    Add(m1_, false, 304.0, 1);
    Step(4);
    Add(m0_, true, 300.0, 3);
    Add(m0_, false, std::nullopt, 2);
    Step(5);
    Add(idx_, true, 280.0, 1);
    Add(idx_, false, 285.0, 1);
  }

  void Step(int t) {
    m0_->update_time(300.0 + t);
    m1_->update_time(310.0 - 2 * t);
    idx_->update_time(idx_->compute_fundamental_index(t));
  }
  void Add(Market* m, bool is_buy, std::optional<double> price, int64_t vol) {
    Order o = price ? Order::Limit({.agent_id = 0,
                                    .market_id = m->market_id(),
                                    .is_buy = is_buy,
                                    .price = *price,
                                    .volume = vol})
                    : Order::Market({.agent_id = 0,
                                     .market_id = m->market_id(),
                                     .is_buy = is_buy,
                                     .volume = vol});
    m->add_order(&o);
    std::vector<ExecutionLog> logs;
    if (m->is_running()) m->execution(&logs);
  }

  std::vector<Order> Submit(Agent* agent) {
    std::vector<Action> actions;
    agent->submit_orders(b_.sim().markets(), &actions);
    std::vector<Order> orders;
    for (const Action& a : actions) {
      EXPECT_TRUE(std::holds_alternative<Order>(a));
      if (std::holds_alternative<Order>(a)) orders.push_back(std::get<Order>(a));
    }
    return orders;
  }

  struct WantOrder {
    int market_id;
    bool is_buy;
    double price;
    int64_t volume;
    int64_t ttl;
  };
  void ExpectOrders(const Agent& agent, const std::vector<Order>& got,
                    const std::vector<WantOrder>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      SCOPED_TRACE("order " + std::to_string(i));
      EXPECT_EQ(got[i].agent_id, agent.agent_id());
      EXPECT_EQ(got[i].market_id, want[i].market_id);
      EXPECT_EQ(got[i].is_buy, want[i].is_buy);
      EXPECT_EQ(got[i].kind, OrderKind::kLimit);
      ASSERT_TRUE(got[i].price.has_value());
      EXPECT_EQ(Bits(*got[i].price), Bits(want[i].price)) << *got[i].price;
      EXPECT_EQ(got[i].volume, want[i].volume);
      EXPECT_EQ(got[i].ttl, want[i].ttl);
      EXPECT_EQ(got[i].order_id, -1);
      EXPECT_EQ(got[i].placed_at, -1);
    }
  }

  SimBuilder b_;
  Market* m0_ = nullptr;
  Market* m1_ = nullptr;
  IndexMarket* idx_ = nullptr;
};

// Agent settings shared with the Python run.
const char* kFcnSettings = R"({
  "cashAmount": [9000, 11000], "assetVolume": [40, 60],
  "fundamentalWeight": {"expon": [1.0]}, "chartWeight": {"expon": [0.5]},
  "noiseWeight": {"uniform": [0.5, 1.5]}, "noiseScale": 0.001,
  "timeWindowSize": [100, 200], "orderMargin": [0.0, 0.1],
  "meanReversionTime": {"uniform": [50, 100]}})";

const char* kFcnNormalSettings = R"({
  "cashAmount": [9000, 11000], "assetVolume": [40, 60],
  "fundamentalWeight": 1.0, "chartWeight": {"normal": [2.0, 0.1]},
  "noiseWeight": {"expon": [1.0]}, "noiseScale": 0.01,
  "timeWindowSize": {"const": [3.7]}, "orderMargin": {"uniform": [1.0, 2.0]},
  "marginType": "normal"})";

const char* kMarketShareSettings = R"({
  "cashAmount": [9000, 11000], "assetVolume": [40, 60],
  "fundamentalWeight": {"expon": [1.0]}, "chartWeight": {"expon": [0.5]},
  "noiseWeight": {"uniform": [0.5, 1.5]}, "noiseScale": 0.001,
  "timeWindowSize": [2, 4], "orderMargin": [0.0, 0.1],
  "meanReversionTime": {"uniform": [50, 100]}})";

TEST_F(AgentsTest, MarketStateMatchesPams) {
  // PAMS's histories at step 5 for the state the agents see.
  const double m0_prices[] = {300.0, 300.25, 299.5, 299.5, 300.0, 300.0};
  const double m1_prices[] = {310.0, 310.0, 310.0, 305.0, 305.0, 305.0};
  const double idx_prices[] = {290.0, 290.0, 290.0, 290.0, 290.0, 282.5};
  const double idx_fundamental[] = {305.0, 304.5, 304.0, 303.5, 303.0, 302.5};
  const int64_t m0_volumes[] = {0, 0, 1, 0, 2, 0};
  for (int t = 0; t <= 5; ++t) {
    EXPECT_EQ(m0_->get_market_price(t), m0_prices[t]) << t;
    EXPECT_EQ(m1_->get_market_price(t), m1_prices[t]) << t;
    EXPECT_EQ(idx_->get_market_price(t), idx_prices[t]) << t;
    EXPECT_EQ(idx_->get_fundamental_price(t), idx_fundamental[t]) << t;
    EXPECT_EQ(m0_->get_executed_volume(t), m0_volumes[t]) << t;
  }
  EXPECT_EQ(m0_->get_best_buy_price(), 300.0);
  EXPECT_EQ(m0_->get_best_sell_price(), 301.0);
  EXPECT_EQ(m1_->get_best_buy_price(), std::nullopt);
  EXPECT_EQ(m1_->get_best_sell_price(), 306.0);
}

TEST_F(AgentsTest, FcnAgentFixedMargin) {
  auto* a = b_.AddAgent<FCNAgent>("fcn", kFcnSettings, 11, {0, 1}, "FCNAgent");
  EXPECT_EQ(Bits(a->cash_amount()), Bits(0x1.358612a6b37c1p+13));
  EXPECT_EQ(a->get_asset_volume(0), 51);
  EXPECT_EQ(a->get_asset_volume(1), 58);
  EXPECT_FALSE(a->is_market_accessible(2));
  EXPECT_EQ(a->accessible_market_ids(), (std::vector<int>{0, 1}));
  EXPECT_EQ(Bits(a->fundamental_weight()), Bits(0x1.87550ff845c2ep-1));
  EXPECT_EQ(Bits(a->chart_weight()), Bits(0x1.5aec98989e851p-2));
  EXPECT_EQ(Bits(a->noise_weight()), Bits(0x1.165eda2613ad6p+0));
  EXPECT_EQ(Bits(a->noise_scale()), Bits(0x1.0624dd2f1a9fcp-10));
  EXPECT_EQ(a->time_window_size(), 118);
  EXPECT_EQ(Bits(a->order_margin()), Bits(0x1.a35b05ca5172ap-5));
  EXPECT_EQ(a->margin_type(), FCNAgent::MarginType::kFixed);
  EXPECT_EQ(a->mean_reversion_time(), 81);
  EXPECT_TRUE(a->is_chart_following());
  EXPECT_FALSE(a->is_high_frequency());
  ExpectOrders(*a, Submit(a),
               {{0, true, 0x1.210bb2c5f2f99p+8, 1, 118},     // 289.04569661314014
                {1, false, 0x1.242ec985e4878p+8, 1, 118}});  // 292.18276249722794
  EXPECT_EQ(Bits(a->prng().random()), Bits(0x1.36aed2122657cp-2));
}

TEST_F(AgentsTest, FcnAgentNormalMargin) {
  auto* a = b_.AddAgent<FCNAgent>("fcn_normal", kFcnNormalSettings, 12, {0},
                                  "FCNAgent");
  EXPECT_EQ(Bits(a->cash_amount()), Bits(0x1.36e9217ff9fd7p+13));
  EXPECT_EQ(a->get_asset_volume(0), 53);
  EXPECT_EQ(a->fundamental_weight(), 1.0);
  EXPECT_EQ(Bits(a->chart_weight()), Bits(0x1.f8e143700df1fp+0));
  EXPECT_EQ(Bits(a->noise_weight()), Bits(0x1.2172bd6749aefp+2));
  EXPECT_EQ(Bits(a->noise_scale()), Bits(0x1.47ae147ae147bp-7));
  EXPECT_EQ(a->time_window_size(), 3);  // int(3.7)
  EXPECT_EQ(Bits(a->order_margin()), Bits(0x1.5fefe90f70f54p+0));
  EXPECT_EQ(a->margin_type(), FCNAgent::MarginType::kNormal);
  EXPECT_EQ(a->mean_reversion_time(), 3);  // defaults to timeWindowSize
  ExpectOrders(*a, Submit(a),
               {{0, false, 0x1.29d09d0c5b6c0p+8, 1, 3}});  // 297.81489636642436
  EXPECT_EQ(Bits(a->prng().random()), Bits(0x1.61955c37516bcp-1));
}

TEST_F(AgentsTest, MarketShareFcnAgent) {
  auto* a = b_.AddAgent<MarketShareFCNAgent>("msfcn", kMarketShareSettings, 13,
                                             {0, 1}, "MarketShareFCNAgent");
  EXPECT_EQ(Bits(a->cash_amount()), Bits(0x1.297022c83583fp+13));
  EXPECT_EQ(a->get_asset_volume(0), 53);
  EXPECT_EQ(a->get_asset_volume(1), 53);
  EXPECT_EQ(Bits(a->fundamental_weight()), Bits(0x1.4e7058acc9d03p-3));
  EXPECT_EQ(Bits(a->chart_weight()), Bits(0x1.aef95fb0bf028p-1));
  EXPECT_EQ(Bits(a->noise_weight()), Bits(0x1.760bc72aa2c8cp-1));
  EXPECT_EQ(a->time_window_size(), 2);
  EXPECT_EQ(Bits(a->order_margin()), Bits(0x1.70e82e1cde370p-6));
  EXPECT_EQ(a->mean_reversion_time(), 86);
  // Executed volume over steps max(0, 5 - 2)..5.
  EXPECT_EQ(a->get_sum_trade_volume(*m0_), 2);
  EXPECT_EQ(a->get_sum_trade_volume(*m1_), 1);
  ExpectOrders(*a, Submit(a),
               {{0, true, 0x1.2553325bb5e77p+8, 1, 2}});  // 293.32498715582864
  EXPECT_EQ(Bits(a->prng().random()), Bits(0x1.2dba8003d62fep-2));
}

TEST_F(AgentsTest, MarketShareFcnAgentListsMarketsInSimulatorOrder) {
  // Accessible ids given as [1, 0]: volumes are drawn in that order, the
  // candidates are taken in the simulator's market order.
  auto* a = b_.AddAgent<MarketShareFCNAgent>("msfcn2", kMarketShareSettings, 17,
                                             {1, 0}, "MarketShareFCNAgent");
  EXPECT_EQ(Bits(a->cash_amount()), Bits(0x1.39dfbe181c560p+13));
  EXPECT_EQ(a->get_asset_volume(1), 56);
  EXPECT_EQ(a->get_asset_volume(0), 59);
  EXPECT_EQ(a->accessible_market_ids(), (std::vector<int>{1, 0}));
  EXPECT_EQ(Bits(a->fundamental_weight()), Bits(0x1.3d3a0c4886c37p+0));
  EXPECT_EQ(Bits(a->chart_weight()), Bits(0x1.10d3c69fce870p-3));
  EXPECT_EQ(Bits(a->noise_weight()), Bits(0x1.3447c0d14932ep+0));
  EXPECT_EQ(a->time_window_size(), 3);
  EXPECT_EQ(Bits(a->order_margin()), Bits(0x1.68fa9fde34847p-7));
  EXPECT_EQ(a->mean_reversion_time(), 51);
  ExpectOrders(*a, Submit(a),
               {{0, true, 0x1.28da31b549e23p+8, 1, 3}});  // 296.8523209863071
  EXPECT_EQ(Bits(a->prng().random()), Bits(0x1.00d210b35a185p-1));
}

TEST_F(AgentsTest, ArbitrageAgent) {
  auto* a = b_.AddAgent<ArbitrageAgent>(
      "arb", R"({"cashAmount": [9000, 11000], "assetVolume": [40, 60],
                 "orderVolume": 2, "orderThresholdPrice": 1.0,
                 "orderTimeLength": 3})",
      14, {0, 1, 2}, "ArbitrageAgent");
  EXPECT_TRUE(a->is_high_frequency());
  EXPECT_EQ(Bits(a->cash_amount()), Bits(0x1.1fed41b0bfc1dp+13));
  EXPECT_EQ(a->get_asset_volume(0), 54);
  EXPECT_EQ(a->get_asset_volume(1), 53);
  EXPECT_EQ(a->get_asset_volume(2), 58);
  EXPECT_EQ(a->order_volume(), 2);
  EXPECT_EQ(a->order_threshold_price(), 1.0);
  EXPECT_EQ(a->order_time_length(), 3);
  // Index 282.5 against components (300 + 305) / 2: buy the index, sell
  // the components.
  EXPECT_EQ(idx_->get_index(), 302.5);
  ExpectOrders(*a, Submit(a),
               {{2, true, 282.5, 4, 3}, {0, false, 300.0, 2, 3},
                {1, false, 305.0, 2, 3}});
  EXPECT_EQ(Bits(a->prng().random()), Bits(0x1.159f3ade18cccp-2));
}

TEST_F(AgentsTest, ArbitrageAgentDefaultsAndThreshold) {
  auto* a = b_.AddAgent<ArbitrageAgent>(
      "arb", R"({"cashAmount": 0, "assetVolume": 0, "orderVolume": 1,
                 "orderThresholdPrice": 25.0})",
      14, {0, 1, 2}, "ArbitrageAgent");
  EXPECT_EQ(a->order_time_length(), 1);
  // |302.5 - 282.5| = 20 is not above the threshold: no orders.
  EXPECT_TRUE(Submit(a).empty());
  // Not running: no orders either.
  auto* c = b_.AddAgent<ArbitrageAgent>(
      "arb2", R"({"cashAmount": 0, "assetVolume": 0, "orderVolume": 1,
                  "orderThresholdPrice": 1.0})",
      14, {0, 1, 2}, "ArbitrageAgent");
  m1_->set_is_running(false);
  EXPECT_TRUE(Submit(c).empty());
}

TEST_F(AgentsTest, MarketMakerAgent) {
  auto* a = b_.AddAgent<MarketMakerAgent>(
      "mm", R"({"cashAmount": [9000, 11000], "assetVolume": [40, 60],
                "targetMarket": "m0",
                "netInterestSpread": {"uniform": [0.01, 0.03]},
                "orderTimeLength": [2, 5]})",
      15, {0, 1}, "MarketMakerAgent");
  EXPECT_TRUE(a->is_high_frequency());
  EXPECT_EQ(Bits(a->cash_amount()), Bits(0x1.5593dfcfd1f5fp+13));
  EXPECT_EQ(a->get_asset_volume(0), 40);
  EXPECT_EQ(a->get_asset_volume(1), 54);
  EXPECT_EQ(a->target_market_id(), 0);
  EXPECT_EQ(Bits(a->net_interest_spread()), Bits(0x1.af3c375508ba5p-7));
  EXPECT_EQ(a->order_time_length(), 4);
  // (max best buy 300 + min best sell 301) / 2 over m0 and m1.
  EXPECT_EQ(a->get_base_price(b_.sim().markets()), 300.5);
  ExpectOrders(*a, Submit(a),
               {{0, true, 0x1.2a7e394213b0ap+8, 1, 4},     // 298.49306118946754
                {0, false, 0x1.2e81c6bdec4f6p+8, 1, 4}});  // 302.50693881053246
  EXPECT_EQ(Bits(a->prng().random()), Bits(0x1.1492987088b00p-6));
}

TEST_F(AgentsTest, MarketMakerWithoutQuotesUsesTheMarketPrice) {
  auto* a = b_.AddAgent<MarketMakerAgent>(
      "mm", R"({"cashAmount": 0, "assetVolume": 0, "targetMarket": "m1",
                "netInterestSpread": 0.02})",
      15, {1}, "MarketMakerAgent");
  EXPECT_EQ(a->order_time_length(), 2);
  // m1 has no buy orders: no base price, the market price 305 is used;
  // margin = fundamental 300 * 0.02 * 0.5 = 3.
  EXPECT_EQ(a->get_base_price(b_.sim().markets()), std::nullopt);
  ExpectOrders(*a, Submit(a), {{1, true, 302.0, 1, 2}, {1, false, 308.0, 1, 2}});
}

TEST_F(AgentsTest, TestAgent) {
  auto* a = b_.AddAgent<TestAgent>(
      "test", R"({"cashAmount": [9000, 11000], "assetVolume": [40, 60]})", 16,
      {0, 2}, "TestAgent");
  EXPECT_EQ(Bits(a->cash_amount()), Bits(0x1.2fd85d493a71fp+13));
  EXPECT_EQ(a->get_asset_volume(0), 49);
  EXPECT_EQ(a->get_asset_volume(2), 48);
  ExpectOrders(*a, Submit(a),
               {{0, false, 0x1.2aef684a03bf1p+8, 53, 85},   // 298.9351850756785
                {2, true, 0x1.1541d61c1665cp+8, 29, 2}});  // 277.25717330500424
  EXPECT_EQ(Bits(a->prng().random()), Bits(0x1.a13c091571ad8p-1));
}

// --- Agent base class ---

TEST_F(AgentsTest, AssetAndCashAccessors) {
  auto* a = b_.AddAgent<TestAgent>(
      "t", R"({"cashAmount": 100.5, "assetVolume": 7})", 1, {1}, "TestAgent");
  EXPECT_EQ(a->cash_amount(), 100.5);
  EXPECT_EQ(a->get_cash_amount(), 100.5);
  a->update_cash_amount(-0.5);
  EXPECT_EQ(a->cash_amount(), 100.0);
  a->set_cash_amount(3.0);
  EXPECT_EQ(a->cash_amount(), 3.0);
  EXPECT_EQ(a->get_asset_volume(1), 7);
  a->update_asset_volume(1, -10);
  EXPECT_EQ(a->get_asset_volume(1), -3);
  a->set_asset_volume(1, 4);
  EXPECT_EQ(a->get_asset_volume(1), 4);
  EXPECT_THROW(a->get_asset_volume(0), SimulationError);
  EXPECT_THROW(a->set_asset_volume(0, 1), SimulationError);
  EXPECT_THROW(a->update_asset_volume(5, 1), SimulationError);
  EXPECT_THROW(a->set_market_accessible(1), SimulationError);  // already
  EXPECT_THROW(a->set_market_accessible(-1), SimulationError);
  a->set_market_accessible(4);
  EXPECT_TRUE(a->is_market_accessible(4));
  EXPECT_EQ(a->get_asset_volume(4), 0);
  EXPECT_FALSE(a->is_market_accessible(3));
  EXPECT_FALSE(a->is_market_accessible(-1));
  EXPECT_EQ(a->accessible_market_ids(), (std::vector<int>{1, 4}));
}

TEST_F(AgentsTest, SetupErrorsNameTheKey) {
  struct Case {
    const char* json;
    const char* path;
  } cases[] = {
      {R"({"assetVolume": 1})", "A.cashAmount"},
      {R"({"cashAmount": 1})", "A.assetVolume"},
      {R"({"cashAmount": "x", "assetVolume": 1})", "A.cashAmount"},
      {R"({"cashAmount": 1, "assetVolume": {"expon": []}})", "A.assetVolume"},
      {R"({"cashAmount": 1, "assetVolume": 1e300})", "A.assetVolume"},
  };
  for (const auto& c : cases) {
    SimBuilder b;
    b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
    try {
      b.AddAgent<TestAgent>("a", c.json, 1, {0}, "TestAgent", "A");
      ADD_FAILURE() << "accepted " << c.json;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.path(), c.path) << c.json << ": " << e.what();
    }
  }
}

TEST_F(AgentsTest, FcnSetupErrorsNameTheKey) {
  struct Case {
    const char* key;
    const char* value;
  } cases[] = {
      {"fundamentalWeight", R"("x")"},
      {"timeWindowSize", R"({"normal": [1]})"},
      {"marginType", R"("wide")"},
      {"marginType", "1"},
      {"meanReversionTime", "[1]"},
  };
  for (const auto& c : cases) {
    SimBuilder b;
    b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
    Json settings = Json::parse(kFcnSettings);
    settings[c.key] = Json::parse(c.value);
    try {
      b.AddAgent<FCNAgent>("a", settings.dump(), 1, {0}, "FCNAgent", "F");
      ADD_FAILURE() << "accepted " << c.key << " = " << c.value;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.path(), std::string("F.") + c.key) << e.what();
    }
  }
}

}  // namespace
}  // namespace pams
