// Market: one traded asset with a buy and a sell order book, PAMS's
// execution rule and the per-step histories agents read (market price, mid
// price, last executed price, fundamental price, volumes, order counts).
//
// Agents read a Market through its const methods, which never change it and
// cost O(1) (histories are vectors indexed by time; nothing is scanned). The
// runner and events change it through the mutating methods, on the thread
// that runs the simulation. Const methods may run on many threads at once
// while no mutating method runs (the parallel runners rely on this).
//
// Histories hold one entry per step from 0 to get_time(). A history value may
// be "None" (PAMS's None, e.g. no mid price while a book is empty): the
// optional getters return nullopt then, and the raw spans hold NaN.
//
// Subclasses (user plugins) may override setup() and read extra keys; they
// may also preset the step-0 histories in setup (see histories()), as PAMS's
// ExtendedMarket sample does. A market with other matching rules (a dark
// pool) overrides place_order, match_orders and remain_executable_orders,
// and executes pairs through execute_orders().
//
// A market may charge a TransactionFee (transaction_fee.h; the config key
// "transactionFee", since PAMS's development branch): execute_orders()
// records each execution's fees in its log and their sum in the step's
// transaction fee revenue.

#ifndef PAMS_MARKET_MARKET_H_
#define PAMS_MARKET_MARKET_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pams/export.h"
#include "pams/logs/logs.h"
#include "pams/market/order.h"
#include "pams/market/order_book.h"
#include "pams/market/transaction_fee.h"
#include "pams/random/random.h"

namespace pams {

class Logger;
class SimulationJournal;
class Settings;
class Simulator;

// What the runner gives every market it creates.
struct PAMS_EXPORT MarketInit {
  int market_id = 0;
  Random prng;
  Simulator* simulator = nullptr;
  std::string name{};
  Logger* logger = nullptr;
  // The config class name it was created as ("Market", "ExtendedMarket").
  std::string class_name{};
};

class PAMS_EXPORT Market {
 public:
  // Per-step histories, index = time. NaN stands for None in the price
  // histories that can be empty.
  struct Histories {
    std::vector<double> market_prices;
    // 1 where the market price is a Python int (it came from an execution in
    // a market whose tickSize is an integer), so outputs print it as PAMS.
    std::vector<uint8_t> market_price_is_int;
    std::vector<double> mid_prices;
    std::vector<double> last_executed_prices;
    std::vector<double> fundamental_prices;
    std::vector<int64_t> executed_volumes;
    std::vector<double> executed_total_prices;
    std::vector<int64_t> n_buy_orders;
    std::vector<int64_t> n_sell_orders;
    // Fees charged at the step's executions (both sides; rebates reduce
    // it). 0.0 in a market without a transaction fee.
    std::vector<double> transaction_fee_revenues;
  };

  explicit Market(MarketInit init);
  virtual ~Market();
  Market(const Market&) = delete;
  Market& operator=(const Market&) = delete;

  // Reads tickSize (required, > 0), outstandingShares (optional int) and the
  // initial price (marketPrice, else fundamentalPrice).
  virtual void setup(const Settings& settings);

  int market_id() const { return market_id_; }
  const std::string& name() const { return name_; }
  const std::string& class_name() const { return class_name_; }
  double tick_size() const { return tick_size_; }
  bool tick_size_is_int() const { return tick_size_is_int_; }
  std::optional<int64_t> outstanding_shares() const {
    return outstanding_shares_;
  }
  bool is_running() const { return is_running_; }
  int64_t get_time() const { return time_; }

