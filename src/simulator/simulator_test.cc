// Tests for Simulator: event hook dispatch (order and filters), building
// (names, ids), settlement of executions, market time updates and warn().
//
// Reference values (fundamental prices, cash after executions) come from
// running PAMS 0.3.0's Simulator / Market / IndexMarket / TestAgent in
// /usr/bin/python3 (reference BLAS/LAPACK, numpy without AVX-512, as for
// fundamentals_test.cc) and are literals here.

#include "pams/simulator/simulator.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "testing/sim_builder.h"
#include "pams/agents/test_agent.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/events/event.h"
#include "pams/market/index_market.h"
#include "pams/simulator/session.h"

namespace pams {
namespace {

using test_support::Bits;
using test_support::SimBuilder;

// An event that records every hook call as "name:what:time".
class RecordingEvent : public Event {
 public:
  RecordingEvent(Simulator* sim, int id, std::string name,
                 std::vector<std::string>* record)
      : Event(MakeInit(sim, id, std::move(name))), record_(record) {}

  std::vector<EventHook> hook_registration() override { return {}; }

  void hooked_before_order(Simulator&, Order& order) override {
    Record("before_order", order.market_id);
    order.volume += 1;  // hooks before an order may change it
  }
  void hooked_after_order(Simulator&, const OrderLog& log) override {
    Record("after_order", log.time);
  }
  void hooked_before_cancel(Simulator&, Cancel& cancel) override {
    Record("before_cancel", cancel.order.order_id);
  }
  void hooked_after_cancel(Simulator&, const CancelLog& log) override {
    Record("after_cancel", log.cancel_time);
  }
  void hooked_after_execution(Simulator&, const ExecutionLog& log) override {
    Record("after_execution", log.time);
  }
  void hooked_before_session(Simulator&, const Session& s) override {
    Record("before_session", s.session_id());
  }
  void hooked_after_session(Simulator&, const Session& s) override {
    Record("after_session", s.session_id());
  }
  void hooked_before_step_for_market(Simulator&, Market& m) override {
    Record("before_step", m.market_id());
  }
  void hooked_after_step_for_market(Simulator&, Market& m) override {
    Record("after_step", m.market_id());
  }

 private:
  static EventInit MakeInit(Simulator* sim, int id, std::string name) {
    EventInit init;
    init.event_id = id;
    init.prng = Random(static_cast<uint64_t>(id));
    init.simulator = sim;
    init.name = std::move(name);
    init.class_name = "RecordingEvent";
    return init;
  }
  void Record(const char* what, int64_t arg) {
    record_->push_back(name() + ":" + what + ":" + std::to_string(arg));
  }
  std::vector<std::string>* record_;
};

class SimulatorHookTest : public ::testing::Test {
 protected:
  RecordingEvent* AddEvent(const std::string& name) {
    auto e = std::make_unique<RecordingEvent>(
        &b_.sim(), static_cast<int>(b_.sim().events().size()), name, &record_);
    return static_cast<RecordingEvent*>(b_.sim().add_event(std::move(e)));
  }
  void Hook(RecordingEvent* e, HookType type, bool before,
            std::optional<std::vector<int64_t>> time = std::nullopt,
            const Market* instance = nullptr,
            bool (*cls)(const Market&) = nullptr) {
    EventHook h;
    h.event = e;
    h.hook_type = type;
    h.is_before = before;
    h.time = std::move(time);
    h.specific_instance = instance;
    h.specific_class = cls;
    b_.sim().add_event_hook(h);
  }
  std::vector<std::string> Take() {
    std::vector<std::string> r;
    r.swap(record_);
    return r;
  }

