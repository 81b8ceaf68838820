// The classes of the samples of PAMS's development branch: DarkPoolMarket's
// matching (prices at the lit mid, rounding in favour of the earlier order,
// partial fills, cancels outside execution), the agents' rules
// (DarkPoolFCNAgent, InvestDivFCNAgent, CancelFCNAgent, both
// WorkloadFCNAgents) and the option pricers.
//
// Reference values: worked out by hand in the comments, or drawn by CPython
// (random.Random with a str seed; a Monte Carlo loop written for this test
// in /usr/bin/python3, CPython 3.11: the hex literals are its float.hex()).

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pams/agents/fcn_agent.h"
#include "pams/config/json.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"
#include "pams/samples/black_scholes.h"
#include "pams/samples/black_scholes_workload_fcn_agent.h"
#include "pams/samples/cancel_fcn_agent.h"
#include "pams/samples/dark_pool_fcn_agent.h"
#include "pams/samples/dark_pool_market.h"
#include "pams/samples/invest_div_fcn_agent.h"
#include "pams/samples/workload_fcn_agent.h"
#include "pams/simulator/simulator.h"
#include "testing/catch_config_error.h"
#include "testing/sim_builder.h"

namespace pams {
namespace {

using test_support::Bits;
using test_support::CatchConfigError;
using test_support::SimBuilder;

Order Limit(int agent, int market, bool is_buy, double price, int64_t volume) {
  return Order::Limit(
      {.agent_id = agent, .market_id = market, .is_buy = is_buy, .price = price, .volume = volume});
}
Order MarketOrder(int agent, int market, bool is_buy, int64_t volume) {
  return Order::Market({.agent_id = agent, .market_id = market, .is_buy = is_buy, .volume = volume});
}

// --- DarkPoolMarket ---

struct DarkPoolSetup {
  SimBuilder b;
  Market* lit;
  DarkPoolMarket* pool;
  DarkPoolSetup() {
    lit = b.AddMarket("Lit", R"({"tickSize": 1, "marketPrice": 100})");
    pool = b.AddMarket<DarkPoolMarket>(
        "Pool", R"({"tickSize": 1, "marketPrice": 100, "markets": ["Lit"]})");
  }
};

TEST(DarkPoolMarketTest, MatchesAtTheLitMidRoundedForTheEarlierOrder) {
  DarkPoolSetup s;
  s.b.SetRunning(true);
  s.b.Step();
  // Lit book 99 / 100: mid 99.5, which is off the tick of 1.
  Order lb = Limit(0, 0, true, 99, 1), ls = Limit(0, 0, false, 100, 1);
  s.lit->add_order(&lb);
  s.lit->add_order(&ls);
  EXPECT_EQ(s.pool->get_lit_mid_price(), 99.5);
  // An earlier buy of 3, then sells of 1 and 1: rounded down (99, as a buy
  // price) for the earlier buyer; partial fills leave the buy with 1.
  Order buy = MarketOrder(1, 1, true, 3);
  Order sell1 = MarketOrder(2, 1, false, 1);
  Order sell2 = MarketOrder(3, 1, false, 1);
  std::vector<ExecutionLog> logs;
  s.pool->add_order(&buy);
  s.pool->execution(&logs);
  EXPECT_TRUE(logs.empty());
  s.pool->add_order(&sell1);
  s.pool->execution(&logs);
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0].price, 99.0);
  EXPECT_EQ(logs[0].volume, 1);
  s.pool->add_order(&sell2);
  s.pool->execution(&logs);
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0].price, 99.0);
  EXPECT_EQ(s.pool->buy_order_book().best_order()->volume, 1);
  // An earlier sell and a later buy: rounded up (100) for the seller.
  Order sell3 = MarketOrder(2, 1, false, 2);
  s.pool->add_order(&sell3);
  s.pool->execution(&logs);  // the resting buy (earlier) takes 1 at 99
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0].price, 99.0);
  Order buy2 = MarketOrder(4, 1, true, 1);
  s.pool->add_order(&buy2);
  s.pool->execution(&logs);
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0].price, 100.0);
  EXPECT_EQ(s.pool->get_executed_volume(), 4);
  EXPECT_EQ(s.pool->get_market_price(), 100.0);  // its last execution
}

TEST(DarkPoolMarketTest, UsesTheLitMarketPriceWhenALitSideIsEmpty) {
  DarkPoolSetup s;
  s.b.SetRunning(true);
  s.b.Step();
  Order lb = Limit(0, 0, true, 97, 1);
  s.lit->add_order(&lb);
  EXPECT_EQ(s.pool->get_lit_mid_price(), 100.0);  // the lit market price
}

