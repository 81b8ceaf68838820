// The methods of PAMS's Market and IndexMarket that programs building or
// driving a simulation by hand call (_add_order, _cancel_order,
// _execution, _execute_orders, _update_time, _set_time, the settable
// attributes, PAMS's history lists, IndexMarket._add_market). Each checks
// its arguments (interop/arguments.h) and the market's state as PAMS's
// market does, with PAMS's exceptions, before the engine runs: nothing a
// program passes reaches the engine unchecked.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "bindings/binding_helpers.h"
#include "bindings/bindings.h"
#include "interop/arguments.h"
#include "interop/hand_built.h"
#include "interop/python_agents.h"
#include "interop/python_markets.h"
#include "interop/python_run.h"
#include "pams/errors.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/market/order_book.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

// ------------------------------------------------------- PAMS's history lists

// PAMS's market histories are lists grown in chunks of 100 entries (None or
// 0 after the current step); before the first step, what setup put there.
constexpr int64_t kChunk = 100;

nb::object HistoryValue(double v, bool as_int) {
  if (v != v) return nb::none();
  if (as_int) return nb::int_(static_cast<int64_t>(v));
  return nb::float_(v);
}

// PAMS's list of `kept` entries: as many as the market keeps before its
// first step, else the chunks up to the current step; entry(i) gives one,
// i < kept (past kept: None or 0, `fill`).
template <typename Entry>
nb::list ChunkedList(const Market& m, size_t kept, nb::object fill, Entry entry) {
  nb::list out;
  const int64_t now = m.get_time();
  size_t n = kept;
  if (now >= 0) n = static_cast<size_t>((now / kChunk + 1) * kChunk);
  for (size_t i = 0; i < n; ++i) out.append(i < kept ? entry(i) : fill);
  return out;
}

nb::list HistoryEntries(const Market& m, const std::string& name) {
  const Market::Histories& h = m.history_entries();
  const bool int_prices = m.tick_size_is_int();
  auto prices = [&](const std::vector<double>& v, bool as_int) {
    return ChunkedList(m, v.size(), nb::none(),
                       [&](size_t i) { return HistoryValue(v[i], as_int); });
  };
  if (name == "_market_prices") {
    return ChunkedList(m, h.market_prices.size(), nb::none(), [&](size_t i) {
      const bool as_int = i < h.market_price_is_int.size() && h.market_price_is_int[i] != 0;
      return HistoryValue(h.market_prices[i], as_int);
    });
  }
  if (name == "_mid_prices") return prices(h.mid_prices, false);
  if (name == "_last_executed_prices") return prices(h.last_executed_prices, int_prices);
  if (name == "_fundamental_prices") return prices(h.fundamental_prices, false);
  if (name == "_executed_total_prices") {
    return ChunkedList(m, h.executed_total_prices.size(), nb::int_(0),
                       [&](size_t i) -> nb::object {
                         const double x = h.executed_total_prices[i];
                         const bool none_executed =
                             i >= h.executed_volumes.size() || h.executed_volumes[i] == 0;
                         // PAMS adds price * volume to an int 0.
                         if (int_prices || none_executed) {
                           return nb::int_(static_cast<int64_t>(x));
                         }
                         return nb::float_(x);
                       });
  }
  const std::vector<int64_t>* ints = nullptr;
  if (name == "_executed_volumes") ints = &h.executed_volumes;
  if (name == "_n_buy_orders") ints = &h.n_buy_orders;
  if (name == "_n_sell_orders") ints = &h.n_sell_orders;
  if (ints == nullptr) throw nb::attribute_error(name.c_str());
  return ChunkedList(m, ints->size(), nb::int_(0),
                     [&](size_t i) { return nb::int_((*ints)[i]); });
}

// A history as PAMS's list, read-only (pams_cpp.market._History, a list
// whose changes raise, saying what to do instead): the engine's histories
// change through the market's methods only, and a change to a copy would
// be lost without a word.
nb::object HistoryList(nb::handle self, const std::string& name) {
  nb::list entries = HistoryEntries(nb::cast<const Market&>(self), name);
  return nb::module_::import_("pams_cpp.market").attr("_History")(entries, name);
}

// A history a Python market's setup presets (PAMS's market_share sample
// sets _executed_volumes): the market's PythonMarketCalls reads it
// (naming a value of the wrong type); any other market refuses.
void SetHistory(Market& m, const std::string& key, nb::handle values) {
  PythonMarketCalls* p = PythonCallsOf(m);
  if (p == nullptr || !p->SetHistory(key, values)) {
    throw nb::attribute_error(
        ("only a market of a Python class may set " + key + ", in its setup").c_str());
  }
}