  SimBuilder b_;
  std::vector<std::string> record_;
};

using Strings = std::vector<std::string>;

TEST_F(SimulatorHookTest, HooksWithoutTimesFirstThenTimedOnesInRegistrationOrder) {
  Market* m = b_.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  RecordingEvent* e1 = AddEvent("e1");
  RecordingEvent* e2 = AddEvent("e2");
  RecordingEvent* e3 = AddEvent("e3");
  RecordingEvent* e4 = AddEvent("e4");
  Hook(e1, HookType::kMarket, true);
  Hook(e2, HookType::kMarket, true, std::vector<int64_t>{3});
  Hook(e3, HookType::kMarket, true);
  Hook(e4, HookType::kMarket, true, std::vector<int64_t>{5, 3});
  Hook(e4, HookType::kMarket, false, std::vector<int64_t>{0});
  for (int t = 0; t <= 5; ++t) {
    b_.Step();
    ASSERT_EQ(m->get_time(), t);
    b_.sim().trigger_before_step_for_market(*m);
    b_.sim().trigger_after_step_for_market(*m);
  }
  EXPECT_EQ(Take(), (Strings{
                        "e1:before_step:0", "e3:before_step:0",  // t = 0
                        "e4:after_step:0",
                        "e1:before_step:0", "e3:before_step:0",  // t = 1
                        "e1:before_step:0", "e3:before_step:0",  // t = 2
                        "e1:before_step:0", "e3:before_step:0",  // t = 3
                        "e2:before_step:0", "e4:before_step:0",
                        "e1:before_step:0", "e3:before_step:0",  // t = 4
                        "e1:before_step:0", "e3:before_step:0",  // t = 5
                        "e4:before_step:0",
                    }));
}

TEST_F(SimulatorHookTest, OrderCancelAndExecutionHooks) {
  Market* m = b_.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  RecordingEvent* timed = AddEvent("timed");
  RecordingEvent* always = AddEvent("always");
  Hook(timed, HookType::kOrder, true, std::vector<int64_t>{1});
  Hook(always, HookType::kOrder, true);
  Hook(timed, HookType::kOrder, false, std::vector<int64_t>{1});
  Hook(always, HookType::kCancel, true);
  Hook(timed, HookType::kCancel, false, std::vector<int64_t>{0});
  Hook(always, HookType::kExecution, false);
  b_.Step();  // t = 0

  Order o = Order::Limit({.agent_id = 0,
                          .market_id = 0,
                          .is_buy = true,
                          .price = 100.0,
                          .volume = 1});
  b_.sim().trigger_before_order(o);
  EXPECT_EQ(o.volume, 2);  // changed by one hook
  const OrderLog log = m->add_order(&o);
  b_.sim().trigger_after_order(log);
  EXPECT_EQ(Take(), (Strings{"always:before_order:0"}));

  Cancel c{log.order()};
  b_.sim().trigger_before_cancel(c);
  const CancelLog cl = m->cancel_order(c);
  b_.sim().trigger_after_cancel(cl);
  EXPECT_EQ(Take(), (Strings{"always:before_cancel:0", "timed:after_cancel:0"}));

  b_.Step();  // t = 1
  Order p = Order::Limit({.agent_id = 0,
                          .market_id = 0,
                          .is_buy = true,
                          .price = 100.0,
                          .volume = 1});
  b_.sim().trigger_before_order(p);
  EXPECT_EQ(p.volume, 3);  // both hooks at t = 1
  b_.sim().trigger_after_order(m->add_order(&p));
  EXPECT_EQ(Take(), (Strings{"always:before_order:0", "timed:before_order:0",
                             "timed:after_order:1"}));
  const ExecutionLog ex{0, 1, 0, 0, 0, 1, 100.0, 1};
  b_.sim().trigger_after_execution(ex);
  EXPECT_EQ(Take(), (Strings{"always:after_execution:1"}));
}

TEST_F(SimulatorHookTest, MarketHooksFilteredByInstanceAndClass) {
  Market* a = b_.AddMarket(
      "a", R"({"tickSize": 1, "marketPrice": 100, "outstandingShares": 10})");
  Market* c = b_.AddMarket(
      "c", R"({"tickSize": 1, "marketPrice": 200, "outstandingShares": 10})");
  IndexMarket* idx = b_.AddMarket<IndexMarket>(
      "idx", R"({"tickSize": 1, "marketPrice": 150, "markets": ["a", "c"]})");
  RecordingEvent* all = AddEvent("all");
  RecordingEvent* only_c = AddEvent("only_c");
  RecordingEvent* index_only = AddEvent("index_only");
  RecordingEvent* both = AddEvent("both");
  RecordingEvent* none = AddEvent("none");
  Hook(all, HookType::kMarket, true);
  Hook(only_c, HookType::kMarket, true, std::nullopt, c);
  Hook(index_only, HookType::kMarket, true, std::nullopt, nullptr,
       &IsMarketOfClass<IndexMarket>);
  Hook(both, HookType::kMarket, true, std::nullopt, idx,
       &IsMarketOfClass<IndexMarket>);
  // A class requirement that the instance does not meet: never called.
  Hook(none, HookType::kMarket, true, std::nullopt, c,
       &IsMarketOfClass<IndexMarket>);
  b_.Step();
  for (Market* m : {a, c, static_cast<Market*>(idx)}) {
    b_.sim().trigger_before_step_for_market(*m);
  }
  EXPECT_EQ(Take(), (Strings{"all:before_step:0", "all:before_step:1",
                             "only_c:before_step:1", "all:before_step:2",
                             "index_only:before_step:2", "both:before_step:2"}));
  EXPECT_TRUE(IsMarketOfClass<IndexMarket>(*idx));
  EXPECT_FALSE(IsMarketOfClass<IndexMarket>(*a));
}

TEST_F(SimulatorHookTest, SessionHooksUseTheSessionsTimes) {
  const Json s0 = Json::parse(R"({"sessionName": 0, "iterationSteps": 3,
      "withOrderPlacement": false, "withOrderExecution": false,
      "withPrint": true})");
  const Json s1 = Json::parse(R"({"sessionName": 1, "iterationSteps": 5,
      "withOrderPlacement": true, "withOrderExecution": true,
      "withPrint": true})");
  Session* first = b_.sim().add_session(
      std::make_unique<Session>(0, Random(1), 0, &b_.sim(), "0"));
  first->setup(Settings(s0, "simulation.sessions[0]"));
  Session* second = b_.sim().add_session(
      std::make_unique<Session>(1, Random(2), 3, &b_.sim(), "1"));
  second->setup(Settings(s1, "simulation.sessions[1]"));
  RecordingEvent* e = AddEvent("e");
  // Before a session: its start; after: its last step.
  Hook(e, HookType::kSession, true, std::vector<int64_t>{3});
  Hook(e, HookType::kSession, false, std::vector<int64_t>{2});
  RecordingEvent* any = AddEvent("any");
  Hook(any, HookType::kSession, false);
  for (Session* s : {first, second}) {
    b_.sim().trigger_before_session(*s);
    b_.sim().trigger_after_session(*s);
  }
  EXPECT_EQ(Take(), (Strings{"any:after_session:0", "e:after_session:0",
                             "e:before_session:1", "any:after_session:1"}));
  EXPECT_EQ(b_.sim().sessions().size(), 2u);
}

