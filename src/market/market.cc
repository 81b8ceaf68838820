// Market: PAMS's Market, step by step. Python's None is NaN in the price
// histories (prices are never NaN: orders with NaN prices are refused).

#include "pams/market/market.h"

#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "order_book_impl.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/simulator/simulator.h"
#include "simulator/simulation_journal.h"
#include "support/python_format.h"

namespace pams {

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

bool IsNone(double x) { return std::isnan(x); }

// Python's math.ulp for a finite x: the gap to the next double away from 0
// (to the previous one for the largest double).
double Ulp(double x) {
  x = std::fabs(x);
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  const double next = std::bit_cast<double>(bits + 1);
  if (std::isinf(next)) return x - std::bit_cast<double>(bits - 1);
  return next - x;
}

template <typename T>
void ExtendTo(std::vector<T>* v, size_t n, T fill) {
  if (v->size() < n) v->resize(n, fill);
}

// Histories grow in chunks of steps, as PAMS's _fill_until does, so that a
// step only writes into them.
constexpr size_t kHistoryChunk = 128;

}  // namespace

Market::Market(MarketInit init)
    : market_id_(init.market_id),
      prng_(std::move(init.prng)),
      simulator_(init.simulator),
      name_(std::move(init.name)),
      logger_(init.logger),
      class_name_(std::move(init.class_name)) {}

Market::~Market() = default;

void Market::setup(const Settings& settings) {
  const Settings tick = settings["tickSize"];
  tick_size_ = tick.as_float();
  tick_size_is_int_ = tick.json().is_number_integer();
  if (!(tick_size_ > 0.0) || !std::isfinite(tick_size_)) {
    tick.fail("tick size must be a positive number, got " + tick.json().dump());
  }
  if (auto shares = settings.find("outstandingShares")) {
    outstanding_shares_ = shares->as_int();
    if (*outstanding_shares_ <= 0) {
      shares->fail("outstanding shares must be positive, got " +
                   std::to_string(*outstanding_shares_));
    }
  }
  std::optional<Settings> price = settings.find("marketPrice");
  if (!price) price = settings.find("fundamentalPrice");
  if (!price) {
    settings.fail("fundamentalPrice or marketPrice is required for a market");
  }
  const double p = price->as_float();
  if (!(p > 0.0) || !std::isfinite(p)) {
    price->fail("price must be a positive number, got " + price->json().dump());
  }
  h_.market_prices.assign(1, p);
  h_.market_price_is_int.assign(1, 0);
}

// --- History getters ---

void Market::FailTime(int64_t t) const {
  // PAMS asserts here (AssertionError).
  if (t < 0) {
    throw AssertionFailure("market " + name_ + ": cannot read step " +
                           std::to_string(t) + ", a negative step");
  }
  throw AssertionFailure("market " + name_ + ": cannot read step " +
                         std::to_string(t) + ", a future step (now " +
                         std::to_string(time_) + ")");
}

void Market::FailNone(int64_t t, const char* what) const {
  throw AssertionFailure("market " + name_ + " has no " + what + " at step " +
                         std::to_string(t));
}

double Market::get_vwap(int64_t t) const {
  CheckTime(t);
  // PAMS sums Python ints and floats left to right.
  int64_t volume = 0;
  double total = 0.0;
  for (int64_t i = 0; i <= t; ++i) {
    volume += h_.executed_volumes[i];
    total += h_.executed_total_prices[i];
  }
  if (volume == 0) return std::numeric_limits<double>::quiet_NaN();
  return total / static_cast<double>(volume);
}

std::span<const double> Market::market_prices() const {
  return {h_.market_prices.data(), static_cast<size_t>(time_ + 1)};
}
std::span<const double> Market::mid_prices() const {
  return {h_.mid_prices.data(), static_cast<size_t>(time_ + 1)};
}
std::span<const double> Market::last_executed_prices() const {
  return {h_.last_executed_prices.data(), static_cast<size_t>(time_ + 1)};
}
std::span<const double> Market::fundamental_prices() const {
  return {h_.fundamental_prices.data(), static_cast<size_t>(time_ + 1)};
}
std::span<const int64_t> Market::executed_volumes() const {
  return {h_.executed_volumes.data(), static_cast<size_t>(time_ + 1)};
}
std::span<const double> Market::transaction_fee_revenues() const {
  return {h_.transaction_fee_revenues.data(), static_cast<size_t>(time_ + 1)};
}