// ------------------------------------------------------------ the checks

// PAMS compares an order's market_id with the market's (==): an order whose
// market_id is not even an int is "not for this market" as well.
bool ForThisMarket(const Market& m, nb::handle order) {
  nb::object id = nb::getattr(order, "market_id", nb::none());
  return id.equal(nb::int_(m.market_id()));
}

void RequireOrder(const PythonRun& run, nb::handle order, const char* what) {
  if (!nb::isinstance(order, run.classes.order)) {
    RaiseArgument(PyExc_TypeError, what, "an Order", order);
  }
}

// PAMS's market writes a step's histories at its current step: a market
// before its first step (time -1, or set back there) is refused with an
// AssertionError saying what to call first.
void RequireStarted(const Market& m, const char* method) {
  if (m.get_time() >= 0) return;
  Raise(PyExc_AssertionError,
        std::string(method) + ": market " + m.name() +
            " has no step yet (time -1): move it with _update_time or _set_time first");
}

// PAMS's market places an order at its book's step and asserts that it is
// the market's own: a book behind the market (PAMS's `market.time = t`
// moves the market's clock only) gets PAMS's AssertionError before the
// engine sees the order.
void RequireBookInStep(const Market& m, bool is_buy, const char* method) {
  RequireStarted(m, method);
  const OrderBook& book = is_buy ? m.buy_order_book() : m.sell_order_book();
  if (book.time() == m.get_time()) return;
  Raise(PyExc_AssertionError,
        std::string(method) + ": the " + (is_buy ? "buy" : "sell") + " book of market " +
            m.name() + " is at step " + std::to_string(book.time()) + ", the market at step " +
            std::to_string(m.get_time()) +
            " (setting market.time moves the market's clock only): move both with "
            "_update_time or _set_time");
}

// What PAMS's Order refuses when made, and the engine cannot hold, in an
// order whose fields were changed after: a volume <= 0 (PAMS's market
// would take it and fail at its next execution), a limit order without a
// price, a price that is NaN (PAMS: ValueError from round()) or beyond the
// tick grid (PAMS: OverflowError, or a price of inf).
void CheckPlaceable(const Market& m, const Order& o, const char* method) {
  if (o.volume <= 0) {
    Raise(PyExc_ValueError, std::string(method) + ": the order's volume must be positive (" +
                                "PAMS's Order refuses " + std::to_string(o.volume) +
                                " too), got " + std::to_string(o.volume));
  }
  if (o.kind == OrderKind::kLimit && !o.price) {
    Raise(PyExc_ValueError,
          std::string(method) + ": a LIMIT_ORDER needs a price (the order's price is None)");
  }
  if (o.price) CheckTickPrice(m, *o.price, method);
}

// ----------------------------------------- OrderBook methods replaced by a program

// PAMS's market calls its books' add(order=...) and cancel(cancel=...),
// which PAMS's tests replace with unittest.mock.patch to see the market
// assert that the book did its part. The market's books are the engine's,
// which do not call Python; so a market whose OrderBook class has another
// `add` or `cancel` than pams_cpp's calls it as PAMS's market does, raises
// PAMS's AssertionError when it did not place the order (the cancel), and
// otherwise lets the engine do the book's work. OrderBook's own method,
// called by a replacement that wraps it, places the order of this call
// (its `_placing`), as PAMS's would.

// The replacement of OrderBook.<name>, or None: the class's attribute when
// it is not pams_cpp's own (kept as _engine_<name> when bound).
nb::object ReplacedBookMethod(const char* name) {
  PyObject* dict = reinterpret_cast<PyTypeObject*>(nb::type<OrderBook>().ptr())->tp_dict;
  PyObject* now = PyDict_GetItemString(dict, name);
  PyObject* own = PyDict_GetItemString(dict, (std::string("_engine_") + name).c_str());
  if (now == nullptr || now == own) return nb::none();
  return nb::borrow(now);
}

// Calls book.<name>(<keyword>=action) as PAMS's market does, with the
// book's `_placing` set to the action meanwhile.
void CallReplacedBookMethod(nb::handle market, bool is_buy, const char* name,
                            const char* keyword, nb::handle action) {
  nb::object book = market.attr(is_buy ? "buy_order_book" : "sell_order_book");
  book.attr("_placing") = action;
  struct Forget {
    nb::handle book;
    ~Forget() {
      if (PyObject_DelAttrString(book.ptr(), "_placing") != 0) PyErr_Clear();
    }
  } forget{book};
  nb::dict kwargs;
  kwargs[keyword] = action;
  book.attr(name)(**kwargs);
}

