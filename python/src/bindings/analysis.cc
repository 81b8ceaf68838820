// pams_cpp.analysis's engine side: the stylized facts and charts of
// `pams stats` and `pams plot` (src/analysis/), of a steps CSV or of a
// TableLogger's steps table.

#include <nanobind/nanobind.h>

#include <cstdint>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include <nanobind/stl/variant.h>

#include "analysis/chart.h"
#include "analysis/steps_table.h"
#include "analysis/stylized_facts.h"
#include "bindings/bindings.h"
#include "interop/table_logger.h"
#include "interop/values.h"
#include "pams/errors.h"

namespace pams::python {

namespace {

// A steps CSV's path or a steps table.
using StepsSource = std::variant<std::string, TableHandle>;

double ValueAt(const Column& c, int64_t row) {
  if (c.is_null(row)) return std::numeric_limits<double>::quiet_NaN();
  return c.type() == Column::Type::kInt64 ? static_cast<double>(c.ints()[row])
                                          : c.doubles()[row];
}

const Column& Required(const Table& table, const char* name) {
  const Column* c = table.Find(name);
  if (c == nullptr) {
    throw ConfigError("steps", std::string("the table has no column ") + name +
                                   " (give a TableLogger's steps table)");
  }
  return *c;
}

// As StepsTable::ReadCsv reads the same rows from a file.
analysis::StepsTable FromTable(const Table& table) {
  const Column& session = Required(table, "session_id");
  const Column& market = Required(table, "market_id");
  const Column& name = Required(table, "market_name");
  const Column& time = Required(table, "market_time");
  const Column& price = Required(table, "market_price");
  const Column& fundamental = Required(table, "fundamental_price");
  const Column& volume = Required(table, "executed_volume");
  analysis::StepsTable out;
  std::vector<int64_t> ids;  // out.markets[i]'s market_id
  for (int64_t row = 0; row < table.num_rows(); ++row) {
    const int64_t id = market.ints()[row];
    size_t i = 0;
    while (i < ids.size() && ids[i] != id) ++i;
    if (i == ids.size()) {
      ids.push_back(id);
      analysis::MarketSteps steps;
      steps.market_id = id;
      steps.market_name.assign(name.chars().data() + name.offsets()[row],
                               name.chars().data() + name.offsets()[row + 1]);
      out.markets.push_back(std::move(steps));
    }
    analysis::MarketSteps& m = out.markets[i];
    m.session_id.push_back(session.ints()[row]);
    m.market_time.push_back(time.ints()[row]);
    m.market_price.push_back(ValueAt(price, row));
    m.fundamental_price.push_back(ValueAt(fundamental, row));
    m.executed_volume.push_back(ValueAt(volume, row));
  }
  return out;
}

// The steps, of the given sessions only (all when empty). Throws
// ConfigError, as pams stats does, when no row is left.
analysis::StepsTable Steps(const StepsSource& source, const std::vector<int64_t>& sessions) {
  const std::string* path = std::get_if<std::string>(&source);
  const std::string what = path != nullptr ? *path : "steps";
  analysis::StepsTable table =
      path != nullptr ? analysis::StepsTable::ReadCsv(*path)
                      : FromTable(*std::get<TableHandle>(source).table);
  if (table.markets.empty()) throw ConfigError(what, "no rows (the run logged no step)");
  if (!sessions.empty()) {
    table = table.OnlySessions(sessions);
    if (table.markets.empty()) {
      throw ConfigError("sessions", "no row of " + what + " belongs to the sessions given");
    }
  }
  return table;
}

void CheckSize(const char* name, int value, int min) {
  if (value < min || value > analysis::kMaxChartSize) {
    throw ConfigError(name, "must be a whole number of pixels from " + std::to_string(min) +
                                " to " + std::to_string(analysis::kMaxChartSize) + ", got " +
                                std::to_string(value));
  }
}

}  // namespace

void BindAnalysis(nb::module_& m) {
  // {"markets": [...]}, as `pams stats --json` prints it (NaN as None).
  m.def(
      "stylized_facts",
      [](const StepsSource& source, const std::vector<int64_t>& sessions) {
        return ToPython(analysis::StylizedFactsToJsonValue(
            analysis::ComputeStylizedFacts(Steps(source, sessions))));
      },
      nb::arg("steps"), nb::arg("sessions"));
  // The table `pams stats` prints.
  m.def(
      "stylized_facts_text",
      [](const StepsSource& source, const std::vector<int64_t>& sessions) {
        return analysis::FormatStylizedFacts(
            analysis::ComputeStylizedFacts(Steps(source, sessions)));
      },
      nb::arg("steps"), nb::arg("sessions"));
  // The chart of `pams plot`, to path (.png or .svg).
  m.def(
      "write_chart",
      [](const StepsSource& source, const std::string& path, int width, int height,
         const std::string& title) {
        CheckSize("width", width, analysis::kMinChartWidth);
        CheckSize("height", height, analysis::kMinChartHeight);
        analysis::CheckChartPath(path);
        const analysis::StepsTable table = Steps(source, {});
        nb::gil_scoped_release release;
        analysis::WriteChart(table, path, {width, height, title});
      },
      nb::arg("steps"), nb::arg("path"), nb::arg("width"), nb::arg("height"), nb::arg("title"));
}

}  // namespace pams::python