double Market::get_cumulative_transaction_fee_revenue(int64_t t) const {
  CheckTime(t);
  double sum = 0.0;
  for (int64_t i = 0; i <= t; ++i) sum += h_.transaction_fee_revenues[i];
  return sum;
}

void Market::set_transaction_fee(std::unique_ptr<TransactionFee> fee) {
  if (fee != nullptr && &fee->market() != this) {
    throw SimulationError("market " + name_ + ": a transaction fee of market " +
                          fee->market().name() + " cannot be set on it");
  }
  transaction_fee_ = std::move(fee);
}

// --- Tick grid ---

int64_t Market::ToTickLevel(double level, double price) const {
  // Casting a double outside int64's range is undefined; PAMS's Python ints
  // would go on, but ~9e18 ticks is no price a market can hold.
  if (!(std::fabs(level) < 9.2e18)) {
    throw SimulationError("price " + PythonFloat(price) + " is out of range for "
                          "market " + name_ + " (tick size " +
                          PythonFloat(tick_size_) + "): more than 9.2e18 ticks");
  }
  return static_cast<int64_t>(level);
}

std::optional<int64_t> Market::TickLevelIfOnTick(double price) const {
  const double ratio = price / tick_size_;
  const double level = std::nearbyint(ratio);  // Python's round(): half even
  const double tolerance = std::min(4 * Ulp(std::max(1.0, std::fabs(ratio))), 0.25);
  if (std::fabs(ratio - level) <= tolerance) return ToTickLevel(level, price);
  return std::nullopt;
}

int64_t Market::convert_to_tick_level_rounded_lower(double price) const {
  if (auto level = TickLevelIfOnTick(price)) return *level;
  return ToTickLevel(std::floor(price / tick_size_), price);
}

int64_t Market::convert_to_tick_level_rounded_upper(double price) const {
  if (auto level = TickLevelIfOnTick(price)) return *level;
  return ToTickLevel(std::ceil(price / tick_size_), price);
}

int64_t Market::convert_to_tick_level(double price, bool is_buy) const {
  return is_buy ? convert_to_tick_level_rounded_lower(price)
                : convert_to_tick_level_rounded_upper(price);
}

// --- Time ---

void Market::ExpireOrders(OrderBook* book) {
  expired_.clear();
  book->set_time(time_, &expired_);
  if (logger_ == nullptr) return;
  for (const Order& o : expired_) {
    logger_->process_expiration_log(ExpirationLog{
        o.order_id, o.market_id, time_, o.placed_at, o.agent_id, o.is_buy,
        o.kind, o.volume, o.price, o.ttl});
  }
}

void Market::set_is_running(bool running) {
  MutationScope scope(this);
  if (SimulationJournal* j = JournalFor(scope)) j->RecordSetRunning(market_id_, running);
  is_running_ = running;
}

void Market::update_time(double next_fundamental_price) {
  MutationScope scope(this);
  if (SimulationJournal* j = JournalFor(scope)) {
    j->RecordUpdateTime(market_id_, next_fundamental_price);
  }
  ++time_;
  ExpireOrders(&buy_book_);
  ExpireOrders(&sell_book_);
  const int64_t t = time_;
  if (static_cast<size_t>(t) >= history_size_) GrowHistories(t + 1);
  volume_before_[t] =
      t == 0 ? 0 : volume_before_[t - 1] + h_.executed_volumes[t - 1];
  h_.fundamental_prices[t] = next_fundamental_price;
  if (t > 0) {
    // Carry the previous step's values; a running market then prices at its
    // last execution, else at its mid price.
    h_.last_executed_prices[t] = h_.last_executed_prices[t - 1];
    h_.mid_prices[t] = h_.mid_prices[t - 1];
    h_.market_prices[t] = h_.market_prices[t - 1];
    h_.market_price_is_int[t] = h_.market_price_is_int[t - 1];
    if (is_running_) {
      if (!IsNone(h_.last_executed_prices[t - 1])) {
        h_.market_prices[t] = h_.last_executed_prices[t - 1];
        h_.market_price_is_int[t] = tick_size_is_int_;
      } else if (!IsNone(h_.mid_prices[t - 1])) {
        h_.market_prices[t] = h_.mid_prices[t - 1];
        h_.market_price_is_int[t] = 0;
      }
    }
  } else if (IsNone(h_.market_prices[t])) {
    h_.market_prices[t] = next_fundamental_price;
    h_.market_price_is_int[t] = 0;
  }
}