TEST(DarkPoolMarketTest, RefusesLimitOrdersAndCancelsWhenNotRunning) {
  DarkPoolSetup s;
  s.b.Step();  // not running
  Order limit = Limit(0, 1, true, 100, 1);
  EXPECT_THROW(s.pool->add_order(&limit), SimulationError);
  Order buy = MarketOrder(0, 1, true, 2);
  const OrderLog log = s.pool->add_order(&buy);
  EXPECT_EQ(log.order_id, 0);
  EXPECT_TRUE(s.pool->buy_order_book().empty());  // canceled at once
  EXPECT_EQ(s.pool->get_n_buy_order(), 1);        // but counted, as PAMS
}

TEST(DarkPoolMarketTest, SetupNamesBadLitMarkets) {
  for (const char* bad : {R"({"tickSize": 1, "marketPrice": 100})",
                          R"({"tickSize": 1, "marketPrice": 100, "markets": ["Lit", "Lit"]})",
                          R"({"tickSize": 1, "marketPrice": 100, "markets": ["Nope"]})",
                          R"({"tickSize": 1, "marketPrice": 100, "markets": "Lit"})"}) {
    SimBuilder b;
    b.AddMarket("Lit", R"({"tickSize": 1, "marketPrice": 100})");
    const ConfigError e = CatchConfigError(
        [&] { b.AddMarket<DarkPoolMarket>("Pool", bad, 0, 0, 0, "", "Pool"); });
    EXPECT_EQ(e.path().rfind("Pool.markets", 0), 0u) << bad << ": " << e.what();
  }
  SimBuilder b;
  b.AddMarket("Lit", R"({"tickSize": 1, "marketPrice": 100})");
  b.AddMarket<DarkPoolMarket>("Pool", R"({"tickSize": 1, "marketPrice": 100, "markets": ["Lit"]})");
  const ConfigError e = CatchConfigError([&] {
    b.AddMarket<DarkPoolMarket>("Pool2", R"({"tickSize": 1, "marketPrice": 100, "markets": ["Pool"]})",
                                0, 0, 0, "", "Pool2");
  });
  EXPECT_NE(e.message().find("must not be a dark pool"), std::string::npos) << e.what();
}

// --- Agents, on markets built by hand ---

constexpr const char* kFcn =
    R"("cashAmount": 10000, "assetVolume": 50, "fundamentalWeight": 1.0,
       "chartWeight": 0.0, "noiseWeight": 1.0, "noiseScale": 0.001,
       "timeWindowSize": 100, "orderMargin": 0.05)";

std::string Fcn(const std::string& extra) {
  return std::string("{") + kFcn + (extra.empty() ? "" : ", " + extra) + "}";
}

TEST(DarkPoolFcnAgentTest, SendsOrdersToThePoolWithTheChance) {
  for (double chance : {0.0, 1.0}) {
    DarkPoolSetup s;
    s.b.Step();
    auto* agent = s.b.AddAgent<DarkPoolFCNAgent>(
        "a", Fcn("\"darkPoolChance\": " + std::to_string(chance)), 5, {0, 1});
    // An FCNAgent with the same draws, asked about the lit market.
    auto* fcn = s.b.AddAgent<FCNAgent>("f", Fcn(""), 5, {0, 1});
    std::vector<Action> orders, expected;
    agent->submit_orders(s.b.sim().markets(), &orders);
    fcn->submit_orders_by_market(*s.lit, &expected);
    ASSERT_EQ(orders.size(), 1u);
    ASSERT_EQ(expected.size(), 1u);
    const Order& o = std::get<Order>(orders[0]);
    const Order& e = std::get<Order>(expected[0]);
    EXPECT_EQ(o.is_buy, e.is_buy);
    if (chance == 1.0) {
      EXPECT_EQ(o.market_id, 1);
      EXPECT_EQ(o.kind, OrderKind::kMarket);
      EXPECT_FALSE(o.price.has_value());
      EXPECT_EQ(o.ttl, e.ttl);
    } else {
      EXPECT_EQ(o.market_id, 0);
      EXPECT_EQ(Bits(*o.price), Bits(*e.price));
    }
  }
  DarkPoolSetup s;
  const ConfigError e = CatchConfigError(
      [&] { s.b.AddAgent<DarkPoolFCNAgent>("a", Fcn("\"darkPoolChance\": 1.5"), 5, {0, 1}); });
  EXPECT_EQ(e.path(), "a.darkPoolChance");
}

