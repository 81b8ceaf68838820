// The engine's loggers for Python: _core.Logger (what a runner accepts),
// MarketStepSaver (its records, for pams_cpp's market_step_logs), the step
// printer writing through Python's sys.stdout (so that notebooks show its
// lines), the CSV writers of `pams run`, and TableLogger.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdio>
#include <memory>
#include <string>

#include "bindings.h"
#include "pams/logs/csv_loggers.h"
#include "pams/logs/events_csv_logger.h"
#include "pams/logs/logger.h"
#include "pams/logs/market_step_loggers.h"
#include "table_logger.h"

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
  nb::class_<Logger>(m, "Logger");

  nb::class_<MarketStepSaver, Logger>(m, "MarketStepSaver")
      .def(nb::init<>())
      // Records from `start` on, as tuples (session_id, market_time,
      // market_id, market_name, market_price, fundamental_price) with
      // PAMS's types (an int market price where PAMS has one).
      .def("records",
           [](const MarketStepSaver& saver, size_t start) {
             const auto& logs = saver.market_step_logs();
             nb::list out;
             for (size_t i = start; i < logs.size(); ++i) {
               const MarketStepSaver::Record& r = logs[i];
               nb::object price = r.market_price_is_int
                                      ? nb::object(nb::int_(static_cast<int64_t>(r.market_price)))
                                      : nb::object(nb::float_(r.market_price));
               out.append(nb::make_tuple(r.session_id, r.market_time, r.market_id,
                                         r.market_name, price, r.fundamental_price));
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