  // --- Histories. t defaults to the current step. Asking for a future step,
  // a negative step, or a required value that is None throws
  // SimulationError (PAMS raises AssertionError). ---
  double get_market_price() const { return get_market_price(time_); }
  double get_market_price(int64_t t) const {
    CheckTime(t);
    const double v = h_.market_prices[t];
    if (v != v) FailNone(t, "market price");  // None (NaN)
    return v;
  }
  std::optional<double> get_mid_price() const { return get_mid_price(time_); }
  std::optional<double> get_mid_price(int64_t t) const {
    CheckTime(t);
    return OptionalOf(h_.mid_prices[t]);
  }
  std::optional<double> get_last_executed_price() const {
    return get_last_executed_price(time_);
  }
  std::optional<double> get_last_executed_price(int64_t t) const {
    CheckTime(t);
    return OptionalOf(h_.last_executed_prices[t]);
  }
  double get_fundamental_price() const { return get_fundamental_price(time_); }
  double get_fundamental_price(int64_t t) const {
    CheckTime(t);
    const double v = h_.fundamental_prices[t];
    if (v != v) FailNone(t, "fundamental price");
    return v;
  }
  int64_t get_executed_volume() const { return get_executed_volume(time_); }
  int64_t get_executed_volume(int64_t t) const {
    CheckTime(t);
    return h_.executed_volumes[t];
  }
  double get_executed_total_price() const {
    return get_executed_total_price(time_);
  }
  double get_executed_total_price(int64_t t) const {
    CheckTime(t);
    return h_.executed_total_prices[t];
  }
  int64_t get_n_buy_order() const { return get_n_buy_order(time_); }
  int64_t get_n_buy_order(int64_t t) const {
    CheckTime(t);
    return h_.n_buy_orders[t];
  }
  int64_t get_n_sell_order() const { return get_n_sell_order(time_); }
  int64_t get_n_sell_order(int64_t t) const {
    CheckTime(t);
    return h_.n_sell_orders[t];
  }
  // The transaction fees charged at step t's executions (PAMS development
  // branch's get_transaction_fee_revenue).
  double get_transaction_fee_revenue() const {
    return get_transaction_fee_revenue(time_);
  }
  double get_transaction_fee_revenue(int64_t t) const {
    CheckTime(t);
    return h_.transaction_fee_revenues[t];
  }
  // Their sum over steps 0..t, added left to right from 0.0 as PAMS's
  // sum() does (on the Python of the reference, 3.11). O(t).
  double get_cumulative_transaction_fee_revenue() const {
    return get_cumulative_transaction_fee_revenue(time_);
  }
  double get_cumulative_transaction_fee_revenue(int64_t t) const;
  // Total executed volume over steps from..to (0 <= from, to <= now; 0 when
  // from > to), in O(1): a running total is kept as steps end.
  int64_t get_executed_volume_sum(int64_t from, int64_t to) const {
    if (from > to) return 0;
    CheckTime(to);
    CheckTime(from);
    return volume_before_[to] - volume_before_[from] + h_.executed_volumes[to];
  }
  // Volume-weighted average execution price over steps 0..t; NaN when
  // nothing was executed. O(t).
  double get_vwap() const { return get_vwap(time_); }
  double get_vwap(int64_t t) const;
  // Whether the market price at t is a Python int (for printing).
  bool market_price_is_int(int64_t t) const {
    CheckTime(t);
    return h_.market_price_is_int[t] != 0;
  }

  // Every history entry kept, also those after get_time() (PAMS's lists
  // hold them: None or 0 until their step), for programs that show the
  // histories whole.
  const Histories& history_entries() const { return h_; }

  // Whole histories for steps 0..get_time() (empty before the first step).
  std::span<const double> market_prices() const;
  std::span<const double> mid_prices() const;
  std::span<const double> last_executed_prices() const;
  std::span<const double> fundamental_prices() const;
  std::span<const int64_t> executed_volumes() const;
  std::span<const double> transaction_fee_revenues() const;

  // --- Transaction fee. ---
  // The fee this market charges, or nullptr (no fee: the default).
  TransactionFee* transaction_fee() const { return transaction_fee_.get(); }
  // Sets the fee (the runner, after setup()). REQUIRES: fee's market is
  // this market, or fee is null.
  void set_transaction_fee(std::unique_ptr<TransactionFee> fee);

  // --- Order books. ---
  std::optional<double> get_best_buy_price() const {
    return buy_book_.best_price();
  }
  std::optional<double> get_best_sell_price() const {
    return sell_book_.best_price();
  }
  std::vector<std::pair<std::optional<double>, int64_t>> get_buy_order_book()
      const {
    return buy_book_.get_price_volume();
  }
  std::vector<std::pair<std::optional<double>, int64_t>> get_sell_order_book()
      const {
    return sell_book_.get_price_volume();
  }
  const OrderBook& buy_order_book() const { return buy_book_; }
  const OrderBook& sell_order_book() const { return sell_book_; }
  // Whether a trade is possible now (PAMS's remain_executable_orders).
  virtual bool remain_executable_orders() const;

