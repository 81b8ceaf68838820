// The log schema: the columns of the records a run's loggers keep, in one
// place. Every list of those columns derives from it:
//   - the CSV files of `pams run` (StepsCsvLogger and AgentsCsvLogger,
//     csv_loggers.cc; EventsCsvLogger, events_csv_logger.cc): their headers
//     (kHeader, kFeeColumn(s)) are joined from the names here at compile
//     time, and their rows are written column by column in this order;
//   - pams_cpp's tables (python/src/interop/table_logger.cc, TableLogger): their
//     columns' names and types, and the order values are appended in;
//   - pams_cpp's MarketStepSaver records (python/src/bindings/loggers.cc, and the
//     keys of market_step_logs' dicts, python/pams_cpp/logs/
//     market_step_loggers.py, through _core.log_columns).
// The docs (README.md, docs/) list the same columns for readers and point
// here.
//
// A column is its name, its type (how it is written: a CSV field's text is
// exactly what Python prints, so that files compare byte for byte with
// PAMS's; a table's column is int64, float64 or text) and whether it is
// there only when a market of the run charges a transaction fee (since
// PAMS's development branch: such columns come last, and without a fee the
// files are PAMS 0.3.0's). Any field may be empty (PAMS's None; a table's
// null).
//
// Each table has an enum of its columns, in order, ending with kCount, and
// each entry of its array names its enum value: a static_assert below checks
// that every column sits where its value says. The writers go through the
// columns in order and switch over the enum (-Wswitch: a column added here
// and not written is a warning).
//
// Header-only and constexpr: used by the engine (src/logs), the Python
// extension (python/src) and the analysis library (src/analysis, which reads
// the steps back). Any thread.

#ifndef PAMS_SRC_LOGS_LOG_SCHEMA_H_
#define PAMS_SRC_LOGS_LOG_SCHEMA_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace pams::log_schema {

enum class Type : uint8_t {
  kInt,    // str(int); a table's int64
  kFloat,  // repr(float) (the shortest text that reads back); float64
  kPrice,  // a price: repr(float), or str(int) where PAMS has an int (the
           // market price when it is an int, a book price when the tick
           // size is an int); float64
  kText,   // the text as one CSV field (quoted as RFC 4180 needs); UTF-8
};

struct Column {
  size_t position;  // its enum value: checked to be its place in the array
  const char* name;
  Type type;
  bool fee_only;  // only when a market of the run charges a fee
};

// A column of a table whose columns are the enum Id.
template <typename Id>
constexpr Column Col(Id id, const char* name, Type type, bool fee_only = false) {
  return Column{static_cast<size_t>(id), name, type, fee_only};
}

// The steps (--steps-csv, TableLogger.steps): one row per market at the end
// of every step, the Market getters of those names at that moment.
enum class StepsColumn : uint8_t {
  kSessionId,
  kMarketId,
  kMarketName,
  kMarketTime,
  kMarketPrice,
  kFundamentalPrice,
  kMidPrice,
  kBestBuyPrice,
  kBestSellPrice,
  kExecutedVolume,
  kNBuyBook,  // orders resting in the buy book
  kNSellBook,
  kNBuyOrders,  // buy orders placed in the step
  kNSellOrders,
  kTransactionFeeRevenue,
  kCount
};
inline constexpr std::array<Column, static_cast<size_t>(StepsColumn::kCount)> kSteps{{
    Col(StepsColumn::kSessionId, "session_id", Type::kInt),
    Col(StepsColumn::kMarketId, "market_id", Type::kInt),
    Col(StepsColumn::kMarketName, "market_name", Type::kText),
    Col(StepsColumn::kMarketTime, "market_time", Type::kInt),
    Col(StepsColumn::kMarketPrice, "market_price", Type::kPrice),
    Col(StepsColumn::kFundamentalPrice, "fundamental_price", Type::kFloat),
    Col(StepsColumn::kMidPrice, "mid_price", Type::kFloat),
    Col(StepsColumn::kBestBuyPrice, "best_buy_price", Type::kPrice),
    Col(StepsColumn::kBestSellPrice, "best_sell_price", Type::kPrice),
    Col(StepsColumn::kExecutedVolume, "executed_volume", Type::kInt),
    Col(StepsColumn::kNBuyBook, "n_buy_book", Type::kInt),
    Col(StepsColumn::kNSellBook, "n_sell_book", Type::kInt),
    Col(StepsColumn::kNBuyOrders, "n_buy_orders", Type::kInt),
    Col(StepsColumn::kNSellOrders, "n_sell_orders", Type::kInt),
    Col(StepsColumn::kTransactionFeeRevenue, "transaction_fee_revenue", Type::kFloat,
        /*fee_only=*/true),
}};

