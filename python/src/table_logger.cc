// TableLogger's rows: the columns and values of the CSV loggers of
// `pams run` (csv_loggers.h, events_csv_logger.h), typed: ids and volumes
// int64, prices and cash float64, names text, None null.

#include "table_logger.h"

#include <algorithm>
#include <string>
#include <vector>

#include "pams/agents/agent.h"
#include "pams/market/market.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

using Type = Column::Type;

std::shared_ptr<Table> NewTable(bool keep, std::vector<std::pair<const char*, Type>> columns) {
  if (!keep) return nullptr;
  auto table = std::make_shared<Table>();
  for (const auto& [name, type] : columns) table->columns.emplace_back(name, type);
  return table;
}

}  // namespace

TableLogger::TableLogger(bool steps, bool agents, bool events)
    : steps_(NewTable(steps, {{"session_id", Type::kInt64},
                              {"market_id", Type::kInt64},
                              {"market_name", Type::kString},
                              {"market_time", Type::kInt64},
                              {"market_price", Type::kFloat64},
                              {"fundamental_price", Type::kFloat64},
                              {"mid_price", Type::kFloat64},
                              {"best_buy_price", Type::kFloat64},
                              {"best_sell_price", Type::kFloat64},
                              {"executed_volume", Type::kInt64},
                              {"n_buy_book", Type::kInt64},
                              {"n_sell_book", Type::kInt64},
                              {"n_buy_orders", Type::kInt64},
                              {"n_sell_orders", Type::kInt64}})),
      // Its asset_volume_<market_id> columns are added at the end, when the
      // markets are known.
      agents_(NewTable(agents, {{"agent_id", Type::kInt64},
                                {"name", Type::kString},
                                {"class", Type::kString},
                                {"cash_amount", Type::kFloat64}})),
      events_(NewTable(events, {{"kind", Type::kString},
                                {"time", Type::kInt64},
                                {"market_id", Type::kInt64},
                                {"agent_id", Type::kInt64},
                                {"order_id", Type::kInt64},
                                {"side", Type::kString},
                                {"price", Type::kFloat64},
                                {"volume", Type::kInt64},
                                {"ttl", Type::kInt64},
                                {"buy_agent_id", Type::kInt64},
                                {"buy_order_id", Type::kInt64},
                                {"sell_agent_id", Type::kInt64},
                                {"sell_order_id", Type::kInt64}})) {}

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
  if (steps_ != nullptr) {
    Writable(steps_).columns.emplace_back("transaction_fee_revenue", Type::kFloat64);
  }
  if (events_ != nullptr) {
    Table& events = Writable(events_);
    events.columns.emplace_back("buy_transaction_fee", Type::kFloat64);
    events.columns.emplace_back("sell_transaction_fee", Type::kFloat64);
  }
}

void TableLogger::process_market_step_end_log(const MarketStepEndLog& log) {
  if (steps_ == nullptr) return;
  const Market& m = log.market;
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Column>& c = Writable(steps_).columns;
  c[0].AppendInt(log.session.session_id());
  c[1].AppendInt(m.market_id());
  c[2].AppendString(m.name());
  c[3].AppendInt(m.get_time());
  c[4].AppendDouble(m.get_market_price());
  c[5].AppendDouble(m.get_fundamental_price());
  c[6].AppendDouble(m.get_mid_price());
  c[7].AppendDouble(m.get_best_buy_price());
  c[8].AppendDouble(m.get_best_sell_price());
  c[9].AppendInt(m.get_executed_volume());
  c[10].AppendInt(static_cast<int64_t>(m.buy_order_book().size()));
  c[11].AppendInt(static_cast<int64_t>(m.sell_order_book().size()));
  c[12].AppendInt(m.get_n_buy_order());
  c[13].AppendInt(m.get_n_sell_order());
  if (with_fees_) c[14].AppendDouble(m.get_transaction_fee_revenue());
}

void TableLogger::process_simulation_end_log(const SimulationEndLog& log) {
  if (agents_ == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  Table& table = Writable(agents_);
  // A column per market, in market-id order, after the first four.
  std::vector<int> market_ids;
  for (const auto& market : log.simulator.markets()) market_ids.push_back(market->market_id());
  std::sort(market_ids.begin(), market_ids.end());
  for (int id : market_ids) {
    table.columns.emplace_back("asset_volume_" + std::to_string(id), Type::kInt64);
  }
  std::vector<Column>& c = table.columns;
  for (const auto& agent : log.simulator.agents()) {
    c[0].AppendInt(agent->agent_id());
    c[1].AppendString(agent->name());
    c[2].AppendString(agent->class_name());
    c[3].AppendDouble(agent->cash_amount());
    const std::vector<int> ids = agent->accessible_market_ids();
    for (size_t i = 0; i < market_ids.size(); ++i) {
      // Markets the agent cannot trade in are null, as the CSV leaves them out.
      const int id = market_ids[i];
      if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
        c[4 + i].AppendInt(agent->get_asset_volume(id));
      } else {
        c[4 + i].AppendNull();
      }
    }
  }
}

template <typename OrderLikeLog>
void TableLogger::AppendOrderRow(const char* kind, const OrderLikeLog& log, int64_t time) {
  if (events_ == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Column>& c = Writable(events_).columns;
  c[0].AppendString(kind);
  c[1].AppendInt(time);
  c[2].AppendInt(log.market_id);
  c[3].AppendInt(log.agent_id);
  c[4].AppendInt(log.order_id);
  c[5].AppendString(log.is_buy ? "buy" : "sell");
  c[6].AppendDouble(log.price);
  c[7].AppendInt(log.volume);
  c[8].AppendInt(log.ttl);
  for (size_t i = 9; i < c.size(); ++i) c[i].AppendNull();
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
  std::vector<Column>& c = Writable(events_).columns;
  c[0].AppendString("execution");
  c[1].AppendInt(log.time);
  c[2].AppendInt(log.market_id);
  for (size_t i = 3; i < 5; ++i) c[i].AppendNull();
  c[5].AppendNull();
  c[6].AppendDouble(log.price);
  c[7].AppendInt(log.volume);
  c[8].AppendNull();
  c[9].AppendInt(log.buy_agent_id);
  c[10].AppendInt(log.buy_order_id);
  c[11].AppendInt(log.sell_agent_id);
  c[12].AppendInt(log.sell_order_id);
  if (with_fees_) {
    c[13].AppendDouble(log.buy_transaction_fee);
    c[14].AppendDouble(log.sell_transaction_fee);
  }
}

}  // namespace pams::python
