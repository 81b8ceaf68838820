// The logs of a simulation, one plain value type per PAMS log class. Markets
// and runners create them and hand them to the Logger (see logger.h) and to
// the agents and events concerned.
//
// Logs that describe a moment (SimulationBeginLog, SessionBeginLog,
// MarketStepEndLog, ...) hold references to the live objects: they are valid
// only during the callback that receives them.

#ifndef PAMS_LOGS_LOGS_H_
#define PAMS_LOGS_LOGS_H_

#include <cstdint>
#include <optional>

#include "pams/export.h"
#include "pams/market/order.h"

namespace pams {

class Market;
class Session;
class Simulator;

// An order accepted by a market.
struct PAMS_EXPORT OrderLog {
  int64_t order_id;
  int market_id;
  int64_t time;
  int agent_id;
  bool is_buy;
  OrderKind kind;
  int64_t volume;
  std::optional<double> price;
  std::optional<int64_t> ttl;

  // The accepted order (order_id and placed_at set), e.g. to build a Cancel.
  Order order() const {
    Order o;
    o.agent_id = agent_id;
    o.market_id = market_id;
    o.is_buy = is_buy;
    o.kind = kind;
    o.volume = volume;
    o.price = price;
    o.ttl = ttl;
    o.order_id = order_id;
    o.placed_at = time;
    return o;
  }
};

// A cancel accepted by a market.
struct PAMS_EXPORT CancelLog {
  int64_t order_id;
  int market_id;
  int64_t cancel_time;
  int64_t order_time;
  int agent_id;
  bool is_buy;
  OrderKind kind;
  int64_t volume;
  std::optional<double> price;
  std::optional<int64_t> ttl;
};

// An order removed from the book because its time to live ran out.
struct PAMS_EXPORT ExpirationLog {
  int64_t order_id;
  int market_id;
  int64_t time;
  int64_t order_time;
  int agent_id;
  bool is_buy;
  OrderKind kind;
  int64_t volume;
  std::optional<double> price;
  std::optional<int64_t> ttl;
};

// A trade between a buy order and a sell order.
struct PAMS_EXPORT ExecutionLog {
  int market_id;
  int64_t time;
  int buy_agent_id;
  int sell_agent_id;
  int64_t buy_order_id;
  int64_t sell_order_id;
  double price;
  int64_t volume;
  // What the market's transaction fee charged each side (0.0 without a fee;
  // negative: a rebate). Since PAMS's development branch.
  double buy_transaction_fee = 0.0;
  double sell_transaction_fee = 0.0;
};

struct PAMS_EXPORT SimulationBeginLog {
  const Simulator& simulator;
};

struct PAMS_EXPORT SimulationEndLog {
  const Simulator& simulator;
};

struct PAMS_EXPORT SessionBeginLog {
  const Session& session;
  const Simulator& simulator;
};

struct PAMS_EXPORT SessionEndLog {
  const Session& session;
  const Simulator& simulator;
};

struct PAMS_EXPORT MarketStepBeginLog {
  const Session& session;
  const Market& market;
  const Simulator& simulator;
};

struct PAMS_EXPORT MarketStepEndLog {
  const Session& session;
  const Market& market;
  const Simulator& simulator;
};

}  // namespace pams

#endif  // PAMS_LOGS_LOGS_H_