// The agents (--agents-csv, TableLogger.agents): one row per agent at the
// end of the run. asset_volumes is "market_id=volume" joined by ';' in
// market-id order in the CSV; a table has instead a column
// kAssetVolumeColumnPrefix + market_id per market of the run, in market-id
// order (int64, null where the agent cannot trade).
enum class AgentsColumn : uint8_t {
  kAgentId,
  kName,
  kClass,
  kCashAmount,
  kAssetVolumes,
  kCount
};
inline constexpr std::array<Column, static_cast<size_t>(AgentsColumn::kCount)> kAgents{{
    Col(AgentsColumn::kAgentId, "agent_id", Type::kInt),
    Col(AgentsColumn::kName, "name", Type::kText),
    Col(AgentsColumn::kClass, "class", Type::kText),
    Col(AgentsColumn::kCashAmount, "cash_amount", Type::kFloat),
    Col(AgentsColumn::kAssetVolumes, "asset_volumes", Type::kText),
}};
inline constexpr const char* kAssetVolumeColumnPrefix = "asset_volume_";

// The events (--events-csv, TableLogger.events): a row per order, cancel,
// execution and expiration, in the order they happened. kind is "order",
// "cancel", "execution" or "expiration". An order-like row (order, cancel,
// expiration: a cancel's time is its cancel_time) fills agent_id to ttl;
// an execution fills price, volume and buy_agent_id on. The rest is empty.
enum class EventsColumn : uint8_t {
  kKind,
  kTime,
  kMarketId,
  kAgentId,
  kOrderId,
  kSide,  // "buy" or "sell"
  kPrice,
  kVolume,
  kTtl,
  kBuyAgentId,
  kBuyOrderId,
  kSellAgentId,
  kSellOrderId,
  kBuyTransactionFee,
  kSellTransactionFee,
  kCount
};
inline constexpr std::array<Column, static_cast<size_t>(EventsColumn::kCount)> kEvents{{
    Col(EventsColumn::kKind, "kind", Type::kText),
    Col(EventsColumn::kTime, "time", Type::kInt),
    Col(EventsColumn::kMarketId, "market_id", Type::kInt),
    Col(EventsColumn::kAgentId, "agent_id", Type::kInt),
    Col(EventsColumn::kOrderId, "order_id", Type::kInt),
    Col(EventsColumn::kSide, "side", Type::kText),
    Col(EventsColumn::kPrice, "price", Type::kFloat),
    Col(EventsColumn::kVolume, "volume", Type::kInt),
    Col(EventsColumn::kTtl, "ttl", Type::kInt),
    Col(EventsColumn::kBuyAgentId, "buy_agent_id", Type::kInt),
    Col(EventsColumn::kBuyOrderId, "buy_order_id", Type::kInt),
    Col(EventsColumn::kSellAgentId, "sell_agent_id", Type::kInt),
    Col(EventsColumn::kSellOrderId, "sell_order_id", Type::kInt),
    Col(EventsColumn::kBuyTransactionFee, "buy_transaction_fee", Type::kFloat,
        /*fee_only=*/true),
    Col(EventsColumn::kSellTransactionFee, "sell_transaction_fee", Type::kFloat,
        /*fee_only=*/true),
}};

