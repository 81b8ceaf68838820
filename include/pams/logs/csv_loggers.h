// Loggers that write CSV files for analysis (the `pams run` options
// --steps-csv and --agents-csv). Numbers are printed as Python prints them,
// so the files compare byte for byte with files written from PAMS.
//
// StepsCsvLogger: one row per market at the end of every step, columns
//   session_id,market_id,market_name,market_time,market_price,
//   fundamental_price,mid_price,best_buy_price,best_sell_price,
//   executed_volume,n_buy_book,n_sell_book,n_buy_orders,n_sell_orders
// (the Market getters of those names at that moment; n_*_book = resting
// orders; an empty field is None).
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

  void process_market_step_end_log(const MarketStepEndLog& log) override;
  // Writes every complete row out. Throws SimulationError if writing fails.
  void flush() override;

  static const char* const kHeader;

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
  void flush() override;

  static const char* const kHeader;
  // Appends the row of one agent (with a trailing newline).
  static void AppendRow(const Agent& agent, std::string* out);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pams

#endif  // PAMS_LOGS_CSV_LOGGERS_H_
