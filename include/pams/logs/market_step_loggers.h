// PAMS's two market step loggers.
//
// MarketStepPrintLogger prints one line per market at the end of every step:
// "session_id time market_id market_name market_price fundamental_price",
// numbers formatted as Python prints them, exactly as PAMS's logger does.
//
// MarketStepSaver keeps the same values in memory (PAMS's
// market_step_logs).
//
// Both are called on the simulation thread (see Logger).

#ifndef PAMS_LOGS_MARKET_STEP_LOGGERS_H_
#define PAMS_LOGS_MARKET_STEP_LOGGERS_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "pams/export.h"
#include "pams/logs/logger.h"

namespace pams {

class PAMS_EXPORT MarketStepPrintLogger : public Logger {
 public:
  // Writes to out (stdout by default), which must outlive the logger.
  explicit MarketStepPrintLogger(std::FILE* out = stdout);
  ~MarketStepPrintLogger() override;
  MarketStepPrintLogger(const MarketStepPrintLogger&) = delete;
  MarketStepPrintLogger& operator=(const MarketStepPrintLogger&) = delete;

  void process_market_step_end_log(const MarketStepEndLog& log) override;
  // Writes the buffered lines out. Throws OutputError once when writing to
  // `out` fails (e.g. a closed pipe); later failures are not repeated.
  void flush() override;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

class PAMS_EXPORT MarketStepSaver : public Logger {
 public:
  struct Record {
    int session_id;
    int64_t market_time;
    int market_id;
    std::string market_name;
    double market_price;
    double fundamental_price;
    // Whether PAMS's market price is a Python int here (an execution price
    // in a market whose tickSize is an integer).
    bool market_price_is_int;
  };

  void process_market_step_end_log(const MarketStepEndLog& log) override;
  const std::vector<Record>& market_step_logs() const { return logs_; }

 private:
  std::vector<Record> logs_;
};

}  // namespace pams

#endif  // PAMS_LOGS_MARKET_STEP_LOGGERS_H_
