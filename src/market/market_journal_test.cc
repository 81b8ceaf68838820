// MarketJournal: replaying what a run recorded into a replica built from the
// same config and seed gives bit-identical markets, whole or in pieces.

#include "market/market_journal.h"

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

// Takes a snapshot of every market, and of the journal's end, at the end of
// each session.
class Snapshots : public Logger {
 public:
  explicit Snapshots(const MarketJournal* journal) : journal_(journal) {}
  void process_session_end_log(const SessionEndLog& log) override {
    std::string all;
    for (const Market* m : log.simulator.markets()) all += Describe(*m) + "\n";
    taken.emplace_back(journal_->end(), all);
  }
  std::vector<std::pair<uint64_t, std::string>> taken;

 private:
  const MarketJournal* journal_;
};

TEST(MarketJournalTest, ReplayMakesAReplicaIdentical) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  MarketJournal journal;
  Snapshots snapshots(&journal);
  SequentialRunner main(Config(), Random(11), &snapshots, registry);
  SequentialRunner replica(Config(), Random(11), nullptr, registry);
  main.setup();
  replica.set_replica();
  replica.setup();
  MarketJournal::Attach(main.simulator(), &journal);
  main.run();
  ASSERT_EQ(snapshots.taken.size(), 4u);
  ASSERT_GT(journal.end(), 1000u);
  // Session by session, discarding what was applied, as the process runner
  // does: after each piece the replica equals the snapshot.
  uint64_t applied = 0;
  for (const auto& [position, expected] : snapshots.taken) {
    MarketJournal::Replay(journal.since(applied).substr(0, position - applied),
                          &replica.simulator());
    journal.discard_before(position);
    applied = position;
    std::string all;
    for (const Market* m : replica.simulator().markets()) all += Describe(*m) + "\n";
    EXPECT_EQ(all, expected) << "after " << position << " bytes";
  }
}

TEST(MarketJournalTest, PositionsSurviveDiscarding) {
  MarketJournal journal;
  journal.RecordExecution(0);
  const uint64_t first = journal.end();
  journal.RecordSetRunning(0, true);
  journal.discard_before(first);
  EXPECT_EQ(journal.begin(), first);
  EXPECT_EQ(journal.since(first).size(), journal.end() - first);
  EXPECT_THROW(journal.since(0), SimulationError);
}

TEST(MarketJournalTest, CorruptBytesAreAnError) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SequentialRunner replica(Config(), Random(1), nullptr, registry);
  replica.setup();
  EXPECT_THROW(MarketJournal::Replay(std::string("\x63\0\0\0\0", 5),
                                     &replica.simulator()),
               SimulationError);
  MarketJournal journal;
  journal.RecordExecution(99);  // no such market
  EXPECT_THROW(MarketJournal::Replay(journal.since(0), &replica.simulator()),
               SimulationError);
  EXPECT_THROW(MarketJournal::Replay(std::string("\x01\0", 2),
                                     &replica.simulator()),
               SimulationError);  // truncated
}

}  // namespace
}  // namespace pams