// ------------------------------------------------------------ the methods

nb::object AddOrder(nb::handle self, nb::handle order) {
  constexpr const char* kMethod = "Market._add_order";
  Market& m = nb::cast<Market&>(self);
  SimulationContext& ctx = ContextOf(self, "market");
  PythonRun& run = ctx.run();
  RequireOrder(run, order, "Market._add_order: order");
  if (!ForThisMarket(m, order)) {
    Raise(PyExc_ValueError, "the order is not for this market (market " +
                                std::to_string(m.market_id()) + ", " + m.name() + ")");
  }
  if (!order.attr("placed_at").is_none() || !order.attr("order_id").is_none()) {
    Raise(PyExc_ValueError, "the order is already submitted");
  }
  Order engine = OrderFields(order);
  CheckPlaceable(m, engine, kMethod);
  if (nb::object add = ReplacedBookMethod("add"); !add.is_none()) {
    CallReplacedBookMethod(self, engine.is_buy, "add", "order", order);
    if (!order.attr("placed_at").equal(nb::int_(m.get_time()))) {
      // PAMS's market gave the order its id and its price on the tick grid
      // before its book's add: so does this one, and the id is used up.
      if (engine.price) {
        const int64_t level = m.convert_to_tick_level(*engine.price, engine.is_buy);
        order.attr("price") = PriceObject(m, m.convert_to_price(level));
      }
      order.attr("order_id") = m.next_order_id();
      m.set_next_order_id(m.next_order_id() + 1);
      Raise(PyExc_AssertionError, std::string(kMethod) +
                                      ": the book's add (OrderBook.add, replaced) did not place "
                                      "the order at the market's step");
    }
    order.attr("placed_at") = nb::none();  // the engine's book places it
  }
  RequireBookInStep(m, engine.is_buy, kMethod);
  const int agent_id = engine.agent_id;
  // The market updates the very object (the mirror, the market's first
  // logger, fills in order_id, placed_at and the price on the tick grid).
  run.mirror.ExpectNext(agent_id, order);
  OrderLog log;
  try {
    log = ctx.Engine([&] { return m.add_order(&engine); });
  } catch (...) {
    run.mirror.Unexpect(agent_id, order);
    throw;
  }
  return PythonLog(run, log);
}

nb::object CancelOrder(nb::handle self, nb::handle cancel) {
  constexpr const char* kMethod = "Market._cancel_order";
  Market& m = nb::cast<Market&>(self);
  SimulationContext& ctx = ContextOf(self, "market");
  PythonRun& run = ctx.run();
  if (!nb::isinstance(cancel, run.classes.cancel)) {
    RaiseArgument(PyExc_TypeError, "Market._cancel_order: cancel", "a Cancel", cancel);
  }
  nb::object order = cancel.attr("order");
  RequireOrder(run, order, "Market._cancel_order: the cancel's order");
  if (!ForThisMarket(m, order)) {
    Raise(PyExc_ValueError, "this cancel order is for a different market");
  }
  if (order.attr("order_id").is_none() || order.attr("placed_at").is_none()) {
    Raise(PyExc_ValueError, "the order is not submitted before");
  }
  Cancel engine;
  engine.order = OrderFields(order);
  if (nb::object replaced = ReplacedBookMethod("cancel"); !replaced.is_none()) {
    CallReplacedBookMethod(self, engine.order.is_buy, "cancel", "cancel", cancel);
    if (cancel.attr("placed_at").is_none()) {
      Raise(PyExc_AssertionError, std::string(kMethod) +
                                      ": the book's cancel (OrderBook.cancel, replaced) did not "
                                      "place the cancel");
    }
    cancel.attr("placed_at") = nb::none();  // the engine's book takes it
  }
  RequireStarted(m, kMethod);
  const int agent_id = engine.order.agent_id;
  run.mirror.ExpectNext(agent_id, cancel);
  CancelLog log;
  try {
    log = ctx.Engine([&] { return m.cancel_order(engine); });
  } catch (...) {
    run.mirror.Unexpect(agent_id, cancel);
    throw;
  }
  // An order no longer in the book (executed, expired) is canceled too.
  order.attr("is_canceled") = true;
  cancel.attr("placed_at") = log.cancel_time;
  return PythonLog(run, log);
}

