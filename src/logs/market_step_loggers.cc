#include "pams/logs/market_step_loggers.h"

#include <array>
#include <cerrno>

#include "logs/market_price_format.h"
#include "pams/errors.h"
#include "pams/market/market.h"
#include "pams/simulator/session.h"
#include "support/python_format.h"

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
  // Writes the buffer out; once a write has failed, drops it.
  void Write();

  std::FILE* out;
  std::string buffer;
  // The errno of the first failed write (0: none). A failure is thrown once
  // (stopping the run: PAMS's print() would raise too); the later flushes
  // that the failure itself causes drop their lines.
  int error = 0;
  bool reported = false;
  // Per market: [market price, fundamental price].
  std::vector<std::array<PythonFloatCache, 2>> caches;
};

MarketStepPrintLogger::MarketStepPrintLogger(std::FILE* out)
    : impl_(std::make_unique<Impl>(out)) {}

MarketStepPrintLogger::~MarketStepPrintLogger() {
  try {
    flush();
  } catch (const SimulationError&) {
    // Reported by the runner's flush at the end of the run, if ever.
  }
}

void MarketStepPrintLogger::Impl::Write() {
  errno = 0;
  if (error == 0 && !buffer.empty() &&
      std::fwrite(buffer.data(), 1, buffer.size(), out) != buffer.size()) {
    error = errno != 0 ? errno : EIO;
  }
  buffer.clear();
  if (error == 0 && std::fflush(out) != 0) error = errno != 0 ? errno : EIO;
  if (error != 0 && !reported) {
    reported = true;
    // The reader of a pipe going away (EPIPE, with SIGPIPE ignored) ends
    // the run as well: pams run then exits with status 141 (see its help).
    throw OutputError(out == stdout ? "stdout" : "the step lines' output",
                      "writing failed", error);
  }
}

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
  if (buffer.size() >= kFlushBytes) impl_->Write();
}

void MarketStepPrintLogger::flush() { impl_->Write(); }

void MarketStepSaver::process_market_step_end_log(const MarketStepEndLog& log) {
  logs_.push_back(Record{log.session.session_id(), log.market.get_time(),
                         log.market.market_id(), log.market.name(),
                         log.market.get_market_price(),
                         log.market.get_fundamental_price(),
                         log.market.market_price_is_int(log.market.get_time())});
}

}  // namespace pams