TEST(CancelFcnAgentTest, CancelsEachOrderWithTheRate) {
  for (double rate : {0.0, 1.0}) {
    SimBuilder b;
    b.AddMarket("m", R"({"tickSize": 0.01, "marketPrice": 100})");
    b.Step();
    auto* agent =
        b.AddAgent<CancelFCNAgent>("a", Fcn("\"cancelRate\": " + std::to_string(rate)), 3, {0});
    std::vector<Action> orders;
    agent->submit_orders(b.sim().markets(), &orders);
    ASSERT_EQ(orders.size(), rate == 1.0 ? 2u : 1u);
    if (rate == 1.0) {
      // The cancel names the order of this same result.
      const Cancel& c = std::get<Cancel>(orders[1]);
      EXPECT_EQ(c.same_batch_order, 0);
      EXPECT_EQ(c.market_id(), 0);
    }
  }
  SimBuilder b;
  b.AddMarket("m", R"({"tickSize": 0.01, "marketPrice": 100})");
  EXPECT_EQ(b.AddAgent<CancelFCNAgent>("a", Fcn(""), 3, {0})->cancel_rate(), 0.3);
  const ConfigError e =
      CatchConfigError([&] { b.AddAgent<CancelFCNAgent>("c", Fcn("\"cancelRate\": -0.1"), 3, {0}); });
  EXPECT_EQ(e.path(), "c.cancelRate");
}

TEST(InvestDivFcnAgentTest, LeverageAndDiversityRules) {
  // Two markets at 100; cash 10000, 50 units each: net asset value
  // 10000 + 5000 + 5000 = 20000, total absolute value 10000.
  auto make = [](const std::string& ratios, SimBuilder* b) {
    b->AddMarket("m0", R"({"tickSize": 0.01, "marketPrice": 100})");
    b->AddMarket("m1", R"({"tickSize": 0.01, "marketPrice": 100})");
    b->Step();
    return b->AddAgent<InvestDivFCNAgent>("a", Fcn(ratios), 3, {0, 1});
  };
  {
    // leverage 0.4: 10000 > 0.4 * 20000, no orders.
    SimBuilder b;
    auto* a = make("\"leverageRatio\": 0.4, \"diversityRatio\": 1.0", &b);
    EXPECT_EQ(a->get_asset_value(b.sim().market(0)), 5000.0);
    std::vector<Action> orders;
    a->submit_orders(b.sim().markets(), &orders);
    EXPECT_TRUE(orders.empty());
  }
  {
    // leverage 1: allowed; diversity 0.5: 5000 <= 10000, FCN's orders kept.
    SimBuilder b;
    auto* a = make("\"leverageRatio\": 1.0, \"diversityRatio\": 0.5", &b);
    std::vector<Action> orders;
    a->submit_orders(b.sim().markets(), &orders);
    ASSERT_EQ(orders.size(), 2u);
    EXPECT_EQ(std::get<Order>(orders[0]).kind, OrderKind::kLimit);
  }
  {
    // diversity 0.2: 5000 > 4000, each order replaced by a market order
    // selling 1 (a long position), placed only where it can execute: the
    // markets do not run, so none.
    SimBuilder b;
    auto* a = make("\"leverageRatio\": 1.0, \"diversityRatio\": 0.2", &b);
    std::vector<Action> orders;
    a->submit_orders(b.sim().markets(), &orders);
    EXPECT_TRUE(orders.empty());
    // Running, with a buy order resting in market 1 only.
    b.SetRunning(true);
    Order resting = Limit(0, 1, true, 99, 1);
    b.sim().market(1).add_order(&resting);
    a->submit_orders(b.sim().markets(), &orders);
    ASSERT_EQ(orders.size(), 1u);
    const Order& o = std::get<Order>(orders[0]);
    EXPECT_EQ(o.market_id, 1);
    EXPECT_EQ(o.kind, OrderKind::kMarket);
    EXPECT_FALSE(o.is_buy);
    EXPECT_EQ(o.volume, 1);
    EXPECT_EQ(o.ttl, 10);
  }
  SimBuilder b;
  b.AddMarket("m0", R"({"tickSize": 0.01, "marketPrice": 100})");
  ConfigError e = CatchConfigError([&] { b.AddAgent<InvestDivFCNAgent>("a", Fcn(""), 3, {0}); });
  EXPECT_EQ(e.path(), "a.leverageRatio");
  e = CatchConfigError([&] {
    b.AddAgent<InvestDivFCNAgent>("b", Fcn("\"leverageRatio\": \"1\", \"diversityRatio\": 1"), 3,
                                  {0});
  });
  EXPECT_EQ(e.path(), "b.leverageRatio");
}

