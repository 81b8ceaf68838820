// The events CSV file. Its columns are log_schema.h's: the header is joined
// from it, and rows are written column by column in its order.

#include "pams/logs/events_csv_logger.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "logs/log_schema.h"
#include "pams/errors.h"
#include "pams/market/market.h"
#include "pams/simulator/simulator.h"
#include "support/output_file.h"
#include "support/python_format.h"

namespace pams {

using log_schema::EventsColumn;
using log_schema::Which;

const char* const EventsCsvLogger::kHeader =
    log_schema::kJoined<log_schema::kEvents, Which::kWithoutFees, true>.data();

const char* const EventsCsvLogger::kFeeColumns =
    log_schema::kJoined<log_schema::kEvents, Which::kFeesOnly, false>.data();

// The simulation thread copies each event into a chunk (Push); the writer
// thread formats full chunks and writes them.
class EventsCsvLogger::Impl {
 public:
  enum class Kind : uint8_t { kOrder, kCancel, kExecution, kExpiration };
  // One event, as logged; formatted by the writer thread.
  struct Record {
    Kind kind;
    bool is_buy;
    bool has_price;
    bool has_ttl;
    int market_id;
    int agent_id;       // execution: the buyer
    int sell_agent_id;  // execution only
    int64_t time;
    int64_t order_id;   // execution: the buy order
    int64_t sell_order_id;
    int64_t volume;
    int64_t ttl;
    double price;
    double buy_fee;   // execution only
    double sell_fee;  // execution only
  };

  explicit Impl(const std::string& path);
  ~Impl();

  // The fields an order, a cancel and an expiration share; `time` differs
  // (a cancel's is its cancel_time).
  template <typename OrderLikeLog>
  static Record OrderRecord(Kind kind, const OrderLikeLog& log, int64_t time);

  void Push(const Record& record) {
    chunk_.push_back(record);
    if (chunk_.size() == kChunkRecords) HandOff();
  }
  // Hands the chunk off if it holds rows older than kHandOffSeconds.
  void HandOffOld() {
    if (chunk_.empty()) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - handed_off_ < std::chrono::duration<double>(kHandOffSeconds)) return;
    HandOff();
  }
  void Flush();
  // Whether rows have the fee columns. REQUIRES: before the first Push.
  void set_with_fees(bool with_fees) { with_fees_ = with_fees; }

 private:
  static constexpr size_t kChunkRecords = 8192;
  static constexpr double kHandOffSeconds = 0.5;
  static constexpr size_t kMaxQueuedChunks = 4;

  // Queues chunk_ for the writer (waiting while the queue is full) and
  // takes an empty chunk.
  void HandOff();
  void WriterLoop();
  // The header, before the first row. Called by the writer thread, or by
  // Flush once the writer is idle.
  void WriteHeaderOnce();
  void AppendRow(const Record& r, std::string* out) const;

  // Set before the first record is queued; the queue's mutex orders it
  // before the writer reads it.
  bool with_fees_ = false;
  bool header_written_ = false;  // the writer's (Flush's once it is idle)
  OutputFile file_;  // written by the writer thread only, after construction
  std::vector<Record> chunk_;
  // When chunk_ was last handed off (or the file opened).
  std::chrono::steady_clock::time_point handed_off_ = std::chrono::steady_clock::now();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<Record>> queued_;  // guarded by mutex_
  std::vector<std::vector<Record>> spare_;  // guarded by mutex_
  bool writing_ = false;                    // guarded by mutex_
  bool stop_ = false;                       // guarded by mutex_
  std::exception_ptr error_;                // guarded by mutex_: the first failure
  std::thread writer_;
};

EventsCsvLogger::Impl::Impl(const std::string& path) : file_(path) {
  chunk_.reserve(kChunkRecords);
  writer_ = std::thread([this] { WriterLoop(); });
}

EventsCsvLogger::Impl::~Impl() {
  if (!chunk_.empty()) {
    std::unique_lock<std::mutex> lock(mutex_);
    queued_.push_back(std::move(chunk_));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  writer_.join();
}

template <typename OrderLikeLog>
EventsCsvLogger::Impl::Record EventsCsvLogger::Impl::OrderRecord(Kind kind,
                                                     const OrderLikeLog& log,
                                                     int64_t time) {
  Record r{};
  r.kind = kind;
  r.is_buy = log.is_buy;
  r.has_price = log.price.has_value();
  r.price = log.price.value_or(0.0);
  r.has_ttl = log.ttl.has_value();
  r.ttl = log.ttl.value_or(0);
  r.market_id = log.market_id;
  r.agent_id = log.agent_id;
  r.time = time;
  r.order_id = log.order_id;
  r.volume = log.volume;
  return r;
}

EventsCsvLogger::EventsCsvLogger(const std::string& path)
    : impl_(std::make_unique<Impl>(path)) {}

EventsCsvLogger::~EventsCsvLogger() = default;

void EventsCsvLogger::flush() { impl_->Flush(); }

void EventsCsvLogger::process_simulation_begin_log(const SimulationBeginLog& log) {
  bool with_fees = false;
  for (const auto& market : log.simulator.market_objects()) {
    if (market->transaction_fee() != nullptr) with_fees = true;
  }
  impl_->set_with_fees(with_fees);
}

void EventsCsvLogger::process_order_log(const OrderLog& log) {
  impl_->Push(Impl::OrderRecord(Impl::Kind::kOrder, log, log.time));
}

void EventsCsvLogger::process_cancel_log(const CancelLog& log) {
  impl_->Push(Impl::OrderRecord(Impl::Kind::kCancel, log, log.cancel_time));
}

void EventsCsvLogger::process_expiration_log(const ExpirationLog& log) {
  impl_->Push(Impl::OrderRecord(Impl::Kind::kExpiration, log, log.time));
}

void EventsCsvLogger::process_execution_log(const ExecutionLog& log) {
  Impl::Record r{};
  r.kind = Impl::Kind::kExecution;
  r.has_price = true;
  r.price = log.price;
  r.market_id = log.market_id;
  r.agent_id = log.buy_agent_id;
  r.sell_agent_id = log.sell_agent_id;
  r.time = log.time;
  r.order_id = log.buy_order_id;
  r.sell_order_id = log.sell_order_id;
  r.volume = log.volume;
  r.buy_fee = log.buy_transaction_fee;
  r.sell_fee = log.sell_transaction_fee;
  impl_->Push(r);
}

void EventsCsvLogger::process_market_step_end_log(const MarketStepEndLog&) {
  impl_->HandOffOld();
}

void EventsCsvLogger::Impl::HandOff() {
  handed_off_ = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return queued_.size() < kMaxQueuedChunks; });
  queued_.push_back(std::move(chunk_));
  if (spare_.empty()) {
    chunk_ = std::vector<Record>();
    chunk_.reserve(kChunkRecords);
  } else {
    chunk_ = std::move(spare_.back());
    spare_.pop_back();
  }
  lock.unlock();
  changed_.notify_all();
}

