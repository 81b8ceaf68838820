// Transaction fees (PAMS's development branch): ProportionalTransactionFee's
// checks and arithmetic, what a market hands a fee (the live orders of
// partial fills) and records (logs, revenues), what the simulator takes
// off the agents' cash (rebates included), the config key, and whole runs
// with several markets and the arbitrage agent.
//
// Expected values are worked out by hand in the comments (the fee formula
// rate * price * volume, PAMS's execution rule for the prices), or by an
// accounting of the execution logs independent of the engine's.

#include "pams/market/transaction_fee.h"

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/agents/test_agent.h"
#include "pams/logs/logger.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"
#include "pams/simulator/simulator.h"
#include "testing/catch_config_error.h"
#include "testing/sim_builder.h"

namespace pams {
namespace {

using test_support::Bits;
using test_support::CatchConfigError;
using test_support::SimBuilder;

// --- ProportionalTransactionFee ---

TEST(ProportionalTransactionFeeTest, ChecksTheRateAsPams) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  for (const char* bad : {R"({})", R"({"makerRate": 0.001})", R"({"rate": "0.001"})",
                          R"({"rate": true})", R"({"rate": null})", R"({"rate": [0.001]})",
                          R"({"rate": -0.001})", R"({"rate": -1})", R"({"rate": 1})",
                          R"({"rate": 1.0})", R"({"rate": 10.0})"}) {
    ProportionalTransactionFee fee({.market = m, .class_name = "ProportionalTransactionFee"});
    const Json json = Json::parse(bad);
    const ConfigError e = CatchConfigError([&] { fee.setup(Settings(json, "M.transactionFee")); });
    EXPECT_EQ(e.path().rfind("M.transactionFee", 0), 0u) << bad << ": " << e.what();
    EXPECT_EQ(fee.rate(), 0.0) << bad;
  }
  for (double rate : {0.0, 0.001, 0.5, 0.999}) {
    ProportionalTransactionFee fee({.market = m});
    const Json json = {{"rate", rate}, {"unknown", "ignored"}};
    fee.setup(Settings(json, "M.transactionFee"));
    EXPECT_EQ(fee.rate(), rate);
  }
  ProportionalTransactionFee fee({.market = m});
  const Json json = Json::parse(R"({"rate": 0})");  // an int is a rate too
  fee.setup(Settings(json, "M.transactionFee"));
  EXPECT_EQ(fee.rate(), 0.0);
}

TEST(ProportionalTransactionFeeTest, ChargesRateTimesValueToBothSides) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 0.01, "marketPrice": 100})");
  ProportionalTransactionFee fee({.market = m});
  const Json json = Json::parse(R"({"rate": 0.002})");
  fee.setup(Settings(json, "M.transactionFee"));
  const Order order;
  // Python: rate * price * volume = (0.002 * 299.87) * 7.0.
  const TransactionFees f = fee.compute_fees(299.87, 7, order, order);
  EXPECT_EQ(Bits(f.buy), Bits(0.002 * 299.87 * 7.0));
  EXPECT_EQ(Bits(f.sell), Bits(f.buy));
  EXPECT_NEAR(f.buy, 4.19818, 1e-12);  // 0.2% of 2099.09
}

// --- A market charging a fee ---

// Records what the market hands it and charges fixed fees.
class RecordingFee : public TransactionFee {
 public:
  RecordingFee(Market* market, double buy, double sell)
      : TransactionFee({.market = market, .class_name = "RecordingFee"}), buy_(buy), sell_(sell) {}
  TransactionFees compute_fees(double price, int64_t volume, const Order& buy,
                               const Order& sell) override {
    seen.push_back({price, volume, buy.order_id, buy.volume, sell.order_id, sell.volume});
    return {buy_, sell_};
  }
  struct Call {
    double price;
    int64_t volume;
    int64_t buy_id, buy_volume, sell_id, sell_volume;
  };
  std::vector<Call> seen;

 private:
  double buy_, sell_;
};

Order Limit(int agent, bool is_buy, double price, int64_t volume) {
  return Order::Limit({.agent_id = agent, .market_id = 0, .is_buy = is_buy, .price = price,
                       .volume = volume});
}