double Market::LastKnown(const std::vector<double>& history, int64_t t) {
  for (int64_t i = t - 1; i >= 0; --i) {
    if (!IsNone(history[i])) return history[i];
  }
  return kNone;
}

void Market::set_time(int64_t time, double next_fundamental_price) {
  if (time < 0) {
    throw SimulationError("market " + name_ + ": cannot move to step " +
                          std::to_string(time));
  }
  if (journal_ != nullptr) {
    throw SimulationError("market " + name_ + ": a market of a parallel run "
                          "cannot jump in time");
  }
  time_ = time;
  ExpireOrders(&buy_book_);
  ExpireOrders(&sell_book_);
  const int64_t t = time_;
  if (static_cast<size_t>(t) >= history_size_) GrowHistories(t + 1);
  h_.fundamental_prices[t] = next_fundamental_price;
  if (t > 0) {
    // PAMS's _set_time: the last values known before t, the market price
    // then following the last execution or the mid price when the market
    // runs and the step before t had one.
    h_.last_executed_prices[t] = LastKnown(h_.last_executed_prices, t);
    h_.mid_prices[t] = LastKnown(h_.mid_prices, t);
    int64_t from = t - 1;
    while (from >= 0 && IsNone(h_.market_prices[from])) --from;
    h_.market_prices[t] = from >= 0 ? h_.market_prices[from] : kNone;
    h_.market_price_is_int[t] = from >= 0 ? h_.market_price_is_int[from] : 0;
    if (is_running_) {
      if (!IsNone(h_.last_executed_prices[t - 1])) {
        h_.market_prices[t] = h_.last_executed_prices[t];
        h_.market_price_is_int[t] = tick_size_is_int_;
      } else if (!IsNone(h_.mid_prices[t - 1])) {
        h_.market_prices[t] = h_.mid_prices[t];
        h_.market_price_is_int[t] = 0;
      }
    }
  }
  for (int64_t i = 1; i <= t; ++i) {
    volume_before_[i] = volume_before_[i - 1] + h_.executed_volumes[i - 1];
  }
}

void Market::set_time_only(int64_t time) {
  if (time < -1) {
    throw SimulationError("market " + name_ + ": time must be >= -1, got " +
                          std::to_string(time));
  }
  if (journal_ != nullptr) {
    throw SimulationError("market " + name_ + ": a market of a parallel run "
                          "cannot jump in time");
  }
  if (time >= 0 && static_cast<size_t>(time) >= history_size_) GrowHistories(time + 1);
  // The books keep their step, as PAMS's do (its `market.time = t` moves the
  // market's attribute only): orders are placed at the books' step.
  time_ = time;
  for (int64_t i = 1; i <= time; ++i) {
    volume_before_[i] = volume_before_[i - 1] + h_.executed_volumes[i - 1];
  }
}

void Market::set_tick_size(double tick_size, bool is_int) {
  if (!(tick_size > 0.0) || !std::isfinite(tick_size)) {
    throw SimulationError("market " + name_ + ": tick size must be a positive number, got " +
                          PythonFloat(tick_size));
  }
  tick_size_ = tick_size;
  tick_size_is_int_ = is_int;
}

void Market::set_next_order_id(int64_t id) {
  if (id < next_order_id_) {
    throw SimulationError("market " + name_ + ": the next order id cannot go back from " +
                          std::to_string(next_order_id_) + " to " + std::to_string(id) +
                          " (the books key their orders by id)");
  }
  next_order_id_ = id;
}

