// Tests of hand_built.h: what objects built by hand in Python hand to the
// engine (an Order's fields, PAMS's log objects, a market argument) and how
// they find the simulation they belong to.

#include "interop/hand_built.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interop/testing/embedded_python.h"
#include "pams/logs/logger.h"
#include "pams/logs/logs.h"
#include "pams/market/market.h"

namespace pams::python {
namespace {

using testing::Eval;
using testing::RaisedBy;
using testing::Exec;

constexpr const char* kOrder =
    "pams_cpp.Order(agent_id=3, market_id=1, is_buy=False, kind=pams_cpp.LIMIT_ORDER,"
    " volume=7, price=101.5, ttl=4)";

TEST(HandBuiltTest, OrderFieldsReadsEveryFieldOfAPythonOrder) {
  const Order order = OrderFields(Eval(kOrder));
  EXPECT_EQ(order.agent_id, 3);
  EXPECT_EQ(order.market_id, 1);
  EXPECT_FALSE(order.is_buy);
  EXPECT_EQ(order.kind, OrderKind::kLimit);
  EXPECT_EQ(order.volume, 7);
  EXPECT_EQ(order.price, 101.5);
  EXPECT_EQ(order.ttl, 4);
  EXPECT_EQ(order.order_id, -1);  // not placed yet
  const Order market_order = OrderFields(Eval(
      "pams_cpp.Order(agent_id=0, market_id=0, is_buy=True, kind=pams_cpp.MARKET_ORDER,"
      " volume=1)"));
  EXPECT_EQ(market_order.kind, OrderKind::kMarket);
  EXPECT_FALSE(market_order.price.has_value());
  EXPECT_FALSE(market_order.ttl.has_value());
}

TEST(HandBuiltTest, AFieldOfTheWrongTypeIsATypeErrorNamingIt) {
  nb::dict ns = Exec(std::string("order = ") + kOrder + "\norder.price = 'x'\n");
  EXPECT_EQ(RaisedBy([&] { OrderFields(ns["order"]); }),
            "TypeError: an order's price must be a number or None, got 'x' (str)");
  ns = Exec(std::string("order = ") + kOrder + "\norder.volume = 1.5\n");
  EXPECT_EQ(RaisedBy([&] { OrderFields(ns["order"]); }).substr(0, 45),
            "TypeError: an order's volume must be an int, ");
}

TEST(HandBuiltTest, MarketArgNamesWhatItGot) {
  EXPECT_EQ(RaisedBy([] { MarketArg(Eval("'m'")); }), "TypeError: expected a Market, got 'm'");
}

TEST(HandBuiltTest, ContextOfFindsTheSimulatorsContextOrSaysThereIsNone) {
  nb::dict ns = Exec(
      "import random\n"
      "sim = pams_cpp.Simulator(prng=random.Random(1))\n"
      "market = pams_cpp.Market(market_id=0, prng=random.Random(1), simulator=sim, name='m')\n");
  SimulationContext& context = ContextOf(ns["sim"], "simulator");
  EXPECT_TRUE(context.owns_simulation());
  EXPECT_EQ(MarketArg(ns["market"]).name(), "m");
  const std::string error = RaisedBy([] { ContextOf(Eval("object()"), "market"); });
  EXPECT_EQ(error.substr(0, 60), "TypeError: this market belongs to no simulation pams_cpp kno");
}

// An engine logger that keeps the order logs it is given.
class OrderLogs : public Logger {
 public:
  void process_order_log(const OrderLog& log) override { logs.push_back(log); }
  std::vector<OrderLog> logs;
};

TEST(HandBuiltTest, FeedLoggerHandsPamsLogObjectsToAnEngineLogger) {
  OrderLogs logger;
  FeedLogger(logger, Eval("pams_cpp.logs.OrderLog(order_id=5, market_id=1, time=9, agent_id=3,"
                          " is_buy=True, kind=pams_cpp.LIMIT_ORDER, volume=2, price=99.0)"));
  ASSERT_EQ(logger.logs.size(), 1u);
  const OrderLog& log = logger.logs[0];
  EXPECT_EQ(log.order_id, 5);
  EXPECT_EQ(log.market_id, 1);
  EXPECT_EQ(log.time, 9);
  EXPECT_EQ(log.agent_id, 3);
  EXPECT_TRUE(log.is_buy);
  EXPECT_EQ(log.kind, OrderKind::kLimit);
  EXPECT_EQ(log.volume, 2);
  EXPECT_EQ(log.price, 99.0);
  EXPECT_FALSE(log.ttl.has_value());
  // A log class the engine has no log for.
  EXPECT_EQ(RaisedBy([&] { FeedLogger(logger, Eval("Mine()", "class Mine: pass")); }),
            "NotImplementedError: no engine log is a Mine");
}

}  // namespace
}  // namespace pams::python
