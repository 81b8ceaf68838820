#include "pams/logs/market_step_loggers.h"

#include <array>

#include "logs/market_price_format.h"
#include "pams/market/market.h"
#include "pams/simulator/session.h"
#include "util/python_format.h"

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

class MarketStepPrintLogger::Impl {
 public:
  explicit Impl(std::FILE* out) : out(out) {}
  std::FILE* out;
  std::string buffer;
  // Per market: [market price, fundamental price].
  std::vector<std::array<PythonFloatCache, 2>> caches;
};

MarketStepPrintLogger::MarketStepPrintLogger(std::FILE* out)
    : impl_(std::make_unique<Impl>(out)) {}

MarketStepPrintLogger::~MarketStepPrintLogger() { flush(); }

void MarketStepPrintLogger::process_market_step_end_log(
    const MarketStepEndLog& log) {
  const size_t id = static_cast<size_t>(log.market.market_id());
  auto& caches = impl_->caches;
  if (id >= caches.size()) caches.resize(id + 1);
  auto& cache = caches[id];
  std::string& buffer = impl_->buffer;
  AppendPythonInt(log.session.session_id(), &buffer);
  buffer.push_back(' ');
  AppendPythonInt(log.market.get_time(), &buffer);
  buffer.push_back(' ');
  AppendPythonInt(log.market.market_id(), &buffer);
  buffer.push_back(' ');
  buffer.append(log.market.name());
  buffer.push_back(' ');
  AppendMarketPrice(log.market, &cache[0], &buffer);
  buffer.push_back(' ');
  cache[1].Append(log.market.get_fundamental_price(), &buffer);
  buffer.push_back('\n');
  if (buffer.size() >= kFlushBytes) flush();
}

void MarketStepPrintLogger::flush() {
  std::string& buffer = impl_->buffer;
  if (!buffer.empty()) {
    std::fwrite(buffer.data(), 1, buffer.size(), impl_->out);
    buffer.clear();
  }
  std::fflush(impl_->out);
}

void MarketStepSaver::process_market_step_end_log(const MarketStepEndLog& log) {
  logs_.push_back(Record{log.session.session_id(), log.market.get_time(),
                         log.market.market_id(), log.market.name(),
                         log.market.get_market_price(),
                         log.market.get_fundamental_price()});
}

}  // namespace pams
