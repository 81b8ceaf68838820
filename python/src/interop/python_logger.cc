// PythonLogger (python_logger.h).

#include "interop/python_logger.h"

#include <nanobind/nanobind.h>

#include <string>
#include <utility>

#include "interop/attr_names.h"
#include "interop/python.h"
#include "interop/values.h"
#include "pams/market/market.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

template <typename F>
void PythonLogger::Call(F&& f) {
  if (!logger_.is_valid()) return;  // cleared by the garbage collector
  nb::gil_scoped_acquire gil;
  try {
    f();
  } catch (nb::python_error& e) {
    const int64_t t = run_->simulator->time();
    StopWithPythonError(run_, e,
                        "in logger " + std::string(nb::str(logger_.type().attr("__name__")).c_str()) +
                            (t >= 0 ? " at step " + std::to_string(t) : ""));
  }
}

nb::object PythonLogger::SessionObject(const Session& session) const {
  return run_->SessionObject(session);
}

nb::object PythonLogger::MarketObject(const Market& market) const {
  return run_->MarketObject(market);
}

// The queued logs.
void PythonLogger::process_order_log(const OrderLog& log) {
  if (kinds_.order) Call([&] { logger_.attr("write")(PythonLog(*run_, log)); });
}
void PythonLogger::process_cancel_log(const CancelLog& log) {
  if (kinds_.cancel) Call([&] { logger_.attr("write")(PythonLog(*run_, log)); });
}
void PythonLogger::process_expiration_log(const ExpirationLog& log) {
  if (kinds_.expiration) Call([&] { logger_.attr("write")(PythonLog(*run_, log)); });
}
void PythonLogger::process_execution_log(const ExecutionLog& log) {
  if (kinds_.execution) Call([&] { logger_.attr("write")(PythonLog(*run_, log)); });
}

// The logs that process the queue.
void PythonLogger::process_simulation_begin_log(const SimulationBeginLog&) {
  Call([&] {
    logger_.attr("write")(run_->classes.simulation_begin_log(run_->simulator_object));
    logger_.attr("_process")();
  });
}
void PythonLogger::process_simulation_end_log(const SimulationEndLog&) {
  Call([&] {
    logger_.attr("write")(run_->classes.simulation_end_log(run_->simulator_object));
    logger_.attr("_process")();
  });
}
void PythonLogger::process_session_begin_log(const SessionBeginLog& log) {
  Call([&] {
    logger_.attr("write")(
        run_->classes.session_begin_log(SessionObject(log.session), run_->simulator_object));
    logger_.attr("_process")();
  });
}
void PythonLogger::process_session_end_log(const SessionEndLog& log) {
  Call([&] {
    logger_.attr("write")(
        run_->classes.session_end_log(SessionObject(log.session), run_->simulator_object));
    logger_.attr("_process")();
  });
}

// The logs processed at once: through write_and_direct_process, or, when
// the logger's class overrides neither it nor process, straight to the
// method process would call (two Python calls fewer per market and step).
template <typename StepLog>
void PythonLogger::ProcessAtOnce(const StepLog& log, const nb::object& log_class,
                                 nb::handle method) {
  Call([&] {
    nb::object py = log_class(SessionObject(log.session), MarketObject(log.market),
                              run_->simulator_object);
    if (kinds_.direct) {
      logger_.attr(method)(nb::arg("log") = py);
    } else {
      logger_.attr(Attrs().write_and_direct_process)(py);
    }
  });
}

void PythonLogger::process_market_step_begin_log(const MarketStepBeginLog& log) {
  if (kinds_.market_step_begin) {
    ProcessAtOnce(log, run_->classes.market_step_begin_log,
                  Attrs().process_market_step_begin_log);
  }
}
void PythonLogger::process_market_step_end_log(const MarketStepEndLog& log) {
  if (kinds_.market_step_end) {
    ProcessAtOnce(log, run_->classes.market_step_end_log, Attrs().process_market_step_end_log);
  }
}

}  // namespace pams::python
