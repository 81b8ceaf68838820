// SimulationJournal: every change to what agents can see of a simulation
// (simulator_view.h), in order, as compact bytes, so that a replica of the
// simulation (built from the same config and seed, with no logger) can be
// brought to the same state by replaying them. The multi-process runner
// keeps its worker processes in step this way: a worker receives only the
// bytes recorded since it was last brought up to date, never whole
// histories, so the cost per task does not grow with the length of the run.
//
// What is recorded:
//   * markets: each Market::update_time, add_order (the order as it reached
//     the market, after event hooks), cancel_order, execution,
//     set_is_running and change_fundamental_price; replaying repeats the
//     same calls on the replica's markets, and the engine is deterministic,
//     so they end up bit-identical (a replica's Fundamentals are not used:
//     recorded fundamental prices are set directly);
//   * agents: each change of an agent's cash, asset volumes or accessible
//     markets (made accessible or inaccessible), as the new value;
//   * the simulator: each change of the current session and of the time.
//
// Positions are byte offsets from the start of the recording; discarding
// old bytes keeps positions valid. One thread: the simulation thread.
// Private to the library.

#ifndef PAMS_SRC_SIMULATOR_SIMULATION_JOURNAL_H_
#define PAMS_SRC_SIMULATOR_SIMULATION_JOURNAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "pams/market/order.h"

namespace pams {

class Simulator;

class SimulationJournal {
 public:
  SimulationJournal() = default;
  SimulationJournal(const SimulationJournal&) = delete;
  SimulationJournal& operator=(const SimulationJournal&) = delete;

  // Positions of the first kept byte and of the end of the recording.
  uint64_t begin() const { return base_; }
  uint64_t end() const { return base_ + buffer_.size(); }
  // Bytes kept (end() - begin()).
  uint64_t size() const { return buffer_.size(); }
  // The bytes from `position` to the end. REQUIRES: begin() <= position <= end().
  std::string_view since(uint64_t position) const;
  // Forgets the bytes before `position` (every replica has them).
  void discard_before(uint64_t position);

  // Makes the simulator, its markets and its agents record their changes
  // into `journal` (null: stop recording).
  static void Attach(Simulator* simulator, SimulationJournal* journal);

  // Applies recorded bytes, from an entry boundary, to `simulator`. Throws
  // SimulationError on malformed bytes or a market, agent or session the
  // simulator does not have.
  static void Replay(std::string_view bytes, Simulator* simulator);

  // --- Recording (Market, Agent, Simulator). ---
  void RecordUpdateTime(int market_id, double next_fundamental_price);
  void RecordAddOrder(int market_id, const Order& order);
  void RecordCancel(int market_id, const Cancel& cancel);
  void RecordExecution(int market_id);
  void RecordSetRunning(int market_id, bool running);
  void RecordSetFundamentalPrice(int market_id, int64_t time, double price);
  void RecordAgentCash(int agent_id, double cash);
  void RecordAgentVolume(int agent_id, int market_id, int64_t volume);
  void RecordAgentMarketAccessible(int agent_id, int market_id);
  void RecordAgentMarketInaccessible(int agent_id, int market_id);
  void RecordSession(int session_id);
  void RecordTime(int64_t time);

 private:
  std::string buffer_;
  uint64_t base_ = 0;
};

}  // namespace pams

#endif  // PAMS_SRC_SIMULATOR_SIMULATION_JOURNAL_H_