void EventsCsvLogger::Impl::Flush() {
  if (!chunk_.empty()) HandOff();
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return queued_.empty() && !writing_; });
  if (error_) std::rethrow_exception(error_);
  // The writer is idle (and the mutex orders its writes before this): the
  // file is this thread's now. The runner flushes once, at the end of the
  // run; closing reports what only close(2) finds out.
  WriteHeaderOnce();
  file_.close();
}

void EventsCsvLogger::Impl::WriteHeaderOnce() {
  if (header_written_) return;
  header_written_ = true;
  file_.row()->append(
      with_fees_ ? log_schema::kJoined<log_schema::kEvents, Which::kAll, true>.data() : kHeader);
  file_.commit_row();
}

void EventsCsvLogger::Impl::WriterLoop() {
  for (;;) {
    std::vector<Record> chunk;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return stop_ || !queued_.empty(); });
      if (queued_.empty()) break;  // stopping, nothing left
      chunk = std::move(queued_.front());
      queued_.pop_front();
      writing_ = true;
    }
    changed_.notify_all();  // a slot in the queue is free
    std::exception_ptr error;
    try {
      WriteHeaderOnce();
      for (const Record& r : chunk) {
        AppendRow(r, file_.row());
        file_.commit_row();
      }
      // Each chunk reaches the file when it is done, so that the file lags
      // the run by at most a chunk.
      file_.flush();
    } catch (const std::exception&) {
      error = std::current_exception();
    }
    chunk.clear();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = error;
      spare_.push_back(std::move(chunk));
      writing_ = false;
    }
    changed_.notify_all();
  }
}

void EventsCsvLogger::Impl::AppendRow(const Record& r, std::string* out) const {
  static constexpr const char* kKinds[] = {"order", "cancel", "execution", "expiration"};
  static constexpr size_t kColumns = log_schema::ColumnCount(log_schema::kEvents, false);
  static constexpr size_t kColumnsWithFees = log_schema::ColumnCount(log_schema::kEvents, true);
  // An execution fills its own columns; an order, cancel or expiration the
  // order's (log_schema.h).
  const bool execution = r.kind == Kind::kExecution;
  const size_t columns = with_fees_ ? kColumnsWithFees : kColumns;
  for (size_t i = 0; i < columns; ++i) {
    if (i > 0) out->push_back(',');
    switch (static_cast<EventsColumn>(i)) {
      case EventsColumn::kKind:
        out->append(kKinds[static_cast<int>(r.kind)]);
        break;
      case EventsColumn::kTime:
        AppendPythonInt(r.time, out);
        break;
      case EventsColumn::kMarketId:
        AppendPythonInt(r.market_id, out);
        break;
      case EventsColumn::kAgentId:
        if (!execution) AppendPythonInt(r.agent_id, out);
        break;
      case EventsColumn::kOrderId:
        if (!execution) AppendPythonInt(r.order_id, out);
        break;
      case EventsColumn::kSide:
        if (!execution) out->append(r.is_buy ? "buy" : "sell");
        break;
      case EventsColumn::kPrice:
        if (r.has_price) AppendPythonFloat(r.price, out);
        break;
      case EventsColumn::kVolume:
        AppendPythonInt(r.volume, out);
        break;
      case EventsColumn::kTtl:
        if (!execution && r.has_ttl) AppendPythonInt(r.ttl, out);
        break;
      case EventsColumn::kBuyAgentId:
        if (execution) AppendPythonInt(r.agent_id, out);
        break;
      case EventsColumn::kBuyOrderId:
        if (execution) AppendPythonInt(r.order_id, out);
        break;
      case EventsColumn::kSellAgentId:
        if (execution) AppendPythonInt(r.sell_agent_id, out);
        break;
      case EventsColumn::kSellOrderId:
        if (execution) AppendPythonInt(r.sell_order_id, out);
        break;
      case EventsColumn::kBuyTransactionFee:
        if (execution) AppendPythonFloat(r.buy_fee, out);
        break;
      case EventsColumn::kSellTransactionFee:
        if (execution) AppendPythonFloat(r.sell_fee, out);
        break;
      case EventsColumn::kCount:
        break;
    }
  }
  out->push_back('\n');
}

}  // namespace pams
