// Tests of python_run.h's OrderMirror: the Python Order and Cancel objects
// agents returned follow what the market did with the engine's copies, as
// PAMS's market changes its own objects.

#include "interop/python_run.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interop/testing/embedded_python.h"
#include "pams/logs/logs.h"

namespace pams::python {
namespace {

using testing::Eval;
using testing::Str;

// Agent 3's limit order to sell 7 at 101.5 in market 1 (as an agent
// returns it: not placed yet).
nb::object NewOrder() {
  return Eval(
      "pams_cpp.Order(agent_id=3, market_id=1, is_buy=False, kind=pams_cpp.LIMIT_ORDER,"
      " volume=7, price=101.5, ttl=4)");
}

// The market's log of accepting that order as order 20 at step 12, its
// price moved onto the tick grid.
OrderLog Accepted(int agent_id = 3) {
  return OrderLog{.order_id = 20, .market_id = 1, .time = 12, .agent_id = agent_id,
                  .is_buy = false, .kind = OrderKind::kLimit, .volume = 7,
                  .price = 101.0, .ttl = 4};
}

ExecutionLog Executed(int64_t volume) {
  return ExecutionLog{.market_id = 1, .time = 13, .buy_agent_id = 5, .sell_agent_id = 3,
                      .buy_order_id = 21, .sell_order_id = 20, .price = 101.0,
                      .volume = volume};
}

class OrderMirrorTest : public ::testing::Test {
 protected:
  PythonClasses classes_;
  MarketLookup no_markets_ = [](int) -> const Market* { return nullptr; };
  OrderMirror mirror_{&classes_, &no_markets_};
};

TEST_F(OrderMirrorTest, AnAcceptedOrderGetsTheMarketsFields) {
  nb::object order = NewOrder();
  mirror_.Expect(3, order);
  mirror_.process_order_log(Accepted());
  EXPECT_EQ(Str(order.attr("order_id")), "20");
  EXPECT_EQ(Str(order.attr("placed_at")), "12");
  EXPECT_EQ(Str(order.attr("price")), "101.0");  // on the tick grid, a float
  EXPECT_EQ(Str(order.attr("volume")), "7");
  EXPECT_TRUE(mirror_.Find(1, 20).is(order));
  EXPECT_TRUE(mirror_.Find(0, 20).is_none());  // another market's order 20
}

TEST_F(OrderMirrorTest, ExecutionsLowerTheVolumeUntilTheOrderLeavesTheBook) {
  nb::object order = NewOrder();
  mirror_.Expect(3, order);
  mirror_.process_order_log(Accepted());
  mirror_.process_execution_log(Executed(5));
  EXPECT_EQ(Str(order.attr("volume")), "2");
  EXPECT_TRUE(mirror_.Find(1, 20).is(order));
  mirror_.process_execution_log(Executed(2));
  EXPECT_EQ(Str(order.attr("volume")), "0");
  EXPECT_TRUE(mirror_.Find(1, 20).is_none());
}

// A subclass may make a field a property: the mirror writes through it
// (Order's own objects it writes at their slots).
TEST_F(OrderMirrorTest, ASubclassesFieldsAreSetThroughItsProperties) {
  nb::dict ns = testing::Exec(
      "class Logged(pams_cpp.Order):\n"
      "    @property\n"
      "    def volume(self):\n"
      "        return self.volumes[-1]\n"
      "    @volume.setter\n"
      "    def volume(self, value):\n"
      "        vars(self).setdefault('volumes', []).append(value)\n"
      "order = Logged(agent_id=3, market_id=1, is_buy=False, kind=pams_cpp.LIMIT_ORDER,"
      " volume=7, price=101.5, ttl=4)\n");
  nb::object order = ns["order"];
  mirror_.Expect(3, order);
  mirror_.process_order_log(Accepted());
  mirror_.process_execution_log(Executed(5));
  EXPECT_EQ(Str(order.attr("volumes")), "[7, 7, 2]");
  EXPECT_EQ(Str(order.attr("order_id")), "20");
}

TEST_F(OrderMirrorTest, ACancelMarksTheOrderAndAnExpirationForgetsIt) {
  nb::dict ns = testing::Exec(
      "order = pams_cpp.Order(agent_id=3, market_id=1, is_buy=False,"
      " kind=pams_cpp.LIMIT_ORDER, volume=7, price=101.5, ttl=4)\n"
      "cancel = pams_cpp.Cancel(order)\n");
  nb::object order = ns["order"];
  nb::object cancel = ns["cancel"];
  mirror_.Expect(3, order);
  mirror_.process_order_log(Accepted());
  mirror_.Expect(3, cancel);
  mirror_.process_cancel_log(CancelLog{.order_id = 20, .market_id = 1, .cancel_time = 15,
                                       .order_time = 12, .agent_id = 3, .is_buy = false,
                                       .kind = OrderKind::kLimit, .volume = 7,
                                       .price = 101.0, .ttl = 4});
  EXPECT_EQ(Str(cancel.attr("placed_at")), "15");
  EXPECT_EQ(Str(order.attr("is_canceled")), "True");
  EXPECT_TRUE(mirror_.Find(1, 20).is_none());

  nb::object other = NewOrder();
  mirror_.Expect(3, other);
  mirror_.process_order_log(Accepted());
  mirror_.process_expiration_log(ExpirationLog{.order_id = 20, .market_id = 1, .time = 16,
                                               .order_time = 12, .agent_id = 3,
                                               .is_buy = false, .kind = OrderKind::kLimit,
                                               .volume = 7, .price = 101.0, .ttl = 4});
  EXPECT_TRUE(mirror_.Find(1, 20).is_none());
  EXPECT_EQ(Str(other.attr("is_canceled")), "False");
}

TEST_F(OrderMirrorTest, OnlyTheAgentsExpectedObjectsChangeInTheirOrder) {
  nb::object first = NewOrder();
  nb::object second = NewOrder();
  mirror_.Expect(3, first);
  mirror_.Expect(3, second);
  // An engine agent's order (agent 9 returned no Python object).
  mirror_.process_order_log(Accepted(/*agent_id=*/9));
  EXPECT_TRUE(first.attr("order_id").is_none());
  mirror_.process_order_log(Accepted());
  EXPECT_EQ(Str(first.attr("order_id")), "20");
  EXPECT_TRUE(second.attr("order_id").is_none());
}

TEST_F(OrderMirrorTest, TakenAndForgottenObjectsAreNotChanged) {
  std::vector<nb::object> orders = {NewOrder(), NewOrder(), NewOrder()};
  for (const nb::object& o : orders) mirror_.Expect(3, o);
  std::vector<nb::object> taken = mirror_.Take(3, 2);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_TRUE(taken[0].is(orders[0]));
  EXPECT_TRUE(taken[1].is(orders[1]));
  mirror_.ForgetAll();
  mirror_.process_order_log(Accepted());
  for (const nb::object& o : orders) EXPECT_TRUE(o.attr("order_id").is_none());
  EXPECT_TRUE(mirror_.Find(1, 20).is_none());
}

}  // namespace
}  // namespace pams::python
