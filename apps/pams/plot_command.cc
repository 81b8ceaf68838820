// pams plot STEPS.csv -o FILE: a chart (PNG or SVG) of the steps CSV that
// `pams run --steps-csv` wrote: prices, sessions and volume per market
// (pams/analysis/chart.h).

#include <exception>
#include <memory>
#include <string>

#include "commands.h"
#include "output_paths.h"
#include "analysis/chart.h"
#include "analysis/steps_table.h"
#include "pams/errors.h"

namespace pams::cli {

namespace {

struct PlotOptions {
  std::string steps_csv;
  std::string output;
  analysis::ChartOptions chart;
};

int Plot(const PlotOptions& options) {
  CheckOutputPaths({{"STEPS.csv", options.steps_csv}}, {{"--output", options.output}});
  const analysis::StepsTable table = analysis::StepsTable::ReadCsv(options.steps_csv);
  if (table.markets.empty()) {
    throw ConfigError(options.steps_csv, "no rows to draw (the file has only its header)");
  }
  analysis::WriteChart(table, options.output, options.chart);
  return 0;
}

// Checks a --width or --height value: a whole number in [min, max]. (CLI11's
// Range would call "abc" out of range.)
CLI::Validator SizeCheck(int min, int max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        size_t end = 0;
        long value = 0;
        try {
          value = std::stol(text, &end);
        } catch (const std::exception&) {
          end = 0;
        }
        if (end == 0 || end != text.size() || value < min || value > max) {
          return "must be a whole number of pixels from " + std::to_string(min) + " to " +
                 std::to_string(max) + ", got \"" + text + "\"";
        }
        return "";
      },
      "PIXELS");
}

}  // namespace

std::function<int()> AddPlotCommand(CLI::App* app) {
  auto options = std::make_shared<PlotOptions>();
  CLI::App* plot = app->add_subcommand(
      "plot",
      "Chart a steps CSV (pams run --steps-csv): market and fundamental "
      "prices, session boundaries and executed volume per market.");
  plot->add_option("steps_csv", options->steps_csv,
                   "Steps CSV written by pams run --steps-csv")
      ->type_name("STEPS.csv")
      ->required();
  plot->add_option("-o,--output", options->output,
                   "Chart file to write: .png or .svg")
      ->type_name("FILE")
      ->required();
  plot->add_option("--width", options->chart.width,
                   "Width in pixels (default 1200)")
      ->check(SizeCheck(analysis::kMinChartWidth, analysis::kMaxChartSize));
  plot->add_option("--height", options->chart.height,
                   "Height in pixels (default 800)")
      ->check(SizeCheck(analysis::kMinChartHeight, analysis::kMaxChartSize));
  plot->add_option("--title", options->chart.title, "Title above the chart")
      ->type_name("TEXT");
  return [options] { return Plot(*options); };
}

}  // namespace pams::cli
