// The summary of a pams sweep (see sweep_summary.h).

#include "analysis/sweep_summary.h"

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
#include "support/csv.h"

namespace pams::analysis {

namespace {

RunFacts ComputeOne(int64_t seed, const std::string& steps_csv,
                    const std::vector<int64_t>& sessions) {
  RunFacts run;
  run.seed = seed;
  try {
    StepsTable table = StepsTable::ReadCsv(steps_csv);
    if (!sessions.empty()) {
      table = table.OnlySessions(sessions);
      if (table.markets.empty()) {
        throw std::runtime_error(steps_csv + ": no row belongs to the sessions of --session");
      }
    }
    run.markets = ComputeStylizedFacts(table);
    for (const MarketSteps& market : table.markets) {
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

namespace {

// The statistics of summary.csv after steps, in its order.
struct Statistic {
  const char* name;
  double (*get)(const RunFacts& run, size_t market);
};

constexpr Statistic kStatistics[] = {
    {"return_mean", [](const RunFacts& r, size_t m) { return r.markets[m].return_mean; }},
    {"return_std", [](const RunFacts& r, size_t m) { return r.markets[m].return_std; }},
    {"excess_kurtosis",
     [](const RunFacts& r, size_t m) { return r.markets[m].excess_kurtosis; }},
    {"return_acf_1",
     [](const RunFacts& r, size_t m) { return r.markets[m].return_autocorrelation[0]; }},
    {"abs_return_acf_1",
     [](const RunFacts& r, size_t m) { return r.markets[m].abs_return_autocorrelation[0]; }},
    {"abs_return_acf_5",
     [](const RunFacts& r, size_t m) { return r.markets[m].abs_return_autocorrelation[4]; }},
    {"total_volume", [](const RunFacts& r, size_t m) { return r.markets[m].total_volume; }},
    {"mean_abs_fundamental_gap",
     [](const RunFacts& r, size_t m) { return r.markets[m].mean_abs_fundamental_gap; }},
    {"final_market_price", [](const RunFacts& r, size_t m) { return r.final_market_price[m]; }},
};

// The grid's columns of a run's row: its values, CSV-quoted.
std::string PointFields(const RunFacts& run, size_t keys) {
  std::string fields;
  for (size_t k = 0; k < keys; ++k) fields += CsvField(run.point_values.at(k)) + ",";
  return fields;
}

std::string KeyHeader(const std::vector<std::string>& keys) {
  std::string header;
  for (const std::string& key : keys) header += CsvField(key) + ",";
  return header;
}

// The runs' (point, market) groups in order of first appearance: per group,
// a run and market index of each member.
struct Group {
  size_t point;
  int64_t market_id;
  std::string market_name;
  std::vector<std::pair<size_t, size_t>> members;  // (run, market)
};

std::vector<Group> GroupByPointAndMarket(const std::vector<RunFacts>& runs) {
  std::vector<Group> groups;
  for (size_t r = 0; r < runs.size(); ++r) {
    for (size_t m = 0; m < runs[r].markets.size(); ++m) {
      const StylizedFacts& f = runs[r].markets[m];
      auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
        return g.point == runs[r].point && g.market_id == f.market_id &&
               g.market_name == f.market_name;
      });
      if (it == groups.end()) {
        groups.push_back({runs[r].point, f.market_id, f.market_name, {}});
        it = groups.end() - 1;
      }
      it->members.emplace_back(r, m);
    }
  }
  return groups;
}

}  // namespace

std::string SummaryCsv(const std::vector<RunFacts>& runs, const std::vector<std::string>& keys) {
  std::string out = KeyHeader(keys) + "seed,market_id,market_name,steps";
  for (const Statistic& s : kStatistics) out += std::string(",") + s.name;
  out += "\n";
  for (const RunFacts& run : runs) {
    for (size_t m = 0; m < run.markets.size(); ++m) {
      const StylizedFacts& f = run.markets[m];
      out += PointFields(run, keys.size());
      out += fmt::format("{},{},{},{}", run.seed, f.market_id, CsvField(f.market_name),
                         f.steps);
      for (const Statistic& s : kStatistics) out.append(",").append(Number(s.get(run, m)));
      out += "\n";
    }
  }
  return out;
}

std::string SummaryJson(const std::vector<RunFacts>& runs,
                        const std::vector<std::string>& keys) {
  Json json_runs = Json::array();
  for (const RunFacts& run : runs) {
    if (!run.error.empty()) continue;
    // The facts as `pams stats --json` writes them, plus the final price.
    Json markets = StylizedFactsToJsonValue(run.markets)["markets"];
    for (size_t m = 0; m < run.markets.size(); ++m) {
      markets[m]["final_market_price"] = run.final_market_price[m];
    }
    Json entry = Json::object();
    if (!keys.empty()) {
      Json point = Json::object();
      for (size_t k = 0; k < keys.size(); ++k) point[keys[k]] = Json::parse(run.point_values[k]);
      entry["point"] = std::move(point);
    }
    entry["seed"] = run.seed;
    entry["markets"] = std::move(markets);
    json_runs.push_back(std::move(entry));
  }
  Json summary = {{"runs", std::move(json_runs)}};
  return summary.dump(2) + "\n";
}

std::string AggregateCsv(const std::vector<RunFacts>& runs,
                         const std::vector<std::string>& keys) {
  std::string out = KeyHeader(keys) + "market_id,market_name,runs";
  for (const Statistic& s : kStatistics) out += fmt::format(",{0}_mean,{0}_std", s.name);
  out += "\n";
  for (const Group& g : GroupByPointAndMarket(runs)) {
    out += PointFields(runs[g.members.front().first], keys.size());
    out += fmt::format("{},{},{}", g.market_id, CsvField(g.market_name), g.members.size());
    for (const Statistic& s : kStatistics) {
      std::vector<double> values;
      for (const auto& [r, m] : g.members) values.push_back(s.get(runs[r], m));
      const MeanStd a = Aggregate(values);
      out.append(",").append(Number(a.mean)).append(",").append(Number(a.std));
    }
    out += "\n";
  }
  return out;
}

std::string FormatAggregate(const std::vector<RunFacts>& runs,
                            const std::vector<std::string>& keys) {
  const std::vector<Group> groups = GroupByPointAndMarket(runs);
  // With a grid, a first column with the point's values under the keys'
  // last parts ("fundamentalWeight=0.5 chartWeight=1").
  std::vector<std::string> points;
  size_t point_width = 5;
  for (const Group& g : groups) {
    std::string label;
    const RunFacts& run = runs[g.members.front().first];
    for (size_t k = 0; k < keys.size(); ++k) {
      const std::string& key = keys[k];
      const size_t dot = key.rfind('.');
      label += (label.empty() ? "" : " ") +
               (dot == std::string::npos ? key : key.substr(dot + 1)) + "=" +
               run.point_values[k];
    }
    point_width = std::max(point_width, label.size());
    points.push_back(std::move(label));
  }
  size_t name_width = 6;
  for (const Group& g : groups) {
    name_width = std::max(name_width, PrintableName(g.market_name).size());
  }
  const std::string point_header =
      keys.empty() ? "" : fmt::format("{:<{}} ", "point", point_width);
  std::string out = point_header +
                    fmt::format("{:<6} {:<{}} {:>6}  {} {} {}\n", "market", "name",
                                name_width, "runs", Pad("return_std", 22),
                                Pad("excess_kurtosis", 22), "abs_return_acf_1");
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    std::vector<double> return_std, kurtosis, abs_acf_1;
    for (const auto& [r, m] : g.members) {
      const StylizedFacts& f = runs[r].markets[m];
      return_std.push_back(f.return_std);
      kurtosis.push_back(f.excess_kurtosis);
      abs_acf_1.push_back(f.abs_return_autocorrelation[0]);
    }
    if (!keys.empty()) out += fmt::format("{:<{}} ", points[i], point_width);
    out += fmt::format("{:<6} {:<{}} {:>6}  {} {} {}\n", g.market_id,
                       PrintableName(g.market_name), name_width, g.members.size(),
                       Pad(FormatMeanStd(Aggregate(return_std)), 22),
                       Pad(FormatMeanStd(Aggregate(kurtosis)), 22),
                       FormatMeanStd(Aggregate(abs_acf_1)));
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

}  // namespace pams::analysis