  // --- Tick grid (PAMS's convert_to_* methods). A price within 4 ulps of a
  // tick (capped at a quarter tick) counts as on that tick. A price of more
  // than 9.2e18 ticks (or not finite) throws SimulationError. ---
  int64_t convert_to_tick_level_rounded_lower(double price) const;
  int64_t convert_to_tick_level_rounded_upper(double price) const;
  int64_t convert_to_tick_level(double price, bool is_buy) const;
  double convert_to_price(int64_t tick_level) const {
    return tick_size_ * static_cast<double>(tick_level);
  }

  // --- Mutations: the runner and events only, one thread. ---

  // Accepts an order: moves its price onto the tick grid, assigns order_id
  // and placed_at (written back to *order), and places it in its book.
  // Throws SimulationError if the order is for another market or was
  // already placed, or before the first step. Runs place_order().
  OrderLog add_order(Order* order);
  // Accepts a cancel (PAMS's _cancel_order). Throws SimulationError before
  // the first step.
  CancelLog cancel_order(const Cancel& cancel);
  // Executes every possible trade at one price (PAMS's rule) and appends the
  // execution logs to *logs (which it clears first). Does nothing when no
  // trade is possible. Runs match_orders().
  void execution(std::vector<ExecutionLog>* logs);
  // Advances to the next step (t -> t + 1): expires orders, extends the
  // histories and carries prices forward.
  void update_time(double next_fundamental_price);
  // Jumps to step `time` (PAMS's _set_time): expires orders, extends the
  // histories and carries forward the last prices known before `time`.
  // REQUIRES (else SimulationError): time >= 0.
  void set_time(int64_t time, double next_fundamental_price);
  // Sets the clock alone, as a program assigning PAMS's market.time does:
  // the histories of the steps skipped hold their defaults (None or 0), and
  // the books stay at their step (orders are placed at the books' step).
  // REQUIRES (else SimulationError): time >= -1.
  void set_time_only(int64_t time);
  // Executes `volume` of two resting orders at `price` (PAMS's
  // _execute_orders; execution() calls it for each matched pair).
  // REQUIRES (else SimulationError): the market is running, both orders
  // rest in this market's books with at least `volume` left, volume > 0.
  ExecutionLog execute_orders(double price, int64_t volume, const Order& buy,
                              const Order& sell);
  void set_is_running(bool running);
  // Sets the tick size and the outstanding shares as setup() does, for
  // programs that build a market by hand (PAMS's attributes).
  // REQUIRES (else SimulationError): tick_size > 0 and finite.
  void set_tick_size(double tick_size, bool is_int);
  void set_outstanding_shares(std::optional<int64_t> shares) {
    outstanding_shares_ = shares;
  }
  // Where the market's logs go from now on (null: nowhere), as a program
  // assigning PAMS's market.logger does. REQUIRES: logger outlives the
  // market, or is replaced first.
  void set_logger(Logger* logger) { logger_ = logger; }
  // The id the next order placed gets (PAMS's _next_order_id), and setting
  // it as a program assigning that attribute does. REQUIRES (else
  // SimulationError): id >= next_order_id() (the books key orders by id).
  int64_t next_order_id() const { return next_order_id_; }
  void set_next_order_id(int64_t id);
  // Allocates the histories for steps 0..steps-1 now, so that the run does
  // not grow them (the runner calls it after setup with the run's length).
  void reserve_steps(int64_t steps) {
    if (steps > 0) GrowHistories(static_cast<size_t>(steps));
  }
  // Multiplies the current fundamental price by scale, here and in the
  // simulator's Fundamentals, which regenerates the future path.
  void change_fundamental_price(double scale);

 protected:
  // The simulation, for subclasses' setup() (e.g. to find markets by name).
  // Not for agents: they read markets through const methods only.
  Simulator* simulator() const { return simulator_; }
  // The histories, for subclasses that preset step-0 values in setup().
  // Entries after get_time() hold defaults (None or 0) until their step.
  Histories& histories() { return h_; }
  Logger* logger() const { return logger_; }
  Random& prng() { return prng_; }

