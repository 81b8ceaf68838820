#include "simulator/simulation_journal.h"

#include <vector>

#include "agents/agent_access.h"
#include "market/wire.h"
#include "pams/agents/agent.h"
#include "pams/errors.h"
#include "pams/logs/logs.h"
#include "pams/market/market.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"
#include "pams/util/state.h"
#include "simulator/simulator_access.h"

namespace pams {

namespace {

enum Op : uint8_t {
  kUpdateTime = 1,
  kAddOrder,
  kCancel,
  kExecution,
  kSetRunning,
  kSetFundamentalPrice,
  // Entries below name no market.
  kAgentCash,
  kAgentVolume,
  kAgentMarketAccessible,
  kSession,
  kTime,
  kAgentMarketInaccessible,  // last: earlier entries keep their values
};

}  // namespace

std::string_view SimulationJournal::since(uint64_t position) const {
  if (position < base_ || position > end()) {
    throw SimulationError("simulation journal position out of range");
  }
  return std::string_view(buffer_).substr(position - base_);
}

void SimulationJournal::discard_before(uint64_t position) {
  if (position <= base_) return;
  if (position > end()) throw SimulationError("simulation journal position out of range");
  buffer_.erase(0, position - base_);
  base_ = position;
}

void SimulationJournal::RecordUpdateTime(int market_id, double next) {
  StateWriter w(&buffer_);
  w.write(kUpdateTime);
  w.write(market_id);
  w.write(next);
}

void SimulationJournal::RecordAddOrder(int market_id, const Order& order) {
  StateWriter w(&buffer_);
  w.write(kAddOrder);
  w.write(market_id);
  WriteOrder(order, w);
}

void SimulationJournal::RecordCancel(int market_id, const Cancel& cancel) {
  StateWriter w(&buffer_);
  w.write(kCancel);
  w.write(market_id);
  WriteOrder(cancel.order, w);
}

void SimulationJournal::RecordExecution(int market_id) {
  StateWriter w(&buffer_);
  w.write(kExecution);
  w.write(market_id);
}

void SimulationJournal::RecordSetRunning(int market_id, bool running) {
  StateWriter w(&buffer_);
  w.write(kSetRunning);
  w.write(market_id);
  w.write(running);
}

void SimulationJournal::RecordSetFundamentalPrice(int market_id, int64_t time,
                                              double price) {
  StateWriter w(&buffer_);
  w.write(kSetFundamentalPrice);
  w.write(market_id);
  w.write(time);
  w.write(price);
}

void SimulationJournal::RecordAgentCash(int agent_id, double cash) {
  StateWriter w(&buffer_);
  w.write(kAgentCash);
  w.write(agent_id);
  w.write(cash);
}

void SimulationJournal::RecordAgentVolume(int agent_id, int market_id,
                                          int64_t volume) {
  StateWriter w(&buffer_);
  w.write(kAgentVolume);
  w.write(agent_id);
  w.write(market_id);
  w.write(volume);
}

void SimulationJournal::RecordAgentMarketAccessible(int agent_id,
                                                    int market_id) {
  StateWriter w(&buffer_);
  w.write(kAgentMarketAccessible);
  w.write(agent_id);
  w.write(market_id);
}

void SimulationJournal::RecordAgentMarketInaccessible(int agent_id, int market_id) {
  StateWriter w(&buffer_);
  w.write(kAgentMarketInaccessible);
  w.write(agent_id);
  w.write(market_id);
}

void SimulationJournal::RecordSession(int session_id) {
  StateWriter w(&buffer_);
  w.write(kSession);
  w.write(session_id);
}

void SimulationJournal::RecordTime(int64_t time) {
  StateWriter w(&buffer_);
  w.write(kTime);
  w.write(time);
}

void SimulationJournal::Attach(Simulator* simulator, SimulationJournal* journal) {
  for (const auto& market : simulator->market_objects()) {
    market->set_journal(journal);
  }
  for (const auto& agent : simulator->agents()) {
    internal::AgentAccess::SetJournal(agent.get(), journal);
  }
  internal::SimulatorAccess::SetJournal(simulator, journal);
}

namespace {

// Applies one entry that names no market.
void ReplaySimulatorEntry(uint8_t op, StateReader& r, Simulator* simulator) {
  auto agent = [&](int id) -> Agent& {
    if (id < 0 || static_cast<size_t>(id) >= simulator->agents().size()) {
      throw SimulationError("simulation journal names agent " +
                            std::to_string(id) + ", which the replica lacks");
    }
    return *simulator->agents()[id];
  };
  switch (op) {
    case kAgentCash: {
      const int id = r.read<int>();
      agent(id).set_cash_amount(r.read<double>());
      return;
    }
    case kAgentVolume: {
      const int id = r.read<int>();
      const int market_id = r.read<int>();
      agent(id).set_asset_volume(market_id, r.read<int64_t>());
      return;
    }
    case kAgentMarketAccessible: {
      const int id = r.read<int>();
      agent(id).set_market_accessible(r.read<int>());
      return;
    }
    case kAgentMarketInaccessible: {
      const int id = r.read<int>();
      agent(id).set_market_inaccessible(r.read<int>());
      return;
    }
    case kSession: {
      const int id = r.read<int>();
      if (id < 0 || static_cast<size_t>(id) >= simulator->sessions().size()) {
        throw SimulationError("simulation journal names session " +
                              std::to_string(id) + ", which the replica lacks");
      }
      simulator->set_current_session(simulator->sessions()[id].get());
      return;
    }
    case kTime:
      internal::SimulatorAccess::SetTime(simulator, r.read<int64_t>());
      return;
    default:
      throw SimulationError("corrupt simulation journal (op " +
                            std::to_string(op) + ")");
  }
}

}  // namespace

void SimulationJournal::Replay(std::string_view bytes, Simulator* simulator) {
  StateReader r(bytes);
  std::vector<ExecutionLog> logs;
  const int n_markets = static_cast<int>(simulator->markets().size());
  while (!r.at_end()) {
    const uint8_t op = r.read<uint8_t>();
    if (op >= kAgentCash) {
      ReplaySimulatorEntry(op, r, simulator);
      continue;
    }
    const int market_id = r.read<int>();
    if (market_id < 0 || market_id >= n_markets) {
      throw SimulationError("simulation journal names market " +
                            std::to_string(market_id) + ", which the replica lacks");
    }
    Market& market = simulator->market(market_id);
    switch (op) {
      case kUpdateTime:
        market.update_time(r.read<double>());
        break;
      case kAddOrder: {
        Order order = ReadOrder(r);
        market.add_order(&order);
        break;
      }
      case kCancel:
        market.cancel_order(Cancel{ReadOrder(r)});
        break;
      case kExecution:
        market.execution(&logs);
        break;
      case kSetRunning:
        market.set_is_running(r.read<bool>());
        break;
      case kSetFundamentalPrice: {
        const int64_t time = r.read<int64_t>();
        market.ReplaySetFundamentalPrice(time, r.read<double>());
        break;
      }
      default:
        throw SimulationError("corrupt simulation journal (op " +
                              std::to_string(op) + ")");
    }
  }
}

}  // namespace pams