// --- The option pricers and the workload agents ---

TEST(BlackScholesTest, TheFormulaAndTheMonteCarlo) {
  Random prng(42);
  BlackScholes bs(&prng, 100, 100, 0.1, 0.3, 3);
  // plhamJ's BlackScholes.main prints 33.6044837628.
  EXPECT_NEAR(bs.theoretical_price(), 33.6044837628, 1e-9);
  // CPython: the Euler loop on random.Random(42), 3 paths of 4 steps,
  // exp(-0.3) * (total / 3).
  EXPECT_EQ(Bits(bs.compute(3, 4)), Bits(0x1.ccb697a5705c6p+4));
  // It drew one gauss() per step of each path.
  Random again(42);
  for (int i = 0; i < 12; ++i) again.gauss(0, 1);
  EXPECT_EQ(prng.getstate(), again.getstate());
  // Without volatility: 100 (1 + 0.1 dt)^n - 100, discounted.
  Random quiet(1);
  BlackScholes flat(&quiet, 100, 100, 0.1, 0.0, 3);
  const double grown = 100 * std::pow(1 + 0.1 * (3.0 / 10), 10);
  EXPECT_NEAR(flat.compute(3, 10), std::exp(-0.3) * (grown - 100), 1e-9);
  EXPECT_THROW(bs.compute(0, 1), std::invalid_argument);
  EXPECT_THROW(bs.compute(1, 0), std::invalid_argument);
}

TEST(WorkloadTest, StringSeedsAreCPythons) {
  // CPython: random.Random("0:1:2").random() twice.
  Random r = RandomFromStringSeed("0:1:2");
  EXPECT_EQ(Bits(r.random()), Bits(0x1.7bae7ffd33f38p-1));
  EXPECT_EQ(Bits(r.random()), Bits(0x1.e8969c1c6c180p-6));
  EXPECT_EQ(RandomFromStringSeed("12:3:45").genrand_uint32(), 3293989608u);
  // CPython: the sample's pricer on random.Random("7:0:5"), 10 x 10,
  // exp(-0.3) * total / 10.
  Random w = RandomFromStringSeed("7:0:5");
  EXPECT_EQ(Bits(BlackScholesMonteCarlo(w, 10, 10)), Bits(0x1.a9ba1e20ad76bp+5));
}

TEST(WorkloadTest, ParallelMainAgentComputesWithoutDrawingItsPrng) {
  SimBuilder b;
  b.AddMarket("m", R"({"tickSize": 0.01, "marketPrice": 100})");
  for (int i = 0; i < 6; ++i) b.Step();  // time 5
  auto* a = b.AddAgent<WorkloadFCNAgent>(
      "a", Fcn("\"orderRate\": 1.0, \"bsWorkload\": true, \"bsNumSamples\": 10, \"bsNumSteps\": 10"),
      9, {0});
  auto* f = b.AddAgent<FCNAgent>("f", Fcn("\"orderRate\": 1.0"), 9, {0});
  EXPECT_EQ(Bits(a->compute_workload(b.sim().market(0))),
            Bits(BlackScholesMonteCarlo(*std::make_unique<Random>(RandomFromStringSeed("0:0:5")),
                                        10, 10)));
  // orderRate 1.0: the FCNAgent's orders, the same draws.
  std::vector<Action> orders, expected;
  a->submit_orders(b.sim().markets(), &orders);
  f->submit_orders(b.sim().markets(), &expected);
  ASSERT_EQ(orders.size(), 1u);
  EXPECT_EQ(Bits(*std::get<Order>(orders[0]).price), Bits(*std::get<Order>(expected[0]).price));
  EXPECT_EQ(a->prng().getstate(), f->prng().getstate());
  const ConfigError e = CatchConfigError(
      [&] { b.AddAgent<WorkloadFCNAgent>("c", Fcn("\"bsWorkload\": true"), 9, {0}); });
  EXPECT_EQ(e.path(), "c");
  EXPECT_NE(e.message().find("bsNumSamples is required"), std::string::npos) << e.what();
  const ConfigError shutdown = CatchConfigError(
      [&] { b.AddAgent<WorkloadFCNAgent>("d", Fcn("\"bsLoadShutdown\": 5"), 9, {0}); });
  EXPECT_NE(shutdown.message().find("BlackScholesWorkloadFCNAgent"), std::string::npos);
}