TEST(MarketTransactionFeeTest, PartialFillsSeeTheLiveOrders) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  b.AddAgent<TestAgent>("a", R"({"cashAmount": 1000, "assetVolume": 10})", 1, {0});
  b.AddAgent<TestAgent>("b", R"({"cashAmount": 1000, "assetVolume": 10})", 2, {0});
  b.AddAgent<TestAgent>("c", R"({"cashAmount": 1000, "assetVolume": 10})", 3, {0});
  auto owned = std::make_unique<RecordingFee>(m, 0.25, 0.5);
  RecordingFee* fee = owned.get();
  m->set_transaction_fee(std::move(owned));
  b.SetRunning(true);
  b.Step();
  Order s0 = Limit(0, false, 100, 2);  // id 0
  Order s1 = Limit(1, false, 101, 3);  // id 1
  Order buy = Limit(2, true, 101, 4);  // id 2: fills 2 of s0, then 2 of s1
  m->add_order(&s0);
  m->add_order(&s1);
  m->add_order(&buy);
  std::vector<ExecutionLog> logs;
  m->execution(&logs);
  // PAMS: one price for the matching, the last pair's (s1's, placed before
  // the buy): 101 for both pairs.
  ASSERT_EQ(logs.size(), 2u);
  ASSERT_EQ(fee->seen.size(), 2u);
  // First pair: the buy order still has 4, s0 its 2.
  EXPECT_EQ(fee->seen[0].price, 101.0);
  EXPECT_EQ(fee->seen[0].volume, 2);
  EXPECT_EQ(fee->seen[0].buy_id, 2);
  EXPECT_EQ(fee->seen[0].buy_volume, 4);
  EXPECT_EQ(fee->seen[0].sell_id, 0);
  EXPECT_EQ(fee->seen[0].sell_volume, 2);
  // Second pair: the buy order has 2 left (the first pair is taken off);
  // s1 still has its 3.
  EXPECT_EQ(fee->seen[1].volume, 2);
  EXPECT_EQ(fee->seen[1].buy_volume, 2);
  EXPECT_EQ(fee->seen[1].sell_id, 1);
  EXPECT_EQ(fee->seen[1].sell_volume, 3);
  for (const ExecutionLog& log : logs) {
    EXPECT_EQ(log.buy_transaction_fee, 0.25);
    EXPECT_EQ(log.sell_transaction_fee, 0.5);
  }
  // The step's revenue: (0.25 + 0.5) per execution.
  EXPECT_EQ(m->get_transaction_fee_revenue(), 1.5);
  EXPECT_EQ(m->get_cumulative_transaction_fee_revenue(), 1.5);
  // Cash: the buyer (agent 2) pays 101 * 2 + 0.25 twice; seller 0 gets
  // 202 - 0.5, seller 1 gets 202 - 0.5.
  b.sim().update_agents_for_execution(logs);
  EXPECT_EQ(b.sim().agent(2).cash_amount(), 1000 - 202 - 0.25 - 202 - 0.25);
  EXPECT_EQ(b.sim().agent(0).cash_amount(), 1000 + 202 - 0.5);
  EXPECT_EQ(b.sim().agent(1).cash_amount(), 1000 + 202 - 0.5);
  EXPECT_EQ(b.sim().agent(2).get_asset_volume(0), 14);

  // The next step starts at 0; the balance carries on.
  b.Step();
  EXPECT_EQ(m->get_transaction_fee_revenue(), 0.0);
  EXPECT_EQ(m->get_transaction_fee_revenue(0), 1.5);
  EXPECT_EQ(m->get_cumulative_transaction_fee_revenue(), 1.5);
  EXPECT_EQ(m->transaction_fee_revenues().size(), 2u);
}

TEST(MarketTransactionFeeTest, RebatesAddToCashAndReduceTheRevenue) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  b.AddAgent<TestAgent>("a", R"({"cashAmount": 0, "assetVolume": 10})", 1, {0});
  b.AddAgent<TestAgent>("b", R"({"cashAmount": 0, "assetVolume": 10})", 2, {0});
  // A maker rebate of 1.0 to the buyer, 0.25 charged to the seller.
  m->set_transaction_fee(std::make_unique<RecordingFee>(m, -1.0, 0.25));
  b.SetRunning(true);
  b.Step();
  Order buy = Limit(0, true, 100, 1);
  Order sell = Limit(1, false, 100, 1);
  m->add_order(&buy);
  m->add_order(&sell);
  std::vector<ExecutionLog> logs;
  m->execution(&logs);
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(m->get_transaction_fee_revenue(), -0.75);
  b.sim().update_agents_for_execution(logs);
  EXPECT_EQ(b.sim().agent(0).cash_amount(), -100.0 + 1.0);
  EXPECT_EQ(b.sim().agent(1).cash_amount(), 100.0 - 0.25);
}

TEST(MarketTransactionFeeTest, NonFiniteFeesStopTheRun) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  m->set_transaction_fee(std::make_unique<RecordingFee>(m, std::nan(""), 0.0));
  b.SetRunning(true);
  b.Step();
  Order buy = Limit(0, true, 100, 1);
  Order sell = Limit(1, false, 100, 1);
  m->add_order(&buy);
  m->add_order(&sell);
  std::vector<ExecutionLog> logs;
  try {
    m->execution(&logs);
    ADD_FAILURE() << "no error";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("RecordingFee returned fees nan"), std::string::npos)
        << e.what();
  }
}

