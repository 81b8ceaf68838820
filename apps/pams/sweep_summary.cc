// The summary of a pams sweep (see sweep_summary.h).

#include "sweep_summary.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "analysis/steps_table.h"
#include "pams/config/json.h"
#include "util/csv.h"

namespace pams::cli {

namespace {

RunFacts ComputeOne(int64_t seed, const std::string& steps_csv,
                    const std::vector<int64_t>& sessions) {
  RunFacts run;
  run.seed = seed;
  try {
    analysis::StepsTable table = analysis::StepsTable::ReadCsv(steps_csv);
    if (!sessions.empty()) {
      table = table.OnlySessions(sessions);
      if (table.markets.empty()) {
        throw std::runtime_error(steps_csv + ": no row belongs to the sessions of --session");
      }
    }
    run.markets = analysis::ComputeStylizedFacts(table);
    for (const analysis::MarketSteps& market : table.markets) {
      run.final_market_price.push_back(
          market.market_price.empty() ? std::numeric_limits<double>::quiet_NaN()
                                      : market.market_price.back());
    }
    if (run.final_market_price.size() != run.markets.size()) {
      throw std::runtime_error(steps_csv + ": facts and markets do not match");
    }
  } catch (const std::exception& e) {
    run.markets.clear();
    run.final_market_price.clear();
    run.error = e.what();
  }
  return run;
}

// Shortest text that reads back as the same double ("nan" for NaN), as
// Python's repr.
std::string Number(double x) {
  if (std::isnan(x)) return "nan";
  return fmt::format("{}", x);
}

// A CSV field (RFC 4180, as every CSV file pams writes).
std::string CsvField(const std::string& s) {
  std::string field;
  csv::AppendField(s, &field);
  return field;
}

// Mean and sample standard deviation (ddof 1) of the defined values; NaN
// when there are too few.
struct MeanStd {
  double mean = std::numeric_limits<double>::quiet_NaN();
  double std = std::numeric_limits<double>::quiet_NaN();
};

MeanStd Aggregate(const std::vector<double>& values) {
  std::vector<double> defined;
  for (double v : values) {
    if (std::isfinite(v)) defined.push_back(v);
  }
  MeanStd result;
  if (defined.empty()) return result;
  double sum = 0;
  for (double v : defined) sum += v;
  result.mean = sum / static_cast<double>(defined.size());
  if (defined.size() < 2) return result;
  double squares = 0;
  for (double v : defined) squares += (v - result.mean) * (v - result.mean);
  result.std = std::sqrt(squares / static_cast<double>(defined.size() - 1));
  return result;
}

// s padded with spaces to width characters (UTF-8 aware, for the "±").
std::string Pad(const std::string& s, size_t width) {
  size_t characters = 0;
  for (char c : s) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return characters >= width ? s : s + std::string(width - characters, ' ');
}

std::string FormatMeanStd(const MeanStd& m) {
  if (std::isnan(m.mean)) return "-";
  if (std::isnan(m.std)) return fmt::format("{:.4g}", m.mean);
  return fmt::format("{:.4g} ± {:.2g}", m.mean, m.std);
}

}  // namespace

std::vector<RunFacts> ComputeRunFacts(const std::vector<int64_t>& seeds,
                                      const std::vector<std::string>& steps_csv,
                                      int threads,
                                      const std::vector<int64_t>& sessions) {
  std::vector<RunFacts> runs(seeds.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < seeds.size(); i = next++) {
      runs[i] = ComputeOne(seeds[i], steps_csv[i], sessions);
    }
  };
  const size_t n = std::clamp<size_t>(static_cast<size_t>(std::max(threads, 1)), 1,
                                      std::max<size_t>(seeds.size(), 1));
  std::vector<std::thread> pool;
  for (size_t i = 1; i < n; ++i) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return runs;
}

std::string SummaryCsv(const std::vector<RunFacts>& runs) {
  std::string out =
      "seed,market_id,market_name,steps,return_mean,return_std,excess_kurtosis,"
      "return_acf_1,abs_return_acf_1,abs_return_acf_5,total_volume,"
      "mean_abs_fundamental_gap,final_market_price\n";
  for (const RunFacts& run : runs) {
    for (size_t m = 0; m < run.markets.size(); ++m) {
      const analysis::StylizedFacts& f = run.markets[m];
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", run.seed,
                         f.market_id, CsvField(f.market_name), f.steps,
                         Number(f.return_mean), Number(f.return_std),
                         Number(f.excess_kurtosis),
                         Number(f.return_autocorrelation[0]),
                         Number(f.abs_return_autocorrelation[0]),
                         Number(f.abs_return_autocorrelation[4]),
                         Number(f.total_volume), Number(f.mean_abs_fundamental_gap),
                         Number(run.final_market_price[m]));
    }
  }
  return out;
}

std::string SummaryJson(const std::vector<RunFacts>& runs) {
  Json json_runs = Json::array();
  for (const RunFacts& run : runs) {
    if (!run.error.empty()) continue;
    // The facts as `pams stats --json` writes them, plus the final price.
    Json markets = analysis::StylizedFactsToJsonValue(run.markets)["markets"];
    for (size_t m = 0; m < run.markets.size(); ++m) {
      markets[m]["final_market_price"] = run.final_market_price[m];
    }
    json_runs.push_back({{"seed", run.seed}, {"markets", std::move(markets)}});
  }
  Json summary = {{"runs", std::move(json_runs)}};
  return summary.dump(2) + "\n";
}

std::string FormatAggregate(const std::vector<RunFacts>& runs) {
  struct Market {
    int64_t id;
    std::string name;
    std::vector<double> return_std, kurtosis, abs_acf_1;
  };
  std::vector<Market> markets;
  for (const RunFacts& run : runs) {
    for (const analysis::StylizedFacts& f : run.markets) {
      auto it = std::find_if(markets.begin(), markets.end(), [&](const Market& m) {
        return m.id == f.market_id && m.name == analysis::PrintableName(f.market_name);
      });
      if (it == markets.end()) {
        markets.push_back({f.market_id, analysis::PrintableName(f.market_name), {}, {}, {}});
        it = markets.end() - 1;
      }
      it->return_std.push_back(f.return_std);
      it->kurtosis.push_back(f.excess_kurtosis);
      it->abs_acf_1.push_back(f.abs_return_autocorrelation[0]);
    }
  }
  size_t name_width = 6;
  for (const Market& m : markets) name_width = std::max(name_width, m.name.size());
  std::string out = fmt::format("{:<6} {:<{}} {:>6}  {} {} {}\n", "market", "name",
                                name_width, "runs", Pad("return_std", 22),
                                Pad("excess_kurtosis", 22), "abs_return_acf_1");
  for (const Market& m : markets) {
    out += fmt::format("{:<6} {:<{}} {:>6}  {} {} {}\n", m.id, m.name, name_width,
                       m.return_std.size(), Pad(FormatMeanStd(Aggregate(m.return_std)), 22),
                       Pad(FormatMeanStd(Aggregate(m.kurtosis)), 22),
                       FormatMeanStd(Aggregate(m.abs_acf_1)));
  }
  out += "(mean ± standard deviation across runs)\n";
  return out;
}

void WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    file << content;
    file.close();
    if (!file) throw std::runtime_error(path + ": cannot write");
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    throw std::runtime_error(path + ": cannot write (" + error.message() + ")");
  }
}

}  // namespace pams::cli