TEST(WorkloadTest, BlackScholesAgentDrawsTheWorkloadFromItsPrng) {
  SimBuilder b;
  b.AddMarket("m", R"({"tickSize": 0.01, "marketPrice": 100})");
  b.Step();
  auto* a = b.AddAgent<BlackScholesWorkloadFCNAgent>(
      "a",
      Fcn("\"bsWorkload\": true, \"bsLoadShutdown\": 1, \"bsNumSamples\": 3, \"bsNumSteps\": 4, "
          "\"orderRate\": 1.0"),
      11, {0});
  EXPECT_TRUE(a->is_workload_on(0));
  EXPECT_FALSE(a->is_workload_on(1));
  // The same draws by hand: the pricer on a copy of the prng, one
  // random() for the order rate, then FCNAgent's.
  Random copy = a->prng();
  BlackScholes bs(&copy, 100, 100, 0.1, 0.3, 3);
  const double price = bs.compute(3, 4);
  const double draw = copy.random();
  EXPECT_LE(draw, 1.0);
  std::vector<Action> orders;
  a->submit_orders(b.sim().markets(), &orders);
  EXPECT_EQ(Bits(a->bs_sum()), Bits(price));
  EXPECT_EQ(orders.size(), 1u);
  b.Step();  // time 1: the workload is off
  a->submit_orders(b.sim().markets(), &orders);
  EXPECT_EQ(Bits(a->bs_sum()), Bits(price));
  const ConfigError e = CatchConfigError([&] {
    b.AddAgent<BlackScholesWorkloadFCNAgent>("c", Fcn("\"bsNumSteps\": 1.0"), 1, {0});
  });
  EXPECT_EQ(e.path(), "c.bsNumSteps");
}

// --- The samples' configs, run ---

class Recorder : public Logger {
 public:
  void process_order_log(const OrderLog& log) override { orders.push_back(log); }
  void process_execution_log(const ExecutionLog& log) override { executions.push_back(log); }
  void process_cancel_log(const CancelLog&) override { ++cancels; }
  std::vector<OrderLog> orders;
  std::vector<ExecutionLog> executions;
  int cancels = 0;
};

std::unique_ptr<Runner> RunSample(const std::string& config, uint64_t seed, Logger* logger) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  std::unique_ptr<Runner> runner = registry.create_runner(
      "SequentialRunner", ParseJsonFile(std::string(PAMS_SOURCE_DIR) + "/samples/" + config),
      Random(seed), logger, "runner");
  runner->setup();
  runner->run();
  return runner;
}

TEST(SampleConfigsTest, DarkPoolTradesMarketOrdersAtTheLitMid) {
  Recorder recorder;
  auto runner = RunSample("dark_pool/config.json", 1, &recorder);
  const Simulator& sim = runner->simulator();
  int64_t pool_volume = 0;
  for (const OrderLog& o : recorder.orders) {
    if (o.market_id == 1) { EXPECT_EQ(o.kind, OrderKind::kMarket); }
  }
  for (const ExecutionLog& e : recorder.executions) {
    if (e.market_id == 1) pool_volume += e.volume;
  }
  EXPECT_GT(pool_volume, 0);
  EXPECT_GT(sim.market(0).get_vwap(), 0.0);
  // The dark pool's orders of the warm-up session (no execution) were
  // canceled at once.
  EXPECT_GT(recorder.cancels, 0);
}

TEST(SampleConfigsTest, ParallelMainWorkloadChangesNoResult) {
  // config.json with and without the workload: the same run.
  Json with = ParseJsonFile(std::string(PAMS_SOURCE_DIR) + "/samples/parallel_main/config.json");
  Json without = with;
  without["FCNAgent"]["bsWorkload"] = false;
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  std::vector<std::vector<double>> prices;
  for (const Json& c : {with, without}) {
    auto runner = registry.create_runner("SequentialRunner", c, Random(3), nullptr, "runner");
    runner->setup();
    runner->run();
    std::vector<double> p;
    for (const Market* m : runner->simulator().markets()) {
      for (double x : m->market_prices()) p.push_back(x);
    }
    prices.push_back(p);
  }
  EXPECT_EQ(prices[0], prices[1]);
}

}  // namespace
}  // namespace pams