TEST(MarketTransactionFeeTest, WithoutAFeeNothingIsCharged) {
  SimBuilder b;
  Market* m = b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  EXPECT_EQ(m->transaction_fee(), nullptr);
  b.SetRunning(true);
  b.Step();
  Order buy = Limit(0, true, 100, 1);
  Order sell = Limit(1, false, 100, 1);
  m->add_order(&buy);
  m->add_order(&sell);
  std::vector<ExecutionLog> logs;
  m->execution(&logs);
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(Bits(logs[0].buy_transaction_fee), Bits(0.0));
  EXPECT_EQ(Bits(logs[0].sell_transaction_fee), Bits(0.0));
  EXPECT_EQ(m->get_transaction_fee_revenue(), 0.0);
}

TEST(MarketTransactionFeeTest, AFeeOfAnotherMarketIsRefused) {
  SimBuilder b;
  Market* m0 = b.AddMarket("m0", R"({"tickSize": 1, "marketPrice": 100})");
  Market* m1 = b.AddMarket("m1", R"({"tickSize": 1, "marketPrice": 100})");
  EXPECT_THROW(m0->set_transaction_fee(std::make_unique<RecordingFee>(m1, 0, 0)),
               SimulationError);
}

// --- Whole runs ---

class ExecutionRecorder : public Logger {
 public:
  void process_execution_log(const ExecutionLog& log) override { logs.push_back(log); }
  std::vector<ExecutionLog> logs;
};

struct Run {
  std::unique_ptr<Runner> runner;
  ExecutionRecorder recorder;
  std::vector<double> initial_cash;
};

std::unique_ptr<Run> RunConfig(const Json& config, uint64_t seed) {
  auto run = std::make_unique<Run>();
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  run->runner = registry.create_runner("SequentialRunner", config, Random(seed),
                                       &run->recorder, "runner");
  run->runner->setup();
  for (const auto& agent : run->runner->simulator().agents()) {
    run->initial_cash.push_back(agent->cash_amount());
  }
  run->runner->run();
  return run;
}

// The index arbitrage setup of tests/differential, with fees on the spot
// markets (0.1%) and a rebate fee on the index (a class of this test).
Json ArbitrageConfig(bool with_fees) {
  Json c = Json::parse(R"({
    "simulation": {
      "markets": ["Spot", "Index"],
      "agents": ["SpotFCN", "IndexFCN", "Arbitrageurs"],
      "sessions": [
        {"sessionName": "warmup", "iterationSteps": 50, "withOrderPlacement": true,
         "withOrderExecution": false, "withPrint": true, "maxNormalOrders": 3,
         "maxHighFrequencyOrders": 0},
        {"sessionName": "main", "iterationSteps": 300, "withOrderPlacement": true,
         "withOrderExecution": true, "withPrint": true, "maxNormalOrders": 3,
         "maxHighFrequencyOrders": 2, "highFrequencySubmitRate": 0.5}
      ]
    },
    "Spot": {"class": "Market", "tickSize": 0.01, "marketPrice": 300.0,
             "outstandingShares": 1000, "fundamentalVolatility": 0.001,
             "from": 1, "to": 2, "prefix": "Spot-"},
    "Index": {"class": "IndexMarket", "tickSize": 0.01, "marketPrice": 300.0,
              "outstandingShares": 1000, "markets": ["Spot-1", "Spot-2"]},
    "FCNBase": {"class": "FCNAgent", "numAgents": 30, "assetVolume": [40, 60],
                "cashAmount": 10000, "fundamentalWeight": {"expon": [1.0]},
                "chartWeight": {"expon": [0.3]}, "noiseWeight": {"expon": [1.0]},
                "noiseScale": 0.001, "timeWindowSize": [50, 100],
                "orderMargin": [0.0, 0.1]},
    "SpotFCN": {"extends": "FCNBase", "markets": ["Spot"]},
    "IndexFCN": {"extends": "FCNBase", "markets": ["Index"], "numAgents": 20},
    "Arbitrageurs": {"class": "ArbitrageAgent", "numAgents": 5,
                     "markets": ["Index", "Spot"], "assetVolume": 50,
                     "cashAmount": 100000, "orderVolume": 2,
                     "orderThresholdPrice": 0.5, "orderTimeLength": 3}
  })");
  if (with_fees) {
    c["Spot"]["transactionFee"] = {{"class", "ProportionalTransactionFee"}, {"rate", 0.001}};
    c["Index"]["transactionFee"] = {{"class", "ProportionalTransactionFee"}, {"rate", 0.0005}};
  }
  return c;
}

