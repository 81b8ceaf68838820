// TableLogger's rows: the columns and values of the CSV loggers of
// `pams run` (csv_loggers.h, events_csv_logger.h), typed: ids and volumes
// int64, prices and cash float64, names text, None null. The columns, their
// order and types are the log schema's (src/logs/log_schema.h); rows are
// appended column by column in its order, as the CSV loggers write them.

#include "interop/table_logger.h"

#include <algorithm>
#include <string>
#include <vector>

#include "logs/log_schema.h"
#include "pams/agents/agent.h"
#include "pams/market/market.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

using log_schema::AgentsColumn;
using log_schema::EventsColumn;
using log_schema::StepsColumn;
using Type = Column::Type;

// A table column's type: int64, float64 (prices too: a table keeps a price
// that PAMS has as an int as a float), or text.
Type TableType(log_schema::Type type) {
  switch (type) {
    case log_schema::Type::kInt:
      return Type::kInt64;
    case log_schema::Type::kFloat:
    case log_schema::Type::kPrice:
      return Type::kFloat64;
    case log_schema::Type::kText:
      break;
  }
  return Type::kString;
}

// The schema's columns [0, count) that are not fee-only (those come when a
// market charges a fee: AddFeeColumns).
template <size_t N>
std::shared_ptr<Table> NewTable(bool keep, const std::array<log_schema::Column, N>& columns,
                                size_t count = N) {
  if (!keep) return nullptr;
  auto table = std::make_shared<Table>();
  for (size_t i = 0; i < count; ++i) {
    const log_schema::Column& c = columns[i];
    if (!c.fee_only) table->columns.emplace_back(c.name, TableType(c.type));
  }
  return table;
}

template <size_t N>
void AddFeeColumns(Table* table, const std::array<log_schema::Column, N>& columns) {
  for (const log_schema::Column& c : columns) {
    if (c.fee_only) table->columns.emplace_back(c.name, TableType(c.type));
  }
}

// The agents table's columns from the schema: those before asset_volumes,
// which becomes a column per market (process_simulation_end_log).
static_assert(AgentsColumn::kAssetVolumes == static_cast<AgentsColumn>(
                                                 static_cast<size_t>(AgentsColumn::kCount) - 1),
              "asset_volumes is the agents' last column");
constexpr size_t kAgentsFixedColumns = static_cast<size_t>(AgentsColumn::kAssetVolumes);

}  // namespace

TableLogger::TableLogger(bool steps, bool agents, bool events)
    : steps_(NewTable(steps, log_schema::kSteps)),
      // Its asset_volume_<market_id> columns are added at the end, when the
      // markets are known.
      agents_(NewTable(agents, log_schema::kAgents, kAgentsFixedColumns)),
      events_(NewTable(events, log_schema::kEvents)) {}

std::shared_ptr<const Table> TableLogger::Snapshot(const std::shared_ptr<Table>& table) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return table;
}

Table& TableLogger::Writable(std::shared_ptr<Table>& table) {
  // Only this logger holds it: nobody reads it. Otherwise a snapshot holds
  // it and it stays as it is.
  if (table.use_count() > 1) table = std::make_shared<Table>(*table);
  return *table;
}

