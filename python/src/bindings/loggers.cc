// The engine's loggers for Python: _core.Logger (what a runner accepts),
// MarketStepSaver (its records, for pams_cpp's market_step_logs), the step
// printer writing through Python's sys.stdout (so that notebooks show its
// lines), the CSV writers of `pams run`, and TableLogger; and the log
// schema's column names (_core.log_columns, src/logs/log_schema.h).

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdio>
#include <memory>
#include <string>

#include "bindings/bindings.h"
#include "interop/table_logger.h"
#include "interop/values.h"
#include "logs/log_schema.h"
#include "pams/logs/csv_loggers.h"
#include "pams/logs/events_csv_logger.h"
#include "pams/logs/logger.h"
#include "pams/logs/market_step_loggers.h"

namespace pams::python {

namespace {

// A FILE whose writes go to Python's sys.stdout (fopencookie): the step
// printer keeps its own formatting and buffering, and its blocks reach
// whatever stdout is (a terminal, a notebook cell, a redirected stream).
ssize_t WriteToStdout(void*, const char* data, size_t size) {
  nb::gil_scoped_acquire gil;
  try {
    nb::module_::import_("sys").attr("stdout").attr("write")(
        nb::str(data, size));
  } catch (nb::python_error& e) {
    // Reported as a failed write (the logger turns it into an error).
    e.discard_as_unraisable("writing pams_cpp's step lines to sys.stdout");
    return -1;
  }
  return static_cast<ssize_t>(size);
}

class StdoutStepPrinter : public Logger {
 public:
  StdoutStepPrinter()
      : file_(fopencookie(nullptr, "w", cookie_io_functions_t{nullptr, &WriteToStdout,
                                                               nullptr, nullptr})),
        printer_(std::make_unique<MarketStepPrintLogger>(file_)) {}
  ~StdoutStepPrinter() override {
    // The printer flushes into file_ when it is destroyed: before fclose.
    try {
      printer_->flush();
    } catch (...) {
    }
    printer_.reset();
    std::fclose(file_);
  }
  StdoutStepPrinter(const StdoutStepPrinter&) = delete;
  StdoutStepPrinter& operator=(const StdoutStepPrinter&) = delete;

  void process_market_step_end_log(const MarketStepEndLog& log) override {
    printer_->process_market_step_end_log(log);
  }
  void flush() override { printer_->flush(); }

 private:
  std::FILE* file_;
  std::unique_ptr<MarketStepPrintLogger> printer_;
};

}  // namespace

void BindLoggers(nb::module_& m) {
  m.def(
      "log_columns",
      [](const std::string& table) {
        auto names = [](const auto& columns) {
          nb::list out;
          for (const log_schema::Column& c : columns) out.append(nb::str(c.name));
          return nb::tuple(out);
        };
        if (table == "steps") return names(log_schema::kSteps);
        if (table == "agents") return names(log_schema::kAgents);
        if (table == "events") return names(log_schema::kEvents);
        if (table == "market_step_logs") return names(log_schema::kMarketStepRecord);
        throw nb::value_error(("log_columns: no table \"" + table +
                               "\" (steps, agents, events or market_step_logs)")
                                  .c_str());
      },
      nb::arg("table"),
      "The column names of a run's records, in order, from the log schema "
      "(src/logs/log_schema.h): 'steps', 'agents' and 'events' (the CSV files of "
      "pams run, with the fee-only columns last) and 'market_step_logs' (the keys of "
      "MarketStepSaver's dicts).");

  nb::class_<Logger>(m, "Logger");

  nb::class_<MarketStepSaver, Logger>(m, "MarketStepSaver")
      .def(nb::init<>())
      // Records from `start` on, as tuples of the log schema's
      // kMarketStepRecord columns (session_id, market_time, market_id,
      // market_name, market_price, fundamental_price: the keys of
      // log_columns("market_step_logs")) with PAMS's types (an int market
      // price where PAMS has one).
      .def("records",
           [](const MarketStepSaver& saver, size_t start) {
             using log_schema::MarketStepRecordColumn;
             const auto& logs = saver.market_step_logs();
             nb::list out;
             for (size_t i = start; i < logs.size(); ++i) {
               const MarketStepSaver::Record& r = logs[i];
               nb::tuple record =
                   nb::steal<nb::tuple>(PyTuple_New(log_schema::kMarketStepRecord.size()));
               for (size_t c = 0; c < log_schema::kMarketStepRecord.size(); ++c) {
                 nb::object value;
                 switch (static_cast<MarketStepRecordColumn>(c)) {
                   case MarketStepRecordColumn::kSessionId:
                     value = nb::int_(r.session_id);
                     break;
                   case MarketStepRecordColumn::kMarketTime:
                     value = nb::int_(r.market_time);
                     break;
                   case MarketStepRecordColumn::kMarketId:
                     value = nb::int_(r.market_id);
                     break;
                   case MarketStepRecordColumn::kMarketName:
                     value = nb::str(r.market_name.c_str(), r.market_name.size());
                     break;
                   case MarketStepRecordColumn::kMarketPrice:
                     value = r.market_price_is_int
                                 ? nb::object(nb::int_(static_cast<int64_t>(r.market_price)))
                                 : nb::object(nb::float_(r.market_price));
                     break;
                   case MarketStepRecordColumn::kFundamentalPrice:
                     value = nb::float_(r.fundamental_price);
                     break;
                   case MarketStepRecordColumn::kCount:
                     break;
                 }
                 PyTuple_SET_ITEM(record.ptr(), c, value.release().ptr());
               }
               out.append(record);
             }
             return out;
           },
           nb::arg("start") = 0)
      .def("__len__", [](const MarketStepSaver& s) { return s.market_step_logs().size(); });

  nb::class_<StdoutStepPrinter, Logger>(m, "StdoutStepPrinter").def(nb::init<>());

  nb::class_<StepsCsvLogger, Logger>(m, "StepsCsvLogger")
      .def(nb::init<const std::string&>(), nb::arg("path"))
      .def("flush", &StepsCsvLogger::flush);
  nb::class_<AgentsCsvLogger, Logger>(m, "AgentsCsvLogger")
      .def(nb::init<const std::string&>(), nb::arg("path"))
      .def("flush", &AgentsCsvLogger::flush);
  nb::class_<EventsCsvLogger, Logger>(m, "EventsCsvLogger")
      .def(nb::init<const std::string&>(), nb::arg("path"))
      .def("flush", &EventsCsvLogger::flush);

  // Each table: the rows so far (None: not kept).
  auto table = [](std::shared_ptr<const Table> t) -> std::optional<TableHandle> {
    if (t == nullptr) return std::nullopt;
    return TableHandle{std::move(t)};
  };
  nb::class_<TableLogger, Logger>(m, "TableLogger")
      .def(nb::init<bool, bool, bool>(), nb::arg("steps"), nb::arg("agents"), nb::arg("events"))
      .def_prop_ro("steps", [table](const TableLogger& l) { return table(l.steps()); })
      .def_prop_ro("agents", [table](const TableLogger& l) { return table(l.agents()); })
      .def_prop_ro("events", [table](const TableLogger& l) { return table(l.events()); });
}

}  // namespace pams::python