TEST(TransactionFeeRunTest, FeesChangeCashOnlyAndAddUpAcrossMarkets) {
  const auto plain = RunConfig(ArbitrageConfig(false), 7);
  const auto charged = RunConfig(ArbitrageConfig(true), 7);
  const Simulator& a = plain->runner->simulator();
  const Simulator& f = charged->runner->simulator();
  // The same prices and executions: fees draw no randomness and the
  // built-in agents do not look at their cash.
  ASSERT_EQ(plain->recorder.logs.size(), charged->recorder.logs.size());
  ASSERT_GT(charged->recorder.logs.size(), 100u);
  for (int id = 0; id < 3; ++id) {
    const auto pa = a.market(id).market_prices();
    const auto pf = f.market(id).market_prices();
    ASSERT_TRUE(std::equal(pa.begin(), pa.end(), pf.begin(), pf.end())) << "market " << id;
  }
  // Each execution's fees: rate * price * volume on both sides (0.1% on
  // the spot markets 0 and 1, 0.05% on the index 2).
  const double rates[] = {0.001, 0.001, 0.0005};
  std::map<int, double> revenue;  // per market, summed in log order
  std::vector<double> fees_paid(f.agents().size(), 0.0);
  bool arbitrage_charged = false;
  for (size_t i = 0; i < charged->recorder.logs.size(); ++i) {
    const ExecutionLog& log = charged->recorder.logs[i];
    const ExecutionLog& same = plain->recorder.logs[i];
    ASSERT_EQ(log.price, same.price);
    ASSERT_EQ(log.volume, same.volume);
    EXPECT_EQ(same.buy_transaction_fee, 0.0);
    const double fee = rates[log.market_id] * log.price * static_cast<double>(log.volume);
    EXPECT_EQ(Bits(log.buy_transaction_fee), Bits(fee));
    EXPECT_EQ(Bits(log.sell_transaction_fee), Bits(fee));
    revenue[log.market_id] += fee + fee;
    fees_paid[log.buy_agent_id] += fee;
    fees_paid[log.sell_agent_id] += fee;
    if (f.agent(log.buy_agent_id).class_name() == "ArbitrageAgent") arbitrage_charged = true;
  }
  EXPECT_TRUE(arbitrage_charged);
  for (int id = 0; id < 3; ++id) {
    EXPECT_NEAR(f.market(id).get_cumulative_transaction_fee_revenue(), revenue[id],
                1e-9 * revenue[id])
        << "market " << id;
    EXPECT_GT(revenue[id], 0.0);
    EXPECT_EQ(a.market(id).get_cumulative_transaction_fee_revenue(), 0.0);
  }
  // Every agent (the arbitrageurs included) paid exactly its fees more.
  for (size_t i = 0; i < f.agents().size(); ++i) {
    EXPECT_NEAR(a.agent(i).cash_amount() - f.agent(i).cash_amount(), fees_paid[i], 1e-6)
        << f.agent(i).name();
    for (int id = 0; id < 3; ++id) {
      if (!f.agent(i).is_market_accessible(id)) continue;
      EXPECT_EQ(a.agent(i).get_asset_volume(id), f.agent(i).get_asset_volume(id));
    }
  }
}

TEST(TransactionFeeRunTest, ConfigErrorsNameTheKey) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  auto error_of = [&](const char* fee_json) {
    Json c = ArbitrageConfig(false);
    c["Spot"]["transactionFee"] = Json::parse(fee_json);
    std::unique_ptr<Runner> runner =
        registry.create_runner("SequentialRunner", c, Random(1), nullptr, "runner");
    return CatchConfigError([&] { runner->setup(); });
  };
  ConfigError e = error_of("0.001");
  EXPECT_EQ(e.path(), "Spot.transactionFee");
  EXPECT_NE(e.message().find("expected an object"), std::string::npos) << e.what();
  e = error_of(R"({"rate": 0.001})");
  EXPECT_EQ(e.path(), "Spot.transactionFee.class");
  e = error_of(R"({"class": "ProportionalFee", "rate": 0.001})");
  EXPECT_EQ(e.path(), "Spot.transactionFee.class");
  EXPECT_NE(e.message().find("unknown transaction fee class"), std::string::npos) << e.what();
  e = error_of(R"({"class": "FCNAgent"})");
  EXPECT_NE(e.message().find("is an agent class, not a transaction fee class"),
            std::string::npos)
      << e.what();
  e = error_of(R"({"class": "TransactionFee"})");
  EXPECT_NE(e.message().find("abstract"), std::string::npos) << e.what();
  e = error_of(R"({"class": "ProportionalTransactionFee"})");
  EXPECT_EQ(e.path(), "Spot.transactionFee.rate");
  e = error_of(R"({"class": "ProportionalTransactionFee", "rate": 1.5})");
  EXPECT_EQ(e.path(), "Spot.transactionFee.rate");
  EXPECT_NE(e.message().find("[0.0, 1.0)"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace pams