  // What add_order and execution do (PAMS's _add_order and _execution),
  // for subclasses with other rules to override. Mutations they make
  // through the public methods are part of theirs (replaying the
  // outer call repeats them: see SimulationJournal).
  virtual OrderLog place_order(Order* order);
  // REQUIRES: *logs is empty.
  virtual void match_orders(std::vector<ExecutionLog>* logs);

 private:
  friend class SimulationJournal;
  // Records the mutations of this scope into the journal (see
  // SimulationJournal) only when no outer mutation of this market is
  // under way: replaying the outer call repeats the inner ones (a dark
  // pool's place_order that cancels at once). Each public mutation opens
  // one.
  class MutationScope {
   public:
    explicit MutationScope(Market* market) : market_(market) { ++market_->mutation_depth_; }
    ~MutationScope() { --market_->mutation_depth_; }
    MutationScope(const MutationScope&) = delete;
    MutationScope& operator=(const MutationScope&) = delete;
    // Whether this is the outermost mutation (the one to record).
    bool outermost() const { return market_->mutation_depth_ == 1; }

   private:
    Market* market_;
  };


  // Records every change made through the mutations into `journal` (null:
  // none), for replicas in worker processes (see SimulationJournal).
  void set_journal(SimulationJournal* journal) { journal_ = journal; }
  // Replays a recorded change_fundamental_price (the replica's own
  // Fundamentals are not used).
  void ReplaySetFundamentalPrice(int64_t t, double price);
  std::optional<int64_t> TickLevelIfOnTick(double price) const;
  // `level` (a whole number of ticks for `price`) as an int64; throws
  // SimulationError when it does not fit.
  int64_t ToTickLevel(double level, double price) const;
  void UpdateMarketPrice();
  void GrowHistories(size_t n);
  // Steps outside 0..get_time() cannot be read (PAMS: AssertionError).
  void CheckTime(int64_t t) const {
    if (t > time_ || t < 0) [[unlikely]] FailTime(t);
  }
  [[noreturn]] void FailTime(int64_t t) const;
  [[noreturn]] void FailNone(int64_t t, const char* what) const;
  static std::optional<double> OptionalOf(double x) {
    if (x != x) return std::nullopt;  // NaN stands for None
    return x;
  }
  void ExpireOrders(OrderBook* book);
  // The journal to record the current mutation into (null: none or nested).
  SimulationJournal* JournalFor(const MutationScope& scope) const {
    return scope.outermost() ? journal_ : nullptr;
  }
  // execute_orders without its checks (PAMS's _execute_orders): charges
  // the transaction fee, takes the volume off both orders (removing filled
  // ones), updates the histories, logs the execution and returns its log.
  // Throws SimulationError if the market is not running or a fee is not
  // finite. REQUIRES: both orders rest in this market's books with at least
  // `volume` left, volume > 0.
  ExecutionLog ExecuteOrders(double price, int64_t volume, const Order& buy,
                             const Order& sell);
  // The last value before step t that is not None (NaN if none).
  static double LastKnown(const std::vector<double>& history, int64_t t);

  int market_id_;
  Random prng_;
  Simulator* simulator_;
  std::string name_;
  Logger* logger_;
  std::string class_name_;
  SimulationJournal* journal_ = nullptr;
  int mutation_depth_ = 0;
  std::unique_ptr<TransactionFee> transaction_fee_;

  bool is_running_ = false;
  double tick_size_ = 1.0;
  bool tick_size_is_int_ = false;
  std::optional<int64_t> outstanding_shares_;
  int64_t time_ = -1;
  int64_t next_order_id_ = 0;
  OrderBook buy_book_{true};
  OrderBook sell_book_{false};
  Histories h_;
  // volume_before_[t]: executed volume of steps 0..t-1 (fixed once step t
  // starts, since only the current step's volume changes).
  std::vector<int64_t> volume_before_;
  size_t history_size_ = 0;  // every history has at least this many entries
  bool warned_off_tick_ = false;

  // Scratch space reused by every call, so steady-state steps allocate
  // nothing.
  std::vector<Order> expired_;
  struct PendingExecution {
    int64_t volume;
    Order buy;
    Order sell;
  };
  std::vector<PendingExecution> pending_;
};

}  // namespace pams

#endif  // PAMS_MARKET_MARKET_H_