ExecutionLog Market::execute_orders(double price, int64_t volume, const Order& buy,
                                    const Order& sell) {
  if (volume <= 0) {
    throw SimulationError("market " + name_ + ": an execution needs a positive volume");
  }
  if (buy.market_id != market_id_ || sell.market_id != market_id_) {
    throw SimulationError("market " + name_ + ": an order of another market");
  }
  for (const Order* o : {&buy, &sell}) {
    const Order* held = (o->is_buy ? buy_book_ : sell_book_).find(*o);
    if (held == nullptr || held->volume < volume) {
      throw SimulationError("market " + name_ + ": order " + std::to_string(o->order_id) +
                            " does not rest in its book with volume " +
                            std::to_string(volume));
    }
  }
  return ExecuteOrders(price, volume, buy, sell);
}

void Market::GrowHistories(size_t n) {
  // Entries after the current step hold PAMS's defaults (None or 0) until
  // their step comes; a subclass may have preset the first ones in setup().
  const size_t size = (n + kHistoryChunk - 1) / kHistoryChunk * kHistoryChunk;
  ExtendTo(&h_.market_prices, size, kNone);
  ExtendTo<uint8_t>(&h_.market_price_is_int, size, 0);
  ExtendTo(&h_.mid_prices, size, kNone);
  ExtendTo(&h_.last_executed_prices, size, kNone);
  ExtendTo(&h_.fundamental_prices, size, kNone);
  ExtendTo<int64_t>(&h_.executed_volumes, size, 0);
  ExtendTo(&h_.executed_total_prices, size, 0.0);
  ExtendTo<int64_t>(&h_.n_buy_orders, size, 0);
  ExtendTo<int64_t>(&h_.n_sell_orders, size, 0);
  ExtendTo(&h_.transaction_fee_revenues, size, 0.0);
  ExtendTo<int64_t>(&volume_before_, size, 0);
  history_size_ = size;
}

void Market::UpdateMarketPrice() {
  const int64_t t = time_;
  const std::optional<double> best_buy = buy_book_.best_price();
  const std::optional<double> best_sell = sell_book_.best_price();
  if (!best_buy || !best_sell) {
    h_.mid_prices[t] = kNone;
  } else {
    h_.mid_prices[t] = (*best_sell + *best_buy) / 2.0;
  }
  if (is_running_) {
    if (!IsNone(h_.last_executed_prices[t])) {
      h_.market_prices[t] = h_.last_executed_prices[t];
      h_.market_price_is_int[t] = tick_size_is_int_;
    } else if (!IsNone(h_.mid_prices[t])) {
      h_.market_prices[t] = h_.mid_prices[t];
      h_.market_price_is_int[t] = 0;
    }
  }
}

void Market::change_fundamental_price(double scale) {
  MutationScope scope(this);
  const int64_t t = time_;
  const double updated = get_fundamental_price(t) * scale;
  if (SimulationJournal* j = JournalFor(scope)) {
    j->RecordSetFundamentalPrice(market_id_, t, updated);
  }
  h_.fundamental_prices[t] = updated;
  Fundamentals& f = simulator_->fundamentals();
  if (!f.has_market(market_id_)) {
    throw SimulationError("market " + name_ +
                          " has no fundamental price path to change (index "
                          "markets follow their components)");
  }
  f.set_price_and_regenerate(market_id_, t, updated);
}

// --- Orders ---

void Market::ReplaySetFundamentalPrice(int64_t t, double price) {
  CheckTime(t);
  h_.fundamental_prices[t] = price;
}

OrderLog Market::add_order(Order* order) {
  MutationScope scope(this);
  if (SimulationJournal* j = JournalFor(scope)) j->RecordAddOrder(market_id_, *order);
  return place_order(order);
}

