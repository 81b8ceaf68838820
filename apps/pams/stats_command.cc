// pams stats STEPS.csv [--json]: the stylized facts of each market of a
// steps CSV that `pams run --steps-csv` wrote: return moments, fat tails,
// volatility clustering, volume, distance from the fundamental price
// (pams/analysis/stylized_facts.h).

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "analysis/steps_table.h"
#include "analysis/stylized_facts.h"
#include "pams/errors.h"

namespace pams::cli {

namespace {

struct StatsOptions {
  std::string steps_csv;
  std::vector<int64_t> sessions;
  bool json = false;
};

int Stats(const StatsOptions& options) {
  analysis::StepsTable table = analysis::StepsTable::ReadCsv(options.steps_csv);
  if (table.markets.empty()) {
    throw ConfigError(options.steps_csv, "no rows (the file has only its header)");
  }
  if (!options.sessions.empty()) {
    table = table.OnlySessions(options.sessions);
    if (table.markets.empty()) {
      throw ConfigError("--session", "no row of " + options.steps_csv +
                                         " belongs to the sessions given");
    }
  }
  const std::vector<analysis::StylizedFacts> facts = analysis::ComputeStylizedFacts(table);
  const std::string text = options.json ? analysis::StylizedFactsToJson(facts)
                                        : analysis::FormatStylizedFacts(facts);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

std::function<int()> AddStatsCommand(CLI::App* app) {
  auto options = std::make_shared<StatsOptions>();
  CLI::App* stats = app->add_subcommand(
      "stats",
      "Stylized facts of a steps CSV (pams run --steps-csv), per market: "
      "log-return mean and std, excess kurtosis, autocorrelation of returns "
      "and |returns| at lags 1-10, total volume, gap to the fundamental "
      "price.");
  stats->add_option("steps_csv", options->steps_csv,
                    "Steps CSV written by pams run --steps-csv")
      ->type_name("STEPS.csv")
      ->required();
  stats->add_option("--session", options->sessions,
                    "Only the steps of this session_id (repeatable), e.g. "
                    "--session 1 to leave out a warm-up session 0")
      ->type_name("ID");
  stats->add_flag("--json", options->json,
                  "Print JSON ({\"markets\": [...]}, NaN as null) instead of a table");
  return [options] { return Stats(*options); };
}

}  // namespace pams::cli
