// TableLogger: an engine logger that keeps a run's records as Tables
// (table.h), for pams_cpp.logs.TableLogger: the steps (the columns of
// `pams run --steps-csv`), the agents at the end (--agents-csv) and every
// order, cancel, execution and expiration (--events-csv). As in those
// files, the transaction fee columns (since PAMS's development branch) are
// there when a market of the run charges a fee.
//
// The log callbacks run on the simulation thread; the getters may be called
// from any thread at any time (a snapshot of the rows so far: a table handed
// out is never appended to, the logger copies it first).

#ifndef PAMS_PYTHON_SRC_INTEROP_TABLE_LOGGER_H_
#define PAMS_PYTHON_SRC_INTEROP_TABLE_LOGGER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "interop/table.h"
#include "pams/logs/logger.h"

namespace pams::python {

// What _core.Table holds: one table, shared with the arrays exported from it.
struct TableHandle {
  std::shared_ptr<const Table> table;
};

class TableLogger : public Logger {
 public:
  TableLogger(bool steps, bool agents, bool events);
  TableLogger(const TableLogger&) = delete;
  TableLogger& operator=(const TableLogger&) = delete;

  void process_simulation_begin_log(const SimulationBeginLog& log) override;
  void process_market_step_end_log(const MarketStepEndLog& log) override;
  void process_simulation_end_log(const SimulationEndLog& log) override;
  void process_order_log(const OrderLog& log) override;
  void process_cancel_log(const CancelLog& log) override;
  void process_expiration_log(const ExpirationLog& log) override;
  void process_execution_log(const ExecutionLog& log) override;

  // The rows so far; nullptr for a table the logger does not keep.
  std::shared_ptr<const Table> steps() const { return Snapshot(steps_); }
  std::shared_ptr<const Table> agents() const { return Snapshot(agents_); }
  std::shared_ptr<const Table> events() const { return Snapshot(events_); }

 private:
  std::shared_ptr<const Table> Snapshot(const std::shared_ptr<Table>& table) const;
  // The table to append to: a copy if the current one was handed out.
  // REQUIRES: mutex_ held.
  static Table& Writable(std::shared_ptr<Table>& table);
  // The fields an order, a cancel and an expiration share.
  struct OrderRow {
    int agent_id;
    int64_t order_id;
    bool is_buy;
    std::optional<double> price;
    int64_t volume;
    std::optional<int64_t> ttl;
  };
  template <typename OrderLikeLog>
  void AppendOrderRow(const char* kind, const OrderLikeLog& log, int64_t time);
  // Appends an events row: an order-like one (order set) or an execution
  // (execution set). REQUIRES: mutex_ held; events_ kept.
  void AppendEventRow(const char* kind, int64_t time, int market_id, const OrderRow* order,
                      const ExecutionLog* execution);

  mutable std::mutex mutex_;  // guards the tables' pointers and rows
  std::shared_ptr<Table> steps_;
  std::shared_ptr<Table> agents_;
  std::shared_ptr<Table> events_;
  bool with_fees_ = false;  // the fee columns were added
};

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_TABLE_LOGGER_H_
