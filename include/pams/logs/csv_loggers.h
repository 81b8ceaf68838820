// Loggers that write CSV files for analysis (the `pams run` options
// --steps-csv and --agents-csv). Numbers are printed as Python prints them,
// so the files compare byte for byte with files written from PAMS. The
// columns below are defined by the log schema (src/logs/log_schema.h), from
// which kHeader and the rows are made.
//
// StepsCsvLogger: one row per market at the end of every step, columns
//   session_id,market_id,market_name,market_time,market_price,
//   fundamental_price,mid_price,best_buy_price,best_sell_price,
//   executed_volume,n_buy_book,n_sell_book,n_buy_orders,n_sell_orders
// (the Market getters of those names at that moment; n_*_book = resting
// orders; an empty field is None). When a market of the run charges a
// transaction fee (since PAMS's development branch), a last column follows,
// transaction_fee_revenue (get_transaction_fee_revenue(), 0.0 in markets
// without a fee); without fees the file is PAMS 0.3.0's, byte for byte.
// The header is written when the simulation begins (or, if it never does,
// when the file is flushed).
//
// AgentsCsvLogger: at the end of the simulation, one row per agent:
//   agent_id,name,class,cash_amount,asset_volumes
// with asset_volumes "market_id=volume" joined by ';' in market-id order.
//
// Files are opened (and errors reported) by the constructors. Called on the
// simulation thread.

#ifndef PAMS_LOGS_CSV_LOGGERS_H_
#define PAMS_LOGS_CSV_LOGGERS_H_

#include <memory>
#include <string>

#include "pams/export.h"
#include "pams/logs/logger.h"

namespace pams {

class Agent;

class PAMS_EXPORT StepsCsvLogger : public Logger {
 public:
  // Creates or truncates path ("-": stdout). Throws ConfigError naming it
  // when it cannot be written.
  explicit StepsCsvLogger(const std::string& path);
  ~StepsCsvLogger() override;
  StepsCsvLogger(const StepsCsvLogger&) = delete;
  StepsCsvLogger& operator=(const StepsCsvLogger&) = delete;

  void process_simulation_begin_log(const SimulationBeginLog& log) override;
  void process_market_step_end_log(const MarketStepEndLog& log) override;
  // Writes every row out and closes the file (the runner calls it once,
  // when the run ends). Throws OutputError naming the file if writing or
  // closing fails; a row logged afterwards is an OutputError too.
  void flush() override;

  static const char* const kHeader;
  // The column added when a market charges a transaction fee.
  static const char* const kFeeColumn;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

class PAMS_EXPORT AgentsCsvLogger : public Logger {
 public:
  // As StepsCsvLogger's.
  explicit AgentsCsvLogger(const std::string& path);
  ~AgentsCsvLogger() override;
  AgentsCsvLogger(const AgentsCsvLogger&) = delete;
  AgentsCsvLogger& operator=(const AgentsCsvLogger&) = delete;

  void process_simulation_end_log(const SimulationEndLog& log) override;
  // As StepsCsvLogger's.
  void flush() override;

  static const char* const kHeader;
  // Appends the row of one agent (with a trailing newline).
  static void AppendRow(const Agent& agent, std::string* out);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// For a program's signal handler (the pams tool's second Ctrl-C): ends the
// process with `status` (as _exit, without running destructors or flushing
// stdio) once every file these loggers and EventsCsvLogger have open holds
// its complete rows: at once when none is in the middle of a write,
// otherwise as soon as that write ends, and after 2 seconds in any case (a
// write to a pipe that nobody reads can block forever). Rows not yet
// complete are lost; no file is left with part of a row (but for that
// blocked pipe). Async-signal-safe; callable from any thread. Returns only
// when it has to wait (the write in progress then ends the process).
PAMS_EXPORT void ExitAfterWholeRows(int status) noexcept;

}  // namespace pams

#endif  // PAMS_LOGS_CSV_LOGGERS_H_
