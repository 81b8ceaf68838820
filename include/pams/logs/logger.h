// Logger: receives every log of a simulation, one virtual method per log
// type, as PAMS's Logger.process_*_log. Subclass it and override what you
// need; the defaults do nothing.
//
// Unlike PAMS, which queues order, cancel, execution and expiration logs and
// processes them at session boundaries, pams-cpp delivers every log at once,
// in the order the events happen, so memory stays flat and a logger sees the
// market as it was when the log was made.
//
// Threading: all methods are called from the thread that runs the simulation
// (never from the workers of parallel runners), one at a time.
//
// Loggers: a Logger that forwards every log to several others in order.

#ifndef PAMS_LOGS_LOGGER_H_
#define PAMS_LOGS_LOGGER_H_

#include <vector>

#include "pams/export.h"
#include "pams/logs/logs.h"

namespace pams {

class PAMS_EXPORT Logger {
 public:
  Logger() = default;
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;
  virtual ~Logger();

  virtual void process_order_log(const OrderLog& log);
  virtual void process_cancel_log(const CancelLog& log);
  virtual void process_expiration_log(const ExpirationLog& log);
  virtual void process_execution_log(const ExecutionLog& log);
  virtual void process_simulation_begin_log(const SimulationBeginLog& log);
  virtual void process_simulation_end_log(const SimulationEndLog& log);
  virtual void process_session_begin_log(const SessionBeginLog& log);
  virtual void process_session_end_log(const SessionEndLog& log);
  virtual void process_market_step_begin_log(const MarketStepBeginLog& log);
  virtual void process_market_step_end_log(const MarketStepEndLog& log);

  // Called once when the run stops, normally or by an error, so that
  // buffered output reaches its file. Default: nothing.
  virtual void flush();
};

// Forwards each log to every added logger, in the order they were added.
// Does not own them.
class PAMS_EXPORT Loggers final : public Logger {
 public:
  // REQUIRES: logger outlives this object.
  void add(Logger* logger) { loggers_.push_back(logger); }
  bool empty() const { return loggers_.empty(); }

  void process_order_log(const OrderLog& log) override;
  void process_cancel_log(const CancelLog& log) override;
  void process_expiration_log(const ExpirationLog& log) override;
  void process_execution_log(const ExecutionLog& log) override;
  void process_simulation_begin_log(const SimulationBeginLog& log) override;
  void process_simulation_end_log(const SimulationEndLog& log) override;
  void process_session_begin_log(const SessionBeginLog& log) override;
  void process_session_end_log(const SessionEndLog& log) override;
  void process_market_step_begin_log(const MarketStepBeginLog& log) override;
  void process_market_step_end_log(const MarketStepEndLog& log) override;
  // Flushes every logger, also after one failed; then throws the first
  // failure.
  void flush() override;

 private:
  std::vector<Logger*> loggers_;
};

}  // namespace pams

#endif  // PAMS_LOGS_LOGGER_H_
