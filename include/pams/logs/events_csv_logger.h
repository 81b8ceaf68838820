// EventsCsvLogger: every order, cancel, execution and expiration of a run,
// one CSV row each, in the order they happened (`pams run --events-csv`).
//
// Columns (defined by the log schema, src/logs/log_schema.h; kHeader is
// joined from it):
//   kind,time,market_id,agent_id,order_id,side,price,volume,ttl,
//   buy_agent_id,buy_order_id,sell_agent_id,sell_order_id
// kind is order, cancel, execution or expiration. Order, cancel and
// expiration rows describe the order concerned (price empty for a market
// order, ttl empty when the order has none) and leave the buy_/sell_
// columns empty; execution rows give price, volume and both sides, and leave
// agent_id, order_id, side and ttl empty. time is the market's time of the
// event (for a cancel, the time of the cancel). Numbers as Python prints
// them. When a market of the run charges a transaction fee (since PAMS's
// development branch), two last columns follow, buy_transaction_fee and
// sell_transaction_fee (filled on execution rows); without fees the file is
// as before, byte for byte. The header is written with the first rows (the
// simulation's beginning decides whether the fee columns are there).
//
// A run can log tens of millions of rows, so the simulation thread only
// copies each event into a chunk; a writer thread formats full chunks and
// writes them. Memory stays bounded: when the writer falls behind by a few
// chunks, the simulation waits. Rows reach the file in whole chunks, so an
// interrupted run leaves a valid file up to its last complete row; a chunk
// goes to the writer when full or, at a step's end, when it is half a
// second old, so the file lags the run by at most about a second.
//
// The log callbacks and flush() are called on the simulation thread (one
// thread); the writer thread is private.

#ifndef PAMS_LOGS_EVENTS_CSV_LOGGER_H_
#define PAMS_LOGS_EVENTS_CSV_LOGGER_H_

#include <memory>
#include <string>

#include "pams/export.h"
#include "pams/logs/logger.h"

namespace pams {

class PAMS_EXPORT EventsCsvLogger : public Logger {
 public:
  static const char* const kHeader;
  // The columns added when a market charges a transaction fee.
  static const char* const kFeeColumns;

  // Opens path (throws ConfigError naming it when it cannot be written) and
  // starts the writer thread.
  explicit EventsCsvLogger(const std::string& path);
  // Writes what is left (errors are reported by flush(), which the runner
  // calls when the run ends) and stops the writer.
  ~EventsCsvLogger() override;
  EventsCsvLogger(const EventsCsvLogger&) = delete;
  EventsCsvLogger& operator=(const EventsCsvLogger&) = delete;

  void process_simulation_begin_log(const SimulationBeginLog& log) override;
  void process_order_log(const OrderLog& log) override;
  void process_cancel_log(const CancelLog& log) override;
  void process_expiration_log(const ExpirationLog& log) override;
  void process_execution_log(const ExecutionLog& log) override;
  // Hands the rows of the last half second to the writer (see above).
  void process_market_step_end_log(const MarketStepEndLog& log) override;
  // Returns once every row logged so far is in the file, and closes it (the
  // runner calls it once, when the run ends). Throws OutputError naming the
  // file if writing or closing failed (e.g. the disk is full); a row logged
  // afterwards is an OutputError too.
  void flush() override;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pams

#endif  // PAMS_LOGS_EVENTS_CSV_LOGGER_H_
