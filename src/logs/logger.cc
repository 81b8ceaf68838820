#include "pams/logs/logger.h"

#include <exception>

namespace pams {

Logger::~Logger() = default;
void Logger::process_order_log(const OrderLog&) {}
void Logger::process_cancel_log(const CancelLog&) {}
void Logger::process_expiration_log(const ExpirationLog&) {}
void Logger::process_execution_log(const ExecutionLog&) {}
void Logger::process_simulation_begin_log(const SimulationBeginLog&) {}
void Logger::process_simulation_end_log(const SimulationEndLog&) {}
void Logger::process_session_begin_log(const SessionBeginLog&) {}
void Logger::process_session_end_log(const SessionEndLog&) {}
void Logger::process_market_step_begin_log(const MarketStepBeginLog&) {}
void Logger::process_market_step_end_log(const MarketStepEndLog&) {}
void Logger::flush() {}

void Loggers::process_order_log(const OrderLog& log) {
  for (Logger* l : loggers_) l->process_order_log(log);
}
void Loggers::process_cancel_log(const CancelLog& log) {
  for (Logger* l : loggers_) l->process_cancel_log(log);
}
void Loggers::process_expiration_log(const ExpirationLog& log) {
  for (Logger* l : loggers_) l->process_expiration_log(log);
}
void Loggers::process_execution_log(const ExecutionLog& log) {
  for (Logger* l : loggers_) l->process_execution_log(log);
}
void Loggers::process_simulation_begin_log(const SimulationBeginLog& log) {
  for (Logger* l : loggers_) l->process_simulation_begin_log(log);
}
void Loggers::process_simulation_end_log(const SimulationEndLog& log) {
  for (Logger* l : loggers_) l->process_simulation_end_log(log);
}
void Loggers::process_session_begin_log(const SessionBeginLog& log) {
  for (Logger* l : loggers_) l->process_session_begin_log(log);
}
void Loggers::process_session_end_log(const SessionEndLog& log) {
  for (Logger* l : loggers_) l->process_session_end_log(log);
}
void Loggers::process_market_step_begin_log(const MarketStepBeginLog& log) {
  for (Logger* l : loggers_) l->process_market_step_begin_log(log);
}
void Loggers::process_market_step_end_log(const MarketStepEndLog& log) {
  for (Logger* l : loggers_) l->process_market_step_end_log(log);
}
void Loggers::flush() {
  // A full disk under one file must not keep the others from their rows.
  std::exception_ptr first;
  for (Logger* l : loggers_) {
    try {
      l->flush();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace pams