OrderLog Market::place_order(Order* order) {
  if (time_ < 0) {
    throw SimulationError("market " + name_ + " has no step yet: an order needs a step");
  }
  if (order->market_id != market_id_) {
    throw SimulationError("order for market " +
                          std::to_string(order->market_id) +
                          " was sent to market " + name_);
  }
  if (order->placed_at >= 0 || order->order_id >= 0) {
    throw SimulationError("order " + std::to_string(order->order_id) +
                          " was already submitted");
  }
  if (order->price) {
    std::optional<int64_t> level = TickLevelIfOnTick(*order->price);
    if (!level) {
      if (simulator_ != nullptr && !warned_off_tick_) {
        simulator_->warn(
            "order price does not accord to the tick size. price will be "
            "modified");
        warned_off_tick_ = true;
      }
      level = convert_to_tick_level(*order->price, order->is_buy);
    }
    order->price = convert_to_price(*level);
  }
  order->order_id = next_order_id_++;
  (order->is_buy ? buy_book_ : sell_book_).add(order);
  UpdateMarketPrice();
  if (order->is_buy) {
    ++h_.n_buy_orders[time_];
  } else {
    ++h_.n_sell_orders[time_];
  }
  OrderLog log{order->order_id, order->market_id, order->placed_at,
               order->agent_id, order->is_buy,    order->kind,
               order->volume,   order->price,     order->ttl};
  if (logger_ != nullptr) logger_->process_order_log(log);
  return log;
}

CancelLog Market::cancel_order(const Cancel& cancel) {
  if (time_ < 0) {
    throw SimulationError("market " + name_ + " has no step yet: a cancel needs a step");
  }
  MutationScope scope(this);
  if (SimulationJournal* j = JournalFor(scope)) j->RecordCancel(market_id_, cancel);
  const Order& order = cancel.order;
  if (order.market_id != market_id_) {
    throw SimulationError("cancel of an order of market " +
                          std::to_string(order.market_id) +
                          " was sent to market " + name_);
  }
  if (!order.is_placed()) {
    throw SimulationError("cannot cancel an order that was never accepted "
                          "(order_id and placed_at are unset)");
  }
  OrderBook& book = order.is_buy ? buy_book_ : sell_book_;
  // The log shows the order as the book holds it (its remaining volume);
  // an order that is gone (executed, expired) is logged as given.
  int64_t volume = order.volume;
  if (book.contains(order)) {
    volume = book.impl_->order(*book.impl_->entries.find(PriorityKeyOf(order)))
                 .volume;
    book.remove(order);
  }
  UpdateMarketPrice();
  CancelLog log{order.order_id, order.market_id, book.time(),
                order.placed_at, order.agent_id, order.is_buy,
                order.kind,     volume,          order.price,
                order.ttl};
  if (logger_ != nullptr) logger_->process_cancel_log(log);
  return log;
}

// --- Execution ---

bool Market::remain_executable_orders() const {
  if (sell_book_.empty() || buy_book_.empty()) return false;
  const Order& sell_best = *sell_book_.best_order();
  const Order& buy_best = *buy_book_.best_order();
  if (sell_best.price || buy_best.price) {
    if (sell_best.price && buy_best.price) {
      return *sell_best.price <= *buy_best.price;
    }
    return true;
  }
  // Market orders on both sides: the larger side's excess must be absorbed
  // by the other side's limit orders, else no price can be set.
  int64_t sell_market = 0, sell_limit = 0, buy_market = 0, buy_limit = 0;
  std::optional<double> min_sell, max_buy;
  for (const auto& entry : sell_book_.impl_->entries) {
    const Order& o = sell_book_.impl_->order(entry);
    if (!o.price) {
      sell_market += o.volume;
    } else {
      sell_limit += o.volume;
      if (!min_sell) min_sell = o.price;
    }
  }
  for (const auto& entry : buy_book_.impl_->entries) {
    const Order& o = buy_book_.impl_->order(entry);
    if (!o.price) {
      buy_market += o.volume;
    } else {
      buy_limit += o.volume;
      if (!max_buy) max_buy = o.price;
    }
  }
  if (sell_market != buy_market) {
    if (sell_market < buy_market) return sell_limit >= buy_market - sell_market;
    return buy_limit >= sell_market - buy_market;
  }
  if (!min_sell || !max_buy) return false;
  return *min_sell <= *max_buy;
}

namespace {

// PAMS's _get_execution_price: the limit price of the earlier order; nullopt
// when both are market orders.
std::optional<double> ExecutionPrice(const Order& buy, const Order& sell) {
  if (!buy.price) return sell.price;
  if (!sell.price) return buy.price;
  if (buy.placed_at == sell.placed_at) {
    return buy.order_id < sell.order_id ? buy.price : sell.price;
  }
  return buy.placed_at < sell.placed_at ? buy.price : sell.price;
}

}  // namespace