nb::list Execution(nb::handle self) {
  Market& m = nb::cast<Market&>(self);
  SimulationContext& ctx = ContextOf(self, "market");
  nb::list out;
  // PAMS's _execution returns [] at once when nothing can trade.
  if (!m.remain_executable_orders()) return out;
  RequireStarted(m, "Market._execution");
  if (!m.is_running()) Raise(PyExc_AssertionError, "market is not running");
  std::vector<ExecutionLog> logs;
  ctx.Engine([&] { m.execution(&logs); });
  for (const ExecutionLog& log : logs) out.append(PythonLog(ctx.run(), log));
  return out;
}

// One of _execute_orders' orders: an Order of this market, placed, resting
// in its side's book with at least `volume` left (PAMS's checks, in PAMS's
// order, then the engine's).
Order RestingOrder(const Market& m, const PythonRun& run, nb::handle order, bool is_buy,
                   const char* name) {
  const std::string what = std::string("Market._execute_orders: ") + name;
  RequireOrder(run, order, what.c_str());
  if (!ForThisMarket(m, order)) {
    Raise(PyExc_ValueError, std::string(is_buy ? "buy" : "sell") + " order is not for this market");
  }
  if (order.attr("placed_at").is_none()) {
    Raise(PyExc_ValueError, std::string(is_buy ? "buy" : "sell") + " order is not submitted yet");
  }
  return OrderFields(order);
}

void RequireResting(const Market& m, const Order& o, bool is_buy, int64_t volume,
                    const char* name) {
  const Order* held = o.is_buy == is_buy
                          ? (is_buy ? m.buy_order_book() : m.sell_order_book()).find(o)
                          : nullptr;
  if (held != nullptr && held->volume >= volume) return;
  Raise(PyExc_ValueError, std::string("Market._execute_orders: ") + name + " (order " +
                              std::to_string(o.order_id) + ") does not rest in the " +
                              (is_buy ? "buy" : "sell") + " book of market " + m.name() +
                              " with a volume of " + std::to_string(volume) + " or more");
}

nb::object ExecuteOrders(nb::handle self, Arg<double> price, Arg<int64_t> volume,
                         nb::handle buy, nb::handle sell) {
  Market& m = nb::cast<Market&>(self);
  SimulationContext& ctx = ContextOf(self, "market");
  const PythonRun& run = ctx.run();
  if (!m.is_running()) Raise(PyExc_AssertionError, "market is not running");
  const Order b = RestingOrder(m, run, buy, true, "buy_order");
  const Order s = RestingOrder(m, run, sell, false, "sell_order");
  const int64_t v = IntArg(volume.object, "Market._execute_orders: volume");
  if (v <= 0) Raise(PyExc_AssertionError, "the volume to execute must be positive");
  const double p = NotNanArg(price.object, "Market._execute_orders: price");
  RequireStarted(m, "Market._execute_orders");
  RequireResting(m, b, true, v, "buy_order");
  RequireResting(m, s, false, v, "sell_order");
  const ExecutionLog log = ctx.Engine([&] { return m.execute_orders(p, v, b, s); });
  return PythonLog(ctx.run(), log);
}

void UpdateTime(nb::handle self, Arg<double> next_fundamental_price) {
  const double price =
      NotNanArg(next_fundamental_price.object, "Market._update_time: next_fundamental_price");
  Market& m = nb::cast<Market&>(self);
  if (m.get_time() >= kMaxHandBuiltStep) {
    Raise(PyExc_ValueError, "Market._update_time: market " + m.name() +
                                " is at the last step a market built by hand may reach (10**8)");
  }
  ContextOf(self, "market").Engine([&] { m.update_time(price); });
}

void SetTime(nb::handle self, Arg<int64_t> time, Arg<double> next_fundamental_price) {
  const int64_t t = StepArg(time.object, "Market._set_time: time", 0);
  const double price =
      NotNanArg(next_fundamental_price.object, "Market._set_time: next_fundamental_price");
  ContextOf(self, "market").Engine([&] { nb::cast<Market&>(self).set_time(t, price); });
}

// PAMS's IndexMarket._add_market, keeping the component alive as long as
// the index (the engine's index refers to it).
void AddComponent(nb::handle self, nb::handle market) {
  IndexMarket& index = nb::cast<IndexMarket&>(self);
  if (!nb::isinstance<Market>(market) && nb::getattr(market, "_engine", nb::none()).is_none()) {
    RaiseArgument(PyExc_TypeError, "IndexMarket._add_market: market", "a Market", market);
  }
  const Market& component = MarketArg(market);
  for (const Market* c : index.get_components()) {
    if (c == &component) Raise(PyExc_ValueError, "market is already registered as components");
  }
  if (!component.outstanding_shares()) {
    Raise(PyExc_AssertionError, "outstandingShares is required in component market setting");
  }
  nb::object kept = nb::getattr(self, "_component_objects", nb::none());
  if (kept.is_none()) {
    kept = nb::list();
    self.attr("_component_objects") = kept;
  }
  nb::cast<nb::list>(kept).append(market);
  index.add_component(component);
}

}  // namespace