TEST_F(SimulatorHookTest, AddEventHookRejectsInvalidHooks) {
  Market* m = b_.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  RecordingEvent* e = AddEvent("e");
  EventHook no_event;
  EXPECT_THROW(b_.sim().add_event_hook(no_event), SimulationError);
  EventHook before_execution;
  before_execution.event = e;
  before_execution.hook_type = HookType::kExecution;
  before_execution.is_before = true;
  EXPECT_THROW(b_.sim().add_event_hook(before_execution), SimulationError);
  EventHook order_for_market;
  order_for_market.event = e;
  order_for_market.hook_type = HookType::kOrder;
  order_for_market.specific_instance = m;
  EXPECT_THROW(b_.sim().add_event_hook(order_for_market), SimulationError);
  order_for_market.specific_instance = nullptr;
  order_for_market.specific_class = &IsMarketOfClass<IndexMarket>;
  EXPECT_THROW(b_.sim().add_event_hook(order_for_market), SimulationError);
}

// --- Building ---

TEST(SimulatorTest, LookupsAndGroups) {
  SimBuilder b;
  Market* a = b.AddMarket("A-0", R"({"tickSize": 1, "marketPrice": 100})", 0,
                          0.0, 0.0, "A");
  Market* a1 = b.AddMarket("A-1", R"({"tickSize": 1, "marketPrice": 100})", 0,
                           0.0, 0.0, "A");
  Market* c = b.AddMarket("C", R"({"tickSize": 1, "marketPrice": 100})");
  Simulator& sim = b.sim();
  EXPECT_EQ(sim.find_market("A-0"), a);
  EXPECT_EQ(sim.find_market("C"), c);
  EXPECT_EQ(sim.find_market("A"), nullptr);
  ASSERT_NE(sim.find_market_group("A"), nullptr);
  EXPECT_EQ(*sim.find_market_group("A"), (std::vector<const Market*>{a, a1}));
  EXPECT_EQ(sim.find_market_group("nope"), nullptr);
  EXPECT_EQ(&sim.market(1), a1);
  EXPECT_THROW(sim.market(3), SimulationError);
  ASSERT_EQ(sim.markets().size(), 3u);
  EXPECT_EQ(sim.markets()[2], c);

  TestAgent* x = b.AddAgent<TestAgent>(
      "x", R"({"cashAmount": 10, "assetVolume": 1})", 1, {0});
  EXPECT_EQ(sim.find_agent("x"), x);
  EXPECT_EQ(sim.find_agent("y"), nullptr);
  EXPECT_EQ(&sim.agent(0), x);
  EXPECT_EQ(sim.normal_frequency_agents(), (std::vector<Agent*>{x}));
  EXPECT_TRUE(sim.high_frequency_agents().empty());
}

