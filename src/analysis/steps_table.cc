#include "analysis/steps_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string_view>

#include "pams/errors.h"

namespace pams::analysis {

namespace {

// Splits one CSV record (RFC 4180 quoting, as AppendCsvField writes it).
// Returns false on an unterminated quote.
bool SplitCsvLine(std::string_view line, std::vector<std::string>* fields) {
  fields->clear();
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        field.push_back(c);
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields->push_back(std::move(field));
      field.clear();
    } else {
      field.push_back(c);
    }
  }
  fields->push_back(std::move(field));
  return !quoted;
}

}  // namespace

StepsTable StepsTable::ReadCsv(const std::string& path) {
  // A directory opens as a stream that reads nothing: say what it is.
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw ConfigError(path, "is a directory, not a steps CSV file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "cannot open the steps CSV file");
  std::string line;
  if (!std::getline(in, line)) throw ConfigError(path, "the file is empty");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> fields;
  SplitCsvLine(line, &fields);
  // The columns read, by name.
  enum Column { kSession, kMarketId, kName, kTime, kPrice, kFundamental, kVolume, kCount };
  static constexpr const char* kNames[kCount] = {
      "session_id", "market_id", "market_name", "market_time",
      "market_price", "fundamental_price", "executed_volume"};
  size_t index[kCount];
  for (int c = 0; c < kCount; ++c) {
    size_t i = 0;
    while (i < fields.size() && fields[i] != kNames[c]) ++i;
    if (i == fields.size()) {
      throw ConfigError(path + ":1", std::string("no column \"") + kNames[c] +
                                         "\" in the header (is this a --steps-csv file?)");
    }
    index[c] = i;
  }
  StepsTable table;
  std::map<int64_t, size_t> by_id;  // market_id -> index in table.markets
  int64_t line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    // A last line without its newline is a row cut short by an interrupted
    // run: skip it.
    if (in.eof()) break;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_number);
    if (!SplitCsvLine(line, &fields)) throw ConfigError(where, "unterminated quote");
    auto field = [&](Column c) -> const std::string& {
      if (index[c] >= fields.size()) {
        throw ConfigError(where, std::string("the row has no ") + kNames[c] + " field");
      }
      return fields[index[c]];
    };
    auto number = [&](Column c) {
      const std::string& s = field(c);
      if (s.empty()) return std::numeric_limits<double>::quiet_NaN();
      double v = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || end != s.data() + s.size()) {
        throw ConfigError(where, std::string(kNames[c]) + ": not a number: \"" + s + "\"");
      }
      return v;
    };
    auto integer = [&](Column c) {
      const std::string& s = field(c);
      int64_t v = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
        throw ConfigError(where, std::string(kNames[c]) + ": not an integer: \"" + s + "\"");
      }
      return v;
    };
    const int64_t id = integer(kMarketId);
    auto [it, added] = by_id.emplace(id, table.markets.size());
    if (added) {
      table.markets.emplace_back();
      table.markets.back().market_id = id;
      table.markets.back().market_name = field(kName);
    }
    MarketSteps& m = table.markets[it->second];
    m.session_id.push_back(integer(kSession));
    m.market_time.push_back(integer(kTime));
    m.market_price.push_back(number(kPrice));
    m.fundamental_price.push_back(number(kFundamental));
    m.executed_volume.push_back(number(kVolume));
  }
  return table;
}

StepsTable StepsTable::OnlySessions(const std::vector<int64_t>& session_ids) const {
  StepsTable out;
  for (const MarketSteps& m : markets) {
    MarketSteps kept;
    kept.market_id = m.market_id;
    kept.market_name = m.market_name;
    for (size_t i = 0; i < m.session_id.size(); ++i) {
      if (std::find(session_ids.begin(), session_ids.end(), m.session_id[i]) ==
          session_ids.end()) {
        continue;
      }
      kept.session_id.push_back(m.session_id[i]);
      kept.market_time.push_back(m.market_time[i]);
      kept.market_price.push_back(m.market_price[i]);
      kept.fundamental_price.push_back(m.fundamental_price[i]);
      kept.executed_volume.push_back(m.executed_volume[i]);
    }
    if (!kept.session_id.empty()) out.markets.push_back(std::move(kept));
  }
  return out;
}

}  // namespace pams::analysis
