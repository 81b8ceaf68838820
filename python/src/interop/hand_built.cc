// What PAMS's objects built by hand hand to the engine (interop/hand_built.h):
// a Python Order's fields, PAMS's log objects as the engine's, and the
// engine market of a PAMS market.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>
#include <string_view>

#include "interop/arguments.h"
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

// A field of one of PAMS's log objects a program made or changed, as the
// engine's: TypeError naming the log's class and the field otherwise.
std::string FieldName(nb::handle log, const char* field) {
  return std::string(Py_TYPE(log.ptr())->tp_name) + "." + field;
}
nb::object LogAttr(nb::handle log, const char* field) {
  nb::object value = nb::steal(PyObject_GetAttrString(log.ptr(), field));
  if (!value.is_valid()) {
    PyErr_Clear();
    Raise(PyExc_TypeError, "expected one of PAMS's logs with a field " + std::string(field) +
                               ", got " + Describe(log));
  }
  return value;
}
int64_t LogInt(nb::handle log, const char* field) {
  return IntArg(LogAttr(log, field), FieldName(log, field).c_str());
}
int LogId(nb::handle log, const char* field) {
  return IdArg(LogAttr(log, field), FieldName(log, field).c_str());
}
bool LogBool(nb::handle log, const char* field) {
  return TruthArg(LogAttr(log, field), FieldName(log, field).c_str());
}
std::optional<double> LogOptionalNumber(nb::handle log, const char* field) {
  nb::object v = LogAttr(log, field);
  if (v.is_none()) return std::nullopt;
  return NumberArg(v, FieldName(log, field).c_str());
}
std::optional<int64_t> LogOptionalInt(nb::handle log, const char* field) {
  return OptionalIntArg(LogAttr(log, field), FieldName(log, field).c_str());
}
OrderKind LogKind(nb::handle log) {
  nb::object kind = LogAttr(log, "kind");
  nb::object id = nb::getattr(kind, "kind_id", nb::none());
  if (id.is_none()) {
    RaiseArgument(PyExc_TypeError, FieldName(log, "kind").c_str(),
                  "LIMIT_ORDER or MARKET_ORDER", kind);
  }
  return IntArg(id, FieldName(log, "kind").c_str()) == 1 ? OrderKind::kLimit : OrderKind::kMarket;
}

}  // namespace

Market& MarketArg(nb::handle market) { return EngineOf<Market>(market, "a Market"); }

Market& MarketArg(nb::handle market, const char* what) {
  // One type lookup on the way that succeeds (a hand-driven loop hands a
  // market to a trigger every step).
  try {
    return nb::cast<Market&>(market);
  } catch (const nb::cast_error&) {
  }
  nb::object engine = nb::getattr(market, "_engine", nb::none());
  if (!engine.is_none() && nb::isinstance<Market>(engine)) return nb::cast<Market&>(engine);
  RaiseArgument(PyExc_TypeError, what, "a Market", market);
}

OrderLog EngineOrderLog(nb::handle l) {
  return OrderLog{LogInt(l, "order_id"), LogId(l, "market_id"),         LogInt(l, "time"),
                  LogId(l, "agent_id"),  LogBool(l, "is_buy"),          LogKind(l),
                  LogInt(l, "volume"),   LogOptionalNumber(l, "price"), LogOptionalInt(l, "ttl")};
}
CancelLog EngineCancelLog(nb::handle l) {
  return CancelLog{LogInt(l, "order_id"),   LogId(l, "market_id"),
                   LogInt(l, "cancel_time"), LogInt(l, "order_time"),
                   LogId(l, "agent_id"),    LogBool(l, "is_buy"),
                   LogKind(l),              LogInt(l, "volume"),
                   LogOptionalNumber(l, "price"), LogOptionalInt(l, "ttl")};
}
ExecutionLog EngineExecutionLog(nb::handle l) {
  return ExecutionLog{LogId(l, "market_id"),
                      LogInt(l, "time"),
                      LogId(l, "buy_agent_id"),
                      LogId(l, "sell_agent_id"),
                      LogInt(l, "buy_order_id"),
                      LogInt(l, "sell_order_id"),
                      NumberArg(LogAttr(l, "price"), FieldName(l, "price").c_str()),
                      LogInt(l, "volume")};
}

// PAMS's log object `log` (pams_cpp.logs.base), handed to an engine logger
// as the engine's log: what a program driving a simulation by hand writes
// to the engine's loggers (MarketStepPrintLogger, the CSV loggers, ...).
void FeedLogger(Logger& logger, nb::handle log) {
  const AttrNames& n = Attrs();
  // The class's __name__ without making a Python string (a heap type's
  // tp_name is its __name__): a hand-driven loop feeds logs every step.
  const std::string_view kind = Py_TYPE(log.ptr())->tp_name;
  // (nb::cast's own type check, converted: a hand-driven loop feeds two
  // logs a step.)
  auto simulator = [&]() -> Simulator& {
    nb::object sim = log.attr(n.simulator);
    nb::object core = nb::getattr(sim, n.core, nb::none());
    try {
      return nb::cast<Simulator&>(core);
    } catch (const nb::cast_error&) {
      RaiseArgument(PyExc_TypeError, FieldName(log, "simulator").c_str(),
                    "a pams_cpp Simulator", sim);
    }
  };
  auto session = [&]() -> const Session& {
    nb::object s = log.attr(n.session);
    try {
      return nb::cast<const Session&>(s);
    } catch (const nb::cast_error&) {
      RaiseArgument(PyExc_TypeError, FieldName(log, "session").c_str(), "a Session", s);
    }
  };
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
        LogInt(log, "order_id"), LogId(log, "market_id"), LogInt(log, "time"),
        LogInt(log, "order_time"), LogId(log, "agent_id"), LogBool(log, "is_buy"), LogKind(log),
        LogInt(log, "volume"), LogOptionalNumber(log, "price"), LogOptionalInt(log, "ttl")});
  } else {
    Raise(PyExc_NotImplementedError, "no engine log is a " + std::string(kind));
  }
}

}  // namespace pams::python