TEST(SimulatorTest, DuplicateNamesAreRejected) {
  SimBuilder b;
  b.AddMarket("m", R"({"tickSize": 1, "marketPrice": 100})");
  Simulator& sim = b.sim();
  MarketInit mi;
  mi.market_id = 1;
  mi.simulator = &sim;
  mi.name = "m";
  try {
    sim.add_market(std::make_unique<Market>(std::move(mi)), "Group");
    ADD_FAILURE() << "duplicate market name accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "Group");
    EXPECT_NE(e.message().find("\"m\""), std::string::npos) << e.what();
  }
  EXPECT_EQ(sim.markets().size(), 1u);

  // An id is one market's (any id in [0, kMaxId): PAMS's tests build
  // markets by hand with ids of their choice).
  MarketInit skip;
  skip.market_id = 0;
  skip.simulator = &sim;
  skip.name = "other";
  EXPECT_THROW(sim.add_market(std::make_unique<Market>(std::move(skip)), "G"),
               SimulationError);

  b.AddAgent<TestAgent>("a", R"({"cashAmount": 1, "assetVolume": 1})", 1, {0});
  AgentInit ai;
  ai.agent_id = 1;
  ai.simulator = &sim.view();
  ai.name = "a";
  try {
    sim.add_agent(std::make_unique<TestAgent>(std::move(ai)), "Agents");
    ADD_FAILURE() << "duplicate agent name accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "Agents");
  }
  AgentInit bad_id;
  bad_id.agent_id = 0;
  bad_id.simulator = &sim.view();
  bad_id.name = "b";
  EXPECT_THROW(sim.add_agent(std::make_unique<TestAgent>(std::move(bad_id)), "B"),
               SimulationError);

  sim.add_session(std::make_unique<Session>(0, Random(1), 0, &sim, "s"));
  try {
    sim.add_session(std::make_unique<Session>(1, Random(1), 0, &sim, "s"));
    ADD_FAILURE() << "duplicate session name accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "simulation.sessions");
  }
}

// --- Executions and time ---

TEST(SimulatorTest, UpdateAgentsForExecutionMovesCashAndAssets) {
  SimBuilder b;
  b.AddMarket("m0", R"({"tickSize": 0.01, "marketPrice": 300})");
  b.AddMarket("m1", R"({"tickSize": 0.01, "marketPrice": 500})");
  TestAgent* a = b.AddAgent<TestAgent>(
      "a0", R"({"cashAmount": 1000.1, "assetVolume": 50})", 1, {0, 1});
  TestAgent* c = b.AddAgent<TestAgent>(
      "a1", R"({"cashAmount": 2000.3, "assetVolume": 7})", 2, {0, 1});
  const std::vector<ExecutionLog> logs = {
      {0, 0, 0, 1, 1, 2, 300.7, 3},
      {1, 0, 1, 0, 3, 4, 0.1, 3},
      {0, 0, 0, 1, 5, 6, 299.99, 11},
  };
  b.sim().update_agents_for_execution(logs);
  // PAMS: a -3201.59, {0: 64, 1: 47}; b 6201.99, {0: -7, 1: 10}.
  EXPECT_EQ(Bits(a->cash_amount()), Bits(-0x1.9032e147ae148p+11));
  EXPECT_EQ(Bits(c->cash_amount()), Bits(0x1.839fd70a3d70ap+12));
  EXPECT_EQ(a->get_asset_volume(0), 64);
  EXPECT_EQ(a->get_asset_volume(1), 47);
  EXPECT_EQ(c->get_asset_volume(0), -7);
  EXPECT_EQ(c->get_asset_volume(1), 10);
}

