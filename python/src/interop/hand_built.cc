// What PAMS's objects built by hand hand to the engine (interop/hand_built.h):
// a Python Order's fields, PAMS's log objects as the engine's, and the
// engine market of a PAMS market.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>
#include <string_view>

#include "interop/attr_names.h"
#include "interop/hand_built.h"
#include "interop/python.h"
#include "interop/python_agents.h"
#include "interop/python_run.h"
#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/logs/logs.h"
#include "pams/market/market.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

Order OrderFields(nb::handle o) {
  try {
    return ToOrder(o);
  } catch (const SimulationError& e) {
    Raise(PyExc_TypeError, e.what());
  }
}

void WriteBack(const PythonRun& run, const Order& order, nb::handle obj) {
  nb::object changed = ToPythonAction(run, Action(order));
  for (const char* field : {"is_buy", "kind", "volume", "price", "ttl"}) {
    nb::object now = changed.attr(field);
    nb::object before = obj.attr(field);
    // Unchanged values keep their Python objects (an int price stays one).
    if (!now.equal(before)) nb::setattr(obj, field, now);
  }
}

namespace {

std::optional<double> OptionalDouble(nb::handle v) {
  if (v.is_none()) return std::nullopt;
  return nb::cast<double>(v);
}
std::optional<int64_t> OptionalInt(nb::handle v) {
  if (v.is_none()) return std::nullopt;
  return nb::cast<int64_t>(v);
}
OrderKind KindOf(nb::handle kind) {
  return nb::cast<int>(kind.attr("kind_id")) == 1 ? OrderKind::kLimit : OrderKind::kMarket;
}

}  // namespace

Market& MarketArg(nb::handle market) { return EngineOf<Market>(market, "a Market"); }

OrderLog EngineOrderLog(nb::handle l) {
  return OrderLog{nb::cast<int64_t>(l.attr("order_id")), nb::cast<int>(l.attr("market_id")),
                  nb::cast<int64_t>(l.attr("time")),     nb::cast<int>(l.attr("agent_id")),
                  nb::cast<bool>(l.attr("is_buy")),      KindOf(l.attr("kind")),
                  nb::cast<int64_t>(l.attr("volume")),   OptionalDouble(l.attr("price")),
                  OptionalInt(l.attr("ttl"))};
}
CancelLog EngineCancelLog(nb::handle l) {
  return CancelLog{nb::cast<int64_t>(l.attr("order_id")), nb::cast<int>(l.attr("market_id")),
                   nb::cast<int64_t>(l.attr("cancel_time")),
                   nb::cast<int64_t>(l.attr("order_time")), nb::cast<int>(l.attr("agent_id")),
                   nb::cast<bool>(l.attr("is_buy")), KindOf(l.attr("kind")),
                   nb::cast<int64_t>(l.attr("volume")), OptionalDouble(l.attr("price")),
                   OptionalInt(l.attr("ttl"))};
}
ExecutionLog EngineExecutionLog(nb::handle l) {
  return ExecutionLog{nb::cast<int>(l.attr("market_id")),
                      nb::cast<int64_t>(l.attr("time")),
                      nb::cast<int>(l.attr("buy_agent_id")),
                      nb::cast<int>(l.attr("sell_agent_id")),
                      nb::cast<int64_t>(l.attr("buy_order_id")),
                      nb::cast<int64_t>(l.attr("sell_order_id")),
                      nb::cast<double>(l.attr("price")),
                      nb::cast<int64_t>(l.attr("volume"))};
}

// PAMS's log object `log` (pams_cpp.logs.base), handed to an engine logger
// as the engine's log: what a program driving a simulation by hand writes
// to the engine's loggers (MarketStepPrintLogger, the CSV loggers, ...).
void FeedLogger(Logger& logger, nb::handle log) {
  const AttrNames& n = Attrs();
  // The class's __name__ without making a Python string (a heap type's
  // tp_name is its __name__): a hand-driven loop feeds logs every step.
  const std::string_view kind = Py_TYPE(log.ptr())->tp_name;
  auto simulator = [&]() -> Simulator& {
    nb::object sim = log.attr(n.simulator);
    nb::object core = nb::getattr(sim, n.core, nb::none());
    if (core.is_none()) Raise(PyExc_TypeError, "the log's simulator is no pams_cpp Simulator");
    return nb::cast<Simulator&>(core);
  };
  auto session = [&]() -> const Session& { return nb::cast<const Session&>(log.attr(n.session)); };
  if (kind == "MarketStepBeginLog") {
    logger.process_market_step_begin_log(
        MarketStepBeginLog{session(), MarketArg(log.attr(n.market)), simulator()});
  } else if (kind == "MarketStepEndLog") {
    logger.process_market_step_end_log(
        MarketStepEndLog{session(), MarketArg(log.attr(n.market)), simulator()});
  } else if (kind == "SessionBeginLog") {
    logger.process_session_begin_log(SessionBeginLog{session(), simulator()});
  } else if (kind == "SessionEndLog") {
    logger.process_session_end_log(SessionEndLog{session(), simulator()});
  } else if (kind == "SimulationBeginLog") {
    logger.process_simulation_begin_log(SimulationBeginLog{simulator()});
  } else if (kind == "SimulationEndLog") {
    logger.process_simulation_end_log(SimulationEndLog{simulator()});
  } else if (kind == "OrderLog") {
    logger.process_order_log(EngineOrderLog(log));
  } else if (kind == "CancelLog") {
    logger.process_cancel_log(EngineCancelLog(log));
  } else if (kind == "ExecutionLog") {
    logger.process_execution_log(EngineExecutionLog(log));
  } else if (kind == "ExpirationLog") {
    logger.process_expiration_log(ExpirationLog{
        nb::cast<int64_t>(log.attr("order_id")), nb::cast<int>(log.attr("market_id")),
        nb::cast<int64_t>(log.attr("time")), nb::cast<int64_t>(log.attr("order_time")),
        nb::cast<int>(log.attr("agent_id")), nb::cast<bool>(log.attr("is_buy")),
        KindOf(log.attr("kind")), nb::cast<int64_t>(log.attr("volume")),
        OptionalDouble(log.attr("price")), OptionalInt(log.attr("ttl"))});
  } else {
    Raise(PyExc_NotImplementedError, "no engine log is a " + std::string(kind));
  }
}

}  // namespace pams::python
