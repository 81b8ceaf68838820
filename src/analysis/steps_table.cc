#include "analysis/steps_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string_view>

#include "logs/log_schema.h"
#include "pams/errors.h"
#include "support/csv.h"

namespace pams::analysis {

StepsTable StepsTable::ReadCsv(const std::string& path) {
  // A directory opens as a stream that reads nothing: say what it is.
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw ConfigError(path, "is a directory, not a steps CSV file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "cannot open the steps CSV file");
  csv::Reader reader(&in, path);
  std::vector<std::string> fields;
  if (reader.Next(&fields) == csv::Reader::Status::kEnd) {
    throw ConfigError(path, "the file is empty");
  }
  // The columns read, by name (the steps' columns: logs/log_schema.h).
  enum Column { kSession, kMarketId, kName, kTime, kPrice, kFundamental, kVolume, kCount };
  using log_schema::Of;
  using log_schema::StepsColumn;
  static constexpr const char* kNames[kCount] = {
      Of(StepsColumn::kSessionId).name,    Of(StepsColumn::kMarketId).name,
      Of(StepsColumn::kMarketName).name,   Of(StepsColumn::kMarketTime).name,
      Of(StepsColumn::kMarketPrice).name,  Of(StepsColumn::kFundamentalPrice).name,
      Of(StepsColumn::kExecutedVolume).name};
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
  for (;;) {
    // A last row without its line break is a row cut short by an
    // interrupted run: skip it.
    if (reader.Next(&fields) != csv::Reader::Status::kRecord) break;
    if (fields.size() == 1 && fields[0].empty()) continue;  // a blank line
    const std::string where = path + ":" + std::to_string(reader.line());
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

std::string PrintableName(const std::string& name) {
  std::string out;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace pams::analysis