// PAMS's MarketStepSaver records (pams_cpp's market_step_logs: a dict per
// market and step, with these keys, in this order, and PAMS's types).
enum class MarketStepRecordColumn : uint8_t {
  kSessionId,
  kMarketTime,
  kMarketId,
  kMarketName,
  kMarketPrice,
  kFundamentalPrice,
  kCount
};
inline constexpr std::array<Column, static_cast<size_t>(MarketStepRecordColumn::kCount)>
    kMarketStepRecord{{
        Col(MarketStepRecordColumn::kSessionId, "session_id", Type::kInt),
        Col(MarketStepRecordColumn::kMarketTime, "market_time", Type::kInt),
        Col(MarketStepRecordColumn::kMarketId, "market_id", Type::kInt),
        Col(MarketStepRecordColumn::kMarketName, "market_name", Type::kText),
        Col(MarketStepRecordColumn::kMarketPrice, "market_price", Type::kPrice),
        Col(MarketStepRecordColumn::kFundamentalPrice, "fundamental_price", Type::kFloat),
    }};

// The column of an enum value: log_schema::Of(StepsColumn::kMarketTime).name.
constexpr const Column& Of(StepsColumn c) { return kSteps[static_cast<size_t>(c)]; }
constexpr const Column& Of(AgentsColumn c) { return kAgents[static_cast<size_t>(c)]; }
constexpr const Column& Of(EventsColumn c) { return kEvents[static_cast<size_t>(c)]; }
constexpr const Column& Of(MarketStepRecordColumn c) {
  return kMarketStepRecord[static_cast<size_t>(c)];
}

// How many columns a row has: without the fee-only ones, or all of them.
template <size_t N>
constexpr size_t ColumnCount(const std::array<Column, N>& columns, bool with_fees) {
  size_t n = 0;
  for (const Column& c : columns) n += (with_fees || !c.fee_only) ? 1 : 0;
  return n;
}

// The column names joined by commas, as a NUL-terminated array made at
// compile time (the CSV headers): which columns, and whether a line break
// ends the text.
enum class Which : uint8_t { kWithoutFees, kAll, kFeesOnly };

namespace internal {

constexpr bool Selected(const Column& c, Which which) {
  switch (which) {
    case Which::kWithoutFees:
      return !c.fee_only;
    case Which::kAll:
      return true;
    case Which::kFeesOnly:
      return c.fee_only;
  }
  return false;
}

template <size_t N>
constexpr size_t JoinedLength(const std::array<Column, N>& columns, Which which, bool newline) {
  size_t length = 0;
  size_t count = 0;
  for (const Column& c : columns) {
    if (!Selected(c, which)) continue;
    length += std::char_traits<char>::length(c.name);
    ++count;
  }
  return length + (count > 0 ? count - 1 : 0) + (newline ? 1 : 0);
}

template <const auto& kColumns, Which kWhich, bool kNewline>
constexpr auto Join() {
  std::array<char, JoinedLength(kColumns, kWhich, kNewline) + 1> text{};
  size_t at = 0;
  bool first = true;
  for (const Column& c : kColumns) {
    if (!Selected(c, kWhich)) continue;
    if (!first) text[at++] = ',';
    first = false;
    for (const char* p = c.name; *p != '\0'; ++p) text[at++] = *p;
  }
  if (kNewline) text[at++] = '\n';
  text[at] = '\0';
  return text;
}

// Whether each column sits where its enum value says (so the enum and the
// array are in the same order, with no entry missing: the arrays are sized
// by kCount) and the fee-only columns come last.
template <size_t N>
constexpr bool Consistent(const std::array<Column, N>& columns) {
  bool fee_seen = false;
  for (size_t i = 0; i < N; ++i) {
    const Column& c = columns[i];
    if (c.position != i || c.name == nullptr || c.name[0] == '\0') return false;
    if (fee_seen && !c.fee_only) return false;
    fee_seen = fee_seen || c.fee_only;
  }
  return true;
}

}  // namespace internal

template <const auto& kColumns, Which kWhich, bool kNewline>
inline constexpr auto kJoined = internal::Join<kColumns, kWhich, kNewline>();

static_assert(internal::Consistent(kSteps) && internal::Consistent(kAgents) &&
              internal::Consistent(kEvents) && internal::Consistent(kMarketStepRecord));

}  // namespace pams::log_schema

#endif  // PAMS_SRC_LOGS_LOG_SCHEMA_H_