TEST(SimulatorTest, IndexMarketsAdvanceAfterTheirComponents) {
  // PAMS: Simulator(prng=random.Random(5)); m0 (300, drift 0, vol 0.01,
  // 100 shares), m1 (500, drift 0.001, vol 0.02, 300 shares), then the index
  // of both; three _update_times_on_markets.
  SimBuilder b(5);
  Market* m0 = b.AddMarket(
      "m0", R"({"tickSize": 0.01, "marketPrice": 300.0, "outstandingShares": 100})",
      10, 0.0, 0.01);
  Market* m1 = b.AddMarket(
      "m1", R"({"tickSize": 0.01, "marketPrice": 500.0, "outstandingShares": 300})",
      11, 0.001, 0.02);
  IndexMarket* idx = b.AddMarket<IndexMarket>(
      "idx", R"({"tickSize": 0.01, "marketPrice": 400.0, "markets": ["m0", "m1"]})",
      12);
  for (int i = 0; i < 3; ++i) b.Step();
  const double want_m0[] = {300.0, 0x1.31a753e84483bp+8, 0x1.2d5210c394e39p+8};
  const double want_m1[] = {500.0, 0x1.eec6f0a2f8d9fp+8, 0x1.deaca08aedafcp+8};
  const double want_idx[] = {450.0, 0x1.bf7f09744bc45p+8, 0x1.b255fc99177ccp+8};
  for (int t = 0; t < 3; ++t) {
    EXPECT_EQ(Bits(m0->get_fundamental_price(t)), Bits(want_m0[t])) << t;
    EXPECT_EQ(Bits(m1->get_fundamental_price(t)), Bits(want_m1[t])) << t;
    EXPECT_EQ(Bits(idx->get_fundamental_price(t)), Bits(want_idx[t])) << t;
    EXPECT_EQ(Bits(idx->compute_fundamental_index(t)), Bits(want_idx[t])) << t;
  }
  EXPECT_EQ(idx->get_market_price(), 400.0);
  EXPECT_EQ(idx->compute_market_index(), 450.0);
  EXPECT_EQ(idx->get_components(), (std::vector<const Market*>{m0, m1}));
  EXPECT_FALSE(idx->is_all_markets_running());
  b.SetRunning(true);
  EXPECT_TRUE(idx->is_all_markets_running());
  // The index has no path of its own in the Fundamentals.
  EXPECT_FALSE(b.sim().fundamentals().has_market(idx->market_id()));
}

TEST(SimulatorTest, WarnPrintsEachMessageOnce) {
  SimBuilder b;
  ::testing::internal::CaptureStderr();
  b.sim().warn("first message");
  b.sim().warn("second message");
  b.sim().warn("first message");
  std::string dynamic = "second ";
  dynamic += "message";
  b.sim().warn(dynamic);
  b.sim().warn("third");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err,
            "warning: first message\nwarning: second message\nwarning: third\n");
}

