#include "market/market_journal.h"

#include <vector>

#include "pams/errors.h"
#include "pams/logs/logs.h"
#include "pams/market/market.h"
#include "pams/simulator/simulator.h"
#include "pams/util/state.h"
#include "market/wire.h"

namespace pams {

namespace {

enum Op : uint8_t {
  kUpdateTime = 1,
  kAddOrder,
  kCancel,
  kExecution,
  kSetRunning,
  kSetFundamentalPrice,
};

}  // namespace

std::string_view MarketJournal::since(uint64_t position) const {
  if (position < base_ || position > end()) {
    throw SimulationError("market journal position out of range");
  }
  return std::string_view(buffer_).substr(position - base_);
}

void MarketJournal::discard_before(uint64_t position) {
  if (position <= base_) return;
  if (position > end()) throw SimulationError("market journal position out of range");
  buffer_.erase(0, position - base_);
  base_ = position;
}

void MarketJournal::RecordUpdateTime(int market_id, double next) {
  StateWriter w(&buffer_);
  w.write(kUpdateTime);
  w.write(market_id);
  w.write(next);
}

void MarketJournal::RecordAddOrder(int market_id, const Order& order) {
  StateWriter w(&buffer_);
  w.write(kAddOrder);
  w.write(market_id);
  WriteOrder(order, w);
}

void MarketJournal::RecordCancel(int market_id, const Cancel& cancel) {
  StateWriter w(&buffer_);
  w.write(kCancel);
  w.write(market_id);
  WriteOrder(cancel.order, w);
}

void MarketJournal::RecordExecution(int market_id) {
  StateWriter w(&buffer_);
  w.write(kExecution);
  w.write(market_id);
}

void MarketJournal::RecordSetRunning(int market_id, bool running) {
  StateWriter w(&buffer_);
  w.write(kSetRunning);
  w.write(market_id);
  w.write(running);
}

void MarketJournal::RecordSetFundamentalPrice(int market_id, int64_t time,
                                              double price) {
  StateWriter w(&buffer_);
  w.write(kSetFundamentalPrice);
  w.write(market_id);
  w.write(time);
  w.write(price);
}

void MarketJournal::Attach(const Simulator& simulator, MarketJournal* journal) {
  for (const auto& market : simulator.market_objects()) market->set_journal(journal);
}

void MarketJournal::Replay(std::string_view bytes, Simulator* simulator) {
  StateReader r(bytes);
  std::vector<ExecutionLog> logs;
  const int n_markets = static_cast<int>(simulator->markets().size());
  while (!r.at_end()) {
    const uint8_t op = r.read<uint8_t>();
    const int market_id = r.read<int>();
    if (market_id < 0 || market_id >= n_markets) {
      throw SimulationError("market journal names market " +
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
        throw SimulationError("corrupt market journal (op " +
                              std::to_string(op) + ")");
    }
  }
}

}  // namespace pams