void TableLogger::process_simulation_begin_log(const SimulationBeginLog& log) {
  bool with_fees = false;
  for (const auto& market : log.simulator.market_objects()) {
    if (market->transaction_fee() != nullptr) with_fees = true;
  }
  if (!with_fees || with_fees_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  with_fees_ = true;
  if (steps_ != nullptr) AddFeeColumns(&Writable(steps_), log_schema::kSteps);
  if (events_ != nullptr) AddFeeColumns(&Writable(events_), log_schema::kEvents);
}

void TableLogger::process_market_step_end_log(const MarketStepEndLog& log) {
  if (steps_ == nullptr) return;
  const Market& m = log.market;
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Column>& c = Writable(steps_).columns;
  // The fee column is there when with_fees_.
  for (size_t i = 0; i < c.size(); ++i) {
    switch (static_cast<StepsColumn>(i)) {
      case StepsColumn::kSessionId:
        c[i].AppendInt(log.session.session_id());
        break;
      case StepsColumn::kMarketId:
        c[i].AppendInt(m.market_id());
        break;
      case StepsColumn::kMarketName:
        c[i].AppendString(m.name());
        break;
      case StepsColumn::kMarketTime:
        c[i].AppendInt(m.get_time());
        break;
      case StepsColumn::kMarketPrice:
        c[i].AppendDouble(m.get_market_price());
        break;
      case StepsColumn::kFundamentalPrice:
        c[i].AppendDouble(m.get_fundamental_price());
        break;
      case StepsColumn::kMidPrice:
        c[i].AppendDouble(m.get_mid_price());
        break;
      case StepsColumn::kBestBuyPrice:
        c[i].AppendDouble(m.get_best_buy_price());
        break;
      case StepsColumn::kBestSellPrice:
        c[i].AppendDouble(m.get_best_sell_price());
        break;
      case StepsColumn::kExecutedVolume:
        c[i].AppendInt(m.get_executed_volume());
        break;
      case StepsColumn::kNBuyBook:
        c[i].AppendInt(static_cast<int64_t>(m.buy_order_book().size()));
        break;
      case StepsColumn::kNSellBook:
        c[i].AppendInt(static_cast<int64_t>(m.sell_order_book().size()));
        break;
      case StepsColumn::kNBuyOrders:
        c[i].AppendInt(m.get_n_buy_order());
        break;
      case StepsColumn::kNSellOrders:
        c[i].AppendInt(m.get_n_sell_order());
        break;
      case StepsColumn::kTransactionFeeRevenue:
        c[i].AppendDouble(m.get_transaction_fee_revenue());
        break;
      case StepsColumn::kCount:
        break;
    }
  }
}

void TableLogger::process_simulation_end_log(const SimulationEndLog& log) {
  if (agents_ == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  Table& table = Writable(agents_);
  // A column per market, in market-id order, in place of asset_volumes.
  std::vector<int> market_ids;
  for (const auto& market : log.simulator.markets()) market_ids.push_back(market->market_id());
  std::sort(market_ids.begin(), market_ids.end());
  for (int id : market_ids) {
    table.columns.emplace_back(log_schema::kAssetVolumeColumnPrefix + std::to_string(id),
                               Type::kInt64);
  }
  std::vector<Column>& c = table.columns;
  for (const auto& agent : log.simulator.agents()) {
    for (size_t i = 0; i < log_schema::kAgents.size(); ++i) {
      switch (static_cast<AgentsColumn>(i)) {
        case AgentsColumn::kAgentId:
          c[i].AppendInt(agent->agent_id());
          break;
        case AgentsColumn::kName:
          c[i].AppendString(agent->name());
          break;
        case AgentsColumn::kClass:
          c[i].AppendString(agent->class_name());
          break;
        case AgentsColumn::kCashAmount:
          c[i].AppendDouble(agent->cash_amount());
          break;
        case AgentsColumn::kAssetVolumes: {
          const std::vector<int> ids = agent->accessible_market_ids();
          for (size_t j = 0; j < market_ids.size(); ++j) {
            // Markets the agent cannot trade in are null, as the CSV leaves
            // them out.
            const int id = market_ids[j];
            if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
              c[kAgentsFixedColumns + j].AppendInt(agent->get_asset_volume(id));
            } else {
              c[kAgentsFixedColumns + j].AppendNull();
            }
          }
          break;
        }
        case AgentsColumn::kCount:
          break;
      }
    }
  }
}

// One events row: an order-like log's (order, cancel, expiration; `order`
// set) or an execution's (`execution` set).
void TableLogger::AppendEventRow(const char* kind, int64_t time, int market_id,
                                 const OrderRow* order, const ExecutionLog* execution) {
  std::vector<Column>& c = Writable(events_).columns;
  // The fee columns are there when with_fees_.
  for (size_t i = 0; i < c.size(); ++i) {
    switch (static_cast<EventsColumn>(i)) {
      case EventsColumn::kKind:
        c[i].AppendString(kind);
        break;
      case EventsColumn::kTime:
        c[i].AppendInt(time);
        break;
      case EventsColumn::kMarketId:
        c[i].AppendInt(market_id);
        break;
      case EventsColumn::kAgentId:
        c[i].AppendInt(order ? std::optional<int64_t>(order->agent_id) : std::nullopt);
        break;
      case EventsColumn::kOrderId:
        c[i].AppendInt(order ? std::optional<int64_t>(order->order_id) : std::nullopt);
        break;
      case EventsColumn::kSide:
        if (order) {
          c[i].AppendString(order->is_buy ? "buy" : "sell");
        } else {
          c[i].AppendNull();
        }
        break;
      case EventsColumn::kPrice:
        c[i].AppendDouble(order ? order->price : std::optional<double>(execution->price));
        break;
      case EventsColumn::kVolume:
        c[i].AppendInt(order ? order->volume : execution->volume);
        break;
      case EventsColumn::kTtl:
        c[i].AppendInt(order ? order->ttl : std::nullopt);
        break;
      case EventsColumn::kBuyAgentId:
        c[i].AppendInt(execution ? std::optional<int64_t>(execution->buy_agent_id) : std::nullopt);
        break;
      case EventsColumn::kBuyOrderId:
        c[i].AppendInt(execution ? std::optional<int64_t>(execution->buy_order_id) : std::nullopt);
        break;
      case EventsColumn::kSellAgentId:
        c[i].AppendInt(execution ? std::optional<int64_t>(execution->sell_agent_id)
                                 : std::nullopt);
        break;
      case EventsColumn::kSellOrderId:
        c[i].AppendInt(execution ? std::optional<int64_t>(execution->sell_order_id)
                                 : std::nullopt);
        break;
      case EventsColumn::kBuyTransactionFee:
        c[i].AppendDouble(execution ? std::optional<double>(execution->buy_transaction_fee)
                                    : std::nullopt);
        break;
      case EventsColumn::kSellTransactionFee:
        c[i].AppendDouble(execution ? std::optional<double>(execution->sell_transaction_fee)
                                    : std::nullopt);
        break;
      case EventsColumn::kCount:
        break;
    }
  }
}

template <typename OrderLikeLog>
void TableLogger::AppendOrderRow(const char* kind, const OrderLikeLog& log, int64_t time) {
  if (events_ == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const OrderRow order{log.agent_id, log.order_id, log.is_buy, log.price, log.volume, log.ttl};
  AppendEventRow(kind, time, log.market_id, &order, nullptr);
}

void TableLogger::process_order_log(const OrderLog& log) { AppendOrderRow("order", log, log.time); }

void TableLogger::process_cancel_log(const CancelLog& log) {
  AppendOrderRow("cancel", log, log.cancel_time);
}

void TableLogger::process_expiration_log(const ExpirationLog& log) {
  AppendOrderRow("expiration", log, log.time);
}

void TableLogger::process_execution_log(const ExecutionLog& log) {
  if (events_ == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  AppendEventRow("execution", log.time, log.market_id, nullptr, &log);
}

}  // namespace pams::python