// Objects a program builds and keeps (PAMS's tests build them by hand): the
// simulator refers to them, finds them by id whatever the ids, and leaves
// them to their owner.
TEST(SimulatorTest, BorrowedObjectsAreFoundByIdAndNotDeleted) {
  std::vector<std::unique_ptr<Market>> markets;
  std::vector<std::unique_ptr<TestAgent>> agents;
  std::vector<std::string> record;
  {
    Simulator sim(Random(3));
    for (int id : {5, 2}) {
      MarketInit init{.market_id = id, .prng = Random(1)};
      init.simulator = &sim;
      init.name = "m" + std::to_string(id);
      markets.push_back(std::make_unique<Market>(std::move(init)));
      sim.add_market_borrowed(markets.back().get(), id == 5 ? "group" : "");
    }
    AgentInit init{.agent_id = 7, .prng = Random(2)};
    init.simulator = &sim.view();
    init.name = "a7";
    agents.push_back(std::make_unique<TestAgent>(std::move(init)));
    sim.add_agent_borrowed(agents.back().get(), "agents");
    EXPECT_EQ(&sim.market(5), markets[0].get());
    EXPECT_EQ(&sim.market(2), markets[1].get());
    EXPECT_EQ(sim.find_market(3), nullptr);
    EXPECT_THROW(sim.market(3), SimulationError);
    EXPECT_EQ(&sim.agent(7), agents[0].get());
    EXPECT_EQ(&sim.view().market(2), markets[1].get());
    EXPECT_EQ(sim.market_group(*markets[0]), "group");
    EXPECT_EQ(sim.market_group(*markets[1]), "");
    EXPECT_EQ(sim.agent_group(*agents[0]), "agents");
    // An id taken or out of range is refused.
    MarketInit again{.market_id = 5, .prng = Random(1)};
    again.simulator = &sim;
    again.name = "other";
    Market other(std::move(again));
    EXPECT_THROW(sim.add_market_borrowed(&other, ""), SimulationError);
    MarketInit huge{.market_id = Simulator::kMaxId, .prng = Random(1)};
    huge.simulator = &sim;
    huge.name = "huge";
    Market too_big(std::move(huge));
    EXPECT_THROW(sim.add_market_borrowed(&too_big, ""), SimulationError);
    // Hooks are kept in the order they were added.
    RecordingEvent event(&sim, 0, "e", &record);
    sim.add_event_borrowed(&event);
    EventHook hook;
    hook.event = &event;
    hook.hook_type = HookType::kMarket;
    hook.is_before = false;
    sim.add_event_hook(hook);
    hook.hook_type = HookType::kOrder;
    hook.is_before = true;
    sim.add_event_hook(hook);
    ASSERT_EQ(sim.event_hooks().size(), 2u);
    EXPECT_EQ(sim.event_hooks()[1].hook_type, HookType::kOrder);
  }
  // The simulator is gone; what it borrowed still works.
  EXPECT_EQ(markets[0]->name(), "m5");
  EXPECT_EQ(agents[0]->agent_id(), 7);
}

// PAMS's _update_times_on_markets(markets): the given markets, index
// markets after the others whatever the order given, each to its next step.
TEST(SimulatorTest, SomeMarketsMoveOnAsTheSimulatorMovesAll) {
  SimBuilder a(4), b(4);
  for (SimBuilder* s : {&a, &b}) {
    s->AddMarket("m0", R"({"tickSize": 0.01, "marketPrice": 300.0,
                           "outstandingShares": 100})", 1, 0.0, 0.01);
    s->AddMarket("m1", R"({"tickSize": 0.01, "marketPrice": 200.0,
                           "outstandingShares": 300})", 2, 0.0, 0.02);
    s->AddMarket<IndexMarket>("i", R"({"tickSize": 0.01, "marketPrice": 250.0,
                                       "markets": ["m0", "m1"]})");
  }
  for (int t = 0; t < 5; ++t) {
    a.sim().update_times_on_markets();
    std::vector<Market*> given = {&b.sim().market(2), &b.sim().market(1),
                                  &b.sim().market(0)};
    b.sim().update_times_on_markets(given);
    EXPECT_EQ(b.sim().time(), a.sim().time());
    for (int id = 0; id < 3; ++id) {
      EXPECT_EQ(Bits(b.sim().market(id).get_fundamental_price()),
                Bits(a.sim().market(id).get_fundamental_price()))
          << "market " << id << " step " << t;
    }
  }
  // One market alone moves alone.
  b.sim().update_time_on_market(b.sim().market(0));
  EXPECT_EQ(b.sim().market(0).get_time(), 5);
  EXPECT_EQ(b.sim().market(1).get_time(), 4);
}

}  // namespace
}  // namespace pams
