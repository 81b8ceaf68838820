#include "pams/logs/market_step_loggers.h"

#include "pams/market/market.h"
#include "pams/simulator/session.h"
#include "pams/util/python_format.h"

namespace pams {

namespace {
// Lines are collected and written in blocks, which matters when every step
// prints (stdio would lock and copy per call).
constexpr size_t kFlushBytes = 1 << 16;
}  // namespace

void AppendMarketPrice(const Market& market, PythonFloatCache* cache,
                       std::string* out) {
  const double price = market.get_market_price();
  if (market.market_price_is_int(market.get_time())) {
    AppendPythonIntegralDouble(price, out);
  } else {
    cache->Append(price, out);
  }
}

MarketStepPrintLogger::~MarketStepPrintLogger() { flush(); }

void MarketStepPrintLogger::process_market_step_end_log(
    const MarketStepEndLog& log) {
  const size_t id = static_cast<size_t>(log.market.market_id());
  if (id >= caches_.size()) caches_.resize(id + 1);
  auto& cache = caches_[id];
  AppendPythonInt(log.session.session_id(), &buffer_);
  buffer_.push_back(' ');
  AppendPythonInt(log.market.get_time(), &buffer_);
  buffer_.push_back(' ');
  AppendPythonInt(log.market.market_id(), &buffer_);
  buffer_.push_back(' ');
  buffer_.append(log.market.name());
  buffer_.push_back(' ');
  AppendMarketPrice(log.market, &cache[0], &buffer_);
  buffer_.push_back(' ');
  cache[1].Append(log.market.get_fundamental_price(), &buffer_);
  buffer_.push_back('\n');
  if (buffer_.size() >= kFlushBytes) flush();
}

void MarketStepPrintLogger::flush() {
  if (!buffer_.empty()) {
    std::fwrite(buffer_.data(), 1, buffer_.size(), out_);
    buffer_.clear();
  }
  std::fflush(out_);
}

void MarketStepSaver::process_market_step_end_log(const MarketStepEndLog& log) {
  logs_.push_back(Record{log.session.session_id(), log.market.get_time(),
                         log.market.market_id(), log.market.name(),
                         log.market.get_market_price(),
                         log.market.get_fundamental_price()});
}

}  // namespace pams