void CheckTickPrice(const Market& m, double price, const char* method) {
  if (std::isnan(price)) {
    Raise(PyExc_ValueError, std::string(method) + ": price must be a number (not NaN)");
  }
  // The engine's tick levels are ints of 64 bits (PAMS's are Python ints).
  if (!(std::fabs(price / m.tick_size()) < 9.2e18)) {
    Raise(PyExc_OverflowError, std::string(method) + ": price " +
                                   nb::repr(nb::float_(price)).c_str() +
                                   " is more than 9.2e18 ticks from 0");
  }
}

void BindHandBuiltMarketMethods(nb::handle market_cls, nb::handle index_cls) {
  Method(market_cls, "_add_order", &AddOrder, nb::arg("order").none());
  Method(market_cls, "_cancel_order", &CancelOrder, nb::arg("cancel").none());
  Method(market_cls, "_execution", &Execution);
  Method(market_cls, "_execute_orders", &ExecuteOrders, nb::arg("price").none(),
         nb::arg("volume").none(), nb::arg("buy_order").none(), nb::arg("sell_order").none());
  Method(market_cls, "_update_time", &UpdateTime, nb::arg("next_fundamental_price").none());
  Method(market_cls, "_set_time", &SetTime, nb::arg("time").none(),
         nb::arg("next_fundamental_price").none());
  Method(market_cls, "_update_market_price", [](nb::handle self) {
    // The engine updates the mid and market prices with every change of a
    // book: nothing is left to do (PAMS's internal step).
    (void)nb::cast<Market&>(self);
  });
  Property(
      market_cls, "time", [](const Market& m) { return m.get_time(); },
      [](Market& m, Arg<int64_t> time) {
        m.set_time_only(StepArg(time.object, "Market.time", -1));
      },
      "int: the current step (-1 before the first one), as get_time(). Setting\n"
      "it moves the market's clock only, as PAMS's attribute (a program driving\n"
      "the simulation by hand; runners move it themselves): the books stay at\n"
      "their step, so orders are refused until _update_time or _set_time moves\n"
      "both (PAMS's AssertionError).");
  Property(
      market_cls, "_is_running", [](const Market& m) { return m.is_running(); },
      [](Market& m, Arg<bool> running) {
        m.set_is_running(TruthArg(running.object, "Market._is_running"));
      });
  for (const char* name : {"_market_prices", "_mid_prices", "_last_executed_prices",
                           "_fundamental_prices", "_executed_volumes", "_executed_total_prices",
                           "_n_buy_orders", "_n_sell_orders"}) {
    const std::string key = name;
    nb::object property = nb::module_::import_("builtins").attr("property");
    Forget(market_cls, name);
    nb::setattr(
        market_cls, name,
        property(nb::cpp_function([key](nb::handle self) { return HistoryList(self, key); },
                                  nb::is_method()),
                 nb::cpp_function([key](Market& m, nb::handle values) { SetHistory(m, key, values); },
                                  nb::is_method(), nb::arg("values").none())));
  }
  Property(
      market_cls, "_next_order_id", [](const Market& m) { return m.next_order_id(); },
      [](Market& m, Arg<int64_t> id_arg) {
        const int64_t id = IntArg(id_arg.object, "Market._next_order_id");
        if (id < m.next_order_id()) {
          RaiseArgument(PyExc_ValueError, "Market._next_order_id",
                        ("an id >= " + std::to_string(m.next_order_id()) +
                         " (the books key their orders by id: ids cannot be given twice)")
                            .c_str(),
                        id_arg.object);
        }
        m.set_next_order_id(id);
      },
      "int: the id the next order placed gets (PAMS's attribute; settable\n"
      "forward only, as the engine's books key orders by id).");
  // market.py's `logger` setter for a market built by hand: its logs go to
  // `logger` (None: no logger) from now on, through the order mirror as a
  // market built with it.
  Method(market_cls, "_set_logger", [](nb::handle self, nb::handle logger) {
    Market& m = nb::cast<Market&>(self);
    m.set_logger(ContextOf(self, "market").MarketLoggerFor(logger));
  }, nb::arg("logger").none());
  Method(index_cls, "_add_market", &AddComponent, nb::arg("market").none());
}

}  // namespace pams::python