ExecutionLog Market::ExecuteOrders(double price, int64_t volume,
                                   const Order& buy, const Order& sell) {
  if (time_ < 0) {
    throw SimulationError("market " + name_ + " has no step yet: an execution needs a step");
  }
  if (!is_running_) {
    throw SimulationError("market " + name_ + " is not running");
  }
  ExecutionLog log{market_id_,   time_,        buy.agent_id, sell.agent_id,
                   buy.order_id, sell.order_id, price,       volume};
  if (transaction_fee_ != nullptr) {
    // PAMS passes the live orders, whose volume still includes this pair
    // (the matching copied them before earlier pairs were taken off).
    const Order* live_buy = buy_book_.find(buy);
    const Order* live_sell = sell_book_.find(sell);
    if (live_buy == nullptr || live_sell == nullptr) {
      throw SimulationError("market " + name_ + ": an order to execute is not in its book");
    }
    const TransactionFees fees =
        transaction_fee_->compute_fees(price, volume, *live_buy, *live_sell);
    if (!std::isfinite(fees.buy) || !std::isfinite(fees.sell)) {
      throw SimulationError("market " + name_ + ": transaction fee " +
                            transaction_fee_->class_name() + " returned fees " +
                            PythonFloat(fees.buy) + " and " + PythonFloat(fees.sell) +
                            " at step " + std::to_string(time_) +
                            "; fees must be finite numbers");
    }
    log.buy_transaction_fee = fees.buy;
    log.sell_transaction_fee = fees.sell;
    // PAMS adds buy_fee + sell_fee to the step's revenue.
    h_.transaction_fee_revenues[time_] += fees.buy + fees.sell;
  }
  buy_book_.change_order_volume(buy, -volume);
  sell_book_.change_order_volume(sell, -volume);
  h_.last_executed_prices[time_] = price;
  h_.executed_volumes[time_] += volume;
  h_.executed_total_prices[time_] += static_cast<double>(volume) * price;
  UpdateMarketPrice();
  if (logger_ != nullptr) logger_->process_execution_log(log);
  return log;
}

void Market::execution(std::vector<ExecutionLog>* logs) {
  MutationScope scope(this);
  if (SimulationJournal* j = JournalFor(scope)) j->RecordExecution(market_id_);
  logs->clear();
  match_orders(logs);
}

void Market::match_orders(std::vector<ExecutionLog>* logs) {
  if (!remain_executable_orders()) return;
  // Match the best orders of both sides while their prices cross, as PAMS's
  // _collect_pending_executions, without removing anything yet.
  pending_.clear();
  std::optional<double> price;
  const OrderBook::Impl& buys = *buy_book_.impl_;
  const OrderBook::Impl& sells = *sell_book_.impl_;
  auto buy_it = buys.entries.begin();
  auto sell_it = sells.entries.begin();
  const auto buy_end = buys.entries.end();
  const auto sell_end = sells.entries.end();
  const Order* buy = nullptr;
  const Order* sell = nullptr;
  int64_t buy_left = 0;
  int64_t sell_left = 0;
  while (true) {
    if (buy_left == 0) {
      if (buy_it == buy_end) break;
      buy = &buys.order(*buy_it);
      ++buy_it;
      buy_left = buy->volume;
    }
    if (sell_left == 0) {
      if (sell_it == sell_end) break;
      sell = &sells.order(*sell_it);
      ++sell_it;
      sell_left = sell->volume;
    }
    if (buy->price && sell->price && *buy->price < *sell->price) break;
    const int64_t volume = std::min(buy_left, sell_left);
    buy_left -= volume;
    sell_left -= volume;
    if (std::optional<double> p = ExecutionPrice(*buy, *sell)) price = p;
    pending_.push_back(PendingExecution{volume, *buy, *sell});
  }
  if (!price) {
    throw SimulationError("market " + name_ +
                          ": no execution price could be determined");
  }
  for (const PendingExecution& p : pending_) {
    logs->push_back(ExecuteOrders(*price, p.volume, p.buy, p.sell));
  }
}

}  // namespace pams
