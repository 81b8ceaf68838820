// SimulationJournal: replaying what a run recorded into a replica built from
// the same config and seed gives bit-identical markets, agents' public state,
// session and time (everything an agent's view shows), whole or in pieces.

#include "simulator/simulation_journal.h"

#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"
#include "runners/runner_access.h"

namespace pams {
namespace {

Json Config() {
  return ParseJsonFile(std::string(PAMS_SOURCE_DIR) +
                       "/tests/differential/configs/events_all.json");
}

// Everything agents can read of a market, as text (doubles by bit pattern).
std::string Describe(const Market& m) {
  std::string out = std::to_string(m.get_time());
  if (m.is_running()) out.append(" running");
  auto bits = [&](double x) {
    out.append(" ").append(std::to_string(std::bit_cast<uint64_t>(x)));
  };
  for (double x : m.market_prices()) bits(x);
  for (double x : m.mid_prices()) bits(x);
  for (double x : m.last_executed_prices()) bits(x);
  for (double x : m.fundamental_prices()) bits(x);
  for (int64_t v : m.executed_volumes()) out.append(" ").append(std::to_string(v));
  for (const OrderBook* book : {&m.buy_order_book(), &m.sell_order_book()}) {
    book->for_each([&](const Order& o) {
      out.append(" [").append(std::to_string(o.order_id)).append(" ");
      out.append(std::to_string(o.volume)).append(" ");
      out.append(std::to_string(o.placed_at)).append("]");
      if (o.price) bits(*o.price);
    });
  }
  return out;
}

// Everything an agent's view shows of the simulation, as text.
std::string Describe(const Simulator& sim) {
  std::string out;
  for (const Market* m : sim.markets()) out += Describe(*m) + "\n";
  const SimulatorView& view = sim.view();
  out += "time " + std::to_string(view.time());
  if (view.current_session() != nullptr) {
    out += " session " + std::to_string(view.current_session()->session_id());
  }
  out += "\n";
  for (int id = 0; id < view.num_agents(); ++id) {
    const AgentView a = view.agent(id);
    out += std::to_string(std::bit_cast<uint64_t>(a.cash_amount()));
    for (int market_id : a.accessible_market_ids()) {
      // (Appended piece by piece: GCC 12 warns falsely of overlapping
      // copies in a chain of string +.)
      out.append(" ").append(std::to_string(market_id)).append("=");
      out.append(std::to_string(a.get_asset_volume(market_id)));
    }
    out += "\n";
  }
  return out;
}

// Takes a snapshot of the simulation, and of the journal's end, at the end
// of each session.
class Snapshots : public Logger {
 public:
  explicit Snapshots(const SimulationJournal* journal) : journal_(journal) {}
  void process_session_end_log(const SessionEndLog& log) override {
    taken.emplace_back(journal_->end(), Describe(log.simulator));
  }
  std::vector<std::pair<uint64_t, std::string>> taken;

 private:
  const SimulationJournal* journal_;
};

TEST(SimulationJournalTest, ReplayMakesAReplicaIdentical) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SimulationJournal journal;
  Snapshots snapshots(&journal);
  SequentialRunner main(Config(), Random(11), &snapshots, registry);
  SequentialRunner replica(Config(), Random(11), nullptr, registry);
  main.setup();
  internal::RunnerAccess::SetReplica(&replica);
  replica.setup();
  SimulationJournal::Attach(&main.simulator(), &journal);
  main.run();
  ASSERT_EQ(snapshots.taken.size(), 4u);
  ASSERT_GT(journal.end(), 1000u);
  // Session by session, discarding what was applied, as the process runner
  // does: after each piece the replica equals the snapshot.
  uint64_t applied = 0;
  for (const auto& [position, expected] : snapshots.taken) {
    SimulationJournal::Replay(journal.since(applied).substr(0, position - applied),
                          &replica.simulator());
    journal.discard_before(position);
    applied = position;
    EXPECT_EQ(Describe(replica.simulator()), expected)
        << "after " << position << " bytes";
  }
}

TEST(SimulationJournalTest, ReplaysMarketsMadeInaccessibleAndAccessibleAgain) {
  // PAMS's `del agent.asset_volumes[id]` and a later `[id] = v`, between
  // steps: a replica hears both.
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SimulationJournal journal;
  SequentialRunner main(Config(), Random(5), nullptr, registry);
  SequentialRunner replica(Config(), Random(5), nullptr, registry);
  main.setup();
  internal::RunnerAccess::SetReplica(&replica);
  replica.setup();
  SimulationJournal::Attach(&main.simulator(), &journal);
  Agent& agent = *main.simulator().agents()[0];
  const int market_id = agent.accessible_market_ids().front();
  agent.set_market_inaccessible(market_id);
  EXPECT_FALSE(agent.is_market_accessible(market_id));
  EXPECT_THROW(agent.set_market_inaccessible(market_id), SimulationError);
  SimulationJournal::Replay(journal.since(0), &replica.simulator());
  EXPECT_EQ(Describe(replica.simulator()), Describe(main.simulator()));
  const uint64_t applied = journal.end();
  agent.set_market_accessible(market_id);
  agent.set_asset_volume(market_id, 7);
  SimulationJournal::Replay(journal.since(applied), &replica.simulator());
  EXPECT_EQ(Describe(replica.simulator()), Describe(main.simulator()));
  EXPECT_EQ(replica.simulator().agents()[0]->get_asset_volume(market_id), 7);
}

TEST(SimulationJournalTest, PositionsSurviveDiscarding) {
  SimulationJournal journal;
  journal.RecordExecution(0);
  const uint64_t first = journal.end();
  journal.RecordSetRunning(0, true);
  journal.discard_before(first);
  EXPECT_EQ(journal.begin(), first);
  EXPECT_EQ(journal.since(first).size(), journal.end() - first);
  EXPECT_THROW(journal.since(0), SimulationError);
}

TEST(SimulationJournalTest, CorruptBytesAreAnError) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SequentialRunner replica(Config(), Random(1), nullptr, registry);
  replica.setup();
  EXPECT_THROW(SimulationJournal::Replay(std::string("\x63\0\0\0\0", 5),
                                     &replica.simulator()),
               SimulationError);
  SimulationJournal journal;
  journal.RecordExecution(99);  // no such market
  EXPECT_THROW(SimulationJournal::Replay(journal.since(0), &replica.simulator()),
               SimulationError);
  EXPECT_THROW(SimulationJournal::Replay(std::string("\x01\0", 2),
                                     &replica.simulator()),
               SimulationError);  // truncated
}

}  // namespace
}  // namespace pams
