// MarketJournal: every change made to the markets of a simulation, in order,
// as compact bytes, so that a replica of the simulation (built from the same
// config and seed, with no logger) can be brought to the same state by
// replaying them. The multi-process runner keeps its worker processes'
// markets in step this way: a worker receives only the bytes recorded since
// its last task, never whole histories, so the cost per task does not grow
// with the length of the run.
//
// What is recorded: each call of Market::update_time, add_order (the order
// as it reached the market, after event hooks), cancel_order, execution,
// set_is_running and change_fundamental_price. Replaying repeats the same
// calls on the replica's markets; the engine is deterministic, so the
// replica's markets end up bit-identical. (A replica's Fundamentals are not
// used: recorded fundamental prices are set directly.)
//
// Positions are byte offsets from the start of the recording; discarding
// old bytes keeps positions valid. One thread: the simulation thread.

#ifndef PAMS_SRC_MARKET_MARKET_JOURNAL_H_
#define PAMS_SRC_MARKET_MARKET_JOURNAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "pams/market/order.h"

namespace pams {

class Simulator;

class MarketJournal {
 public:
  MarketJournal() = default;
  MarketJournal(const MarketJournal&) = delete;
  MarketJournal& operator=(const MarketJournal&) = delete;

  // Positions of the first kept byte and of the end of the recording.
  uint64_t begin() const { return base_; }
  uint64_t end() const { return base_ + buffer_.size(); }
  // The bytes from `position` to the end. REQUIRES: begin() <= position <= end().
  std::string_view since(uint64_t position) const;
  // Forgets the bytes before `position` (every replica has them).
  void discard_before(uint64_t position);

  // Makes every market of `simulator` record its changes into `journal`
  // (null: stop recording).
  static void Attach(const Simulator& simulator, MarketJournal* journal);

  // Applies recorded bytes, from an entry boundary, to the markets of
  // `simulator`. Throws SimulationError on malformed bytes or a market the
  // simulator does not have.
  static void Replay(std::string_view bytes, Simulator* simulator);

  // --- Recording, called by Market. ---
  void RecordUpdateTime(int market_id, double next_fundamental_price);
  void RecordAddOrder(int market_id, const Order& order);
  void RecordCancel(int market_id, const Cancel& cancel);
  void RecordExecution(int market_id);
  void RecordSetRunning(int market_id, bool running);
  void RecordSetFundamentalPrice(int market_id, int64_t time, double price);

 private:
  std::string buffer_;
  uint64_t base_ = 0;
};

}  // namespace pams

#endif  // PAMS_SRC_MARKET_MARKET_JOURNAL_H_
