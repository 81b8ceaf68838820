// PythonLogger: a logger written in Python (a subclass of
// pams_cpp.logs.base.Logger) as an engine logger, fed as PAMS feeds it.
//
// PAMS hands a logger the market step logs at once
// (write_and_direct_process) and queues the order, cancel, execution and
// expiration logs (write) until the next simulation or session log, which
// it queues too before it processes the queue (_process). PythonLogger
// calls the same methods at the same moments, so that a logger overriding
// any of them sees what it sees under PAMS. Logs of a kind the logger
// cannot see (it overrides none of the methods that would process them) are
// not made at all.
//
// Threading: the engine calls it on the thread that runs the simulation;
// each method takes the GIL when it has a log to hand over.

#ifndef PAMS_PYTHON_SRC_INTEROP_PYTHON_LOGGER_H_
#define PAMS_PYTHON_SRC_INTEROP_PYTHON_LOGGER_H_

#include "interop/python.h"
#include "interop/python_run.h"
#include "pams/logs/logger.h"

namespace pams::python {

// The kinds of logs a Python logger can see (the others are always sent).
struct PythonLogKinds {
  bool order = true;
  bool cancel = true;
  bool expiration = true;
  bool execution = true;
  bool market_step_begin = true;
  bool market_step_end = true;
  // The class overrides neither write_and_direct_process nor process: a
  // market step log may go straight to its process_market_step_*_log.
  bool direct = false;
};

class PythonLogger final : public Logger {
 public:
  // REQUIRES: run outlives this object.
  PythonLogger(nb::object logger, PythonLogKinds kinds, PythonRun* run)
      : logger_(std::move(logger)), kinds_(kinds), run_(run) {}
  PythonLogger(const PythonLogger&) = delete;
  PythonLogger& operator=(const PythonLogger&) = delete;

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

  // The Python logger, for the garbage collector.
  nb::handle logger() const { return logger_; }
  // Drops it (nothing is sent afterwards). REQUIRES: the GIL is held.
  void Clear() { logger_ = nb::object(); }

 private:
  nb::object SessionObject(const Session& session) const;
  nb::object MarketObject(const Market& market) const;
  // Calls f (which calls the logger) with the GIL; a Python error stops the
  // run (StopWithPythonError).
  template <typename F>
  void Call(F&& f);
  // Hands a market step log (made of log_class) to the logger at once.
  template <typename StepLog>
  void ProcessAtOnce(const StepLog& log, const nb::object& log_class, nb::handle method);

  nb::object logger_;
  PythonLogKinds kinds_;
  PythonRun* run_;
};

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_PYTHON_LOGGER_H_
