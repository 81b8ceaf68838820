// EventsCsvLogger: every order, cancel, execution and expiration of a run,
// one CSV row each, in the order they happened (`pams run --events-csv`).
//
// Columns:
//   kind,time,market_id,agent_id,order_id,side,price,volume,ttl,
//   buy_agent_id,buy_order_id,sell_agent_id,sell_order_id
// kind is order, cancel, execution or expiration. Order, cancel and
// expiration rows describe the order concerned (price empty for a market
// order, ttl empty when the order has none) and leave the buy_/sell_
// columns empty; execution rows give price, volume and both sides, and leave
// agent_id, order_id, side and ttl empty. time is the market's time of the
// event (for a cancel, the time of the cancel). Numbers as Python prints
// them.
//
// A run can log tens of millions of rows, so the simulation thread only
// copies each event into a chunk; a writer thread formats full chunks and
// writes them. Memory stays bounded: when the writer falls behind by a few
// chunks, the simulation waits. Rows reach the file in whole chunks, so an
// interrupted run leaves a valid file up to its last complete row.
//
// The log callbacks and flush() are called on the simulation thread (one
// thread); the writer thread is private.

#ifndef PAMS_LOGS_EVENTS_CSV_LOGGER_H_
#define PAMS_LOGS_EVENTS_CSV_LOGGER_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pams/logs/logger.h"
#include "pams/util/output_file.h"

namespace pams {

class EventsCsvLogger : public Logger {
 public:
  static const char* const kHeader;

  // Opens path (throws ConfigError naming it when it cannot be written) and
  // starts the writer thread.
  explicit EventsCsvLogger(const std::string& path);
  // Writes what is left (errors are reported by flush(), which the runner
  // calls when the run ends) and stops the writer.
  ~EventsCsvLogger() override;
  EventsCsvLogger(const EventsCsvLogger&) = delete;
  EventsCsvLogger& operator=(const EventsCsvLogger&) = delete;

  void process_order_log(const OrderLog& log) override;
  void process_cancel_log(const CancelLog& log) override;
  void process_expiration_log(const ExpirationLog& log) override;
  void process_execution_log(const ExecutionLog& log) override;
  // Returns once every row logged so far is in the file. Throws
  // SimulationError if writing failed (e.g. the disk is full).
  void flush() override;

 private:
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
  };
  // The fields an order, a cancel and an expiration share; `time` differs
  // (a cancel's is its cancel_time).
  template <typename OrderLikeLog>
  static Record OrderRecord(Kind kind, const OrderLikeLog& log, int64_t time);

  static constexpr size_t kChunkRecords = 8192;
  static constexpr size_t kMaxQueuedChunks = 4;

  void Push(const Record& record) {
    chunk_.push_back(record);
    if (chunk_.size() == kChunkRecords) HandOff();
  }
  // Queues chunk_ for the writer (waiting while the queue is full) and
  // takes an empty chunk.
  void HandOff();
  void WriterLoop();
  static void AppendRow(const Record& r, std::string* out);

  OutputFile file_;  // written by the writer thread only, after construction
  std::vector<Record> chunk_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<Record>> queued_;  // guarded by mutex_
  std::vector<std::vector<Record>> spare_;  // guarded by mutex_
  bool writing_ = false;                    // guarded by mutex_
  bool stop_ = false;                       // guarded by mutex_
  std::string error_;                       // guarded by mutex_
  std::thread writer_;
};

}  // namespace pams

#endif  // PAMS_LOGS_EVENTS_CSV_LOGGER_H_
