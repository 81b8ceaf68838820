// _core.Market: pams::Market's getters with PAMS's Python semantics, so that
// pams_cpp.Market reads exactly as pams.Market does:
//   * `time` defaults to now; a future time raises AssertionError ("Cannot
//     refer the future parameters"), a negative one indexes from the end as
//     a Python list does (-1 is now);
//   * None where PAMS keeps None (no mid price yet), an AssertionError where
//     PAMS asserts a value exists;
//   * Python ints where PAMS's values are ints: prices in a market whose
//     tickSize is an int (tick_size * tick_level), a step's executed total
//     price before any execution (0), volumes and counts.
// Markets belong to their simulator; Python holds references kept alive
// with it.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <optional>
#include <string>

#include "bindings/bindings.h"
#include "interop/arguments.h"
#include "interop/hand_built.h"
#include "interop/python_markets.h"
#include "interop/python_run.h"
#include "interop/python_transaction_fees.h"
#include "interop/values.h"
#include "pams/market/fundamentals.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/market/order_book.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

// PAMS's histories are Python lists grown in chunks of 100 entries, those
// after now holding None (prices) or 0 (volumes, counts).
constexpr int64_t kChunk = 100;
int64_t ListLength(const Market& m) { return (m.get_time() / kChunk + 1) * kChunk; }

// A step PAMS's list entry `t` stands for: t itself, or for a negative t
// the entry that many from the end of the list, which is kFuture when it
// lies after now (an entry not filled yet).
constexpr int64_t kFuture = -1;

// Before the first step (time -1) PAMS's lists hold only what setup put
// there (a market price): None or a negative time indexes them as Python's
// lists do (IndexError when there is no such entry), a later time is the
// future (AssertionError).
template <typename V, typename Convert>
nb::object BeforeStart(const Market& m, const std::vector<V>& v, std::optional<int64_t> time,
                       Convert convert) {
  int64_t i = time.value_or(-1);
  if (i > m.get_time()) {
    PyErr_SetString(PyExc_AssertionError, "Cannot refer the future parameters");
    throw nb::python_error();
  }
  i += static_cast<int64_t>(v.size());
  if (i < 0 || i >= static_cast<int64_t>(v.size())) {
    throw nb::index_error("list index out of range");
  }
  return convert(v[static_cast<size_t>(i)]);
}

// PAMS's time argument: None for now; a future time is an AssertionError.
int64_t Resolve(const Market& m, std::optional<int64_t> time) {
  const int64_t now = m.get_time();
  if (!time) return now;
  int64_t t = *time;
  if (t > now) {
    PyErr_SetString(PyExc_AssertionError, "Cannot refer the future parameters");
    throw nb::python_error();
  }
  if (t >= 0) return t;
  t += ListLength(m);
  if (t < 0) throw nb::index_error("list index out of range");
  return t > now ? kFuture : t;
}

[[noreturn]] void AssertionFailed() {
  PyErr_SetNone(PyExc_AssertionError);
  throw nb::python_error();
}

// Resolve() for what has no value after now (the index getters).
int64_t ResolvePresent(const Market& m, std::optional<int64_t> time) {
  const int64_t t = Resolve(m, time);
  if (t == kFuture) AssertionFailed();
  return t;
}

// A price as PAMS holds it: an int in a market with an integer tickSize.
nb::object Price(const Market& m, double value) {
  if (m.tick_size_is_int()) return nb::int_(static_cast<int64_t>(value));
  return nb::float_(value);
}

nb::object MarketPrice(const Market& m, int64_t t) {
  if (t == kFuture) AssertionFailed();  // None, which PAMS refuses here
  const double v = m.market_prices()[t];
  if (v != v) AssertionFailed();
  if (m.market_price_is_int(t)) return nb::int_(static_cast<int64_t>(v));
  return nb::float_(v);
}

nb::object OptionalPrice(const Market&, double v, bool as_int) {
  if (v != v) return nb::none();  // NaN stands for None
  if (as_int) return nb::int_(static_cast<int64_t>(v));
  return nb::float_(v);
}

nb::object ExecutedTotalPrice(const Market& m, int64_t t) {
  if (t == kFuture) return nb::int_(0);
  // PAMS adds price * volume to an int 0.
  if (m.tick_size_is_int() || m.get_executed_volume(t) == 0) {
    return nb::int_(static_cast<int64_t>(m.get_executed_total_price(t)));
  }
  return nb::float_(m.get_executed_total_price(t));
}

// PAMS's entries before the first step: a price that must be there, one
// that may be None, a count.
const auto kRequired = [](double v) -> nb::object {
  if (v != v) AssertionFailed();
  return nb::float_(v);
};
const auto kOptional = [](double v) -> nb::object {
  if (v != v) return nb::none();
  return nb::float_(v);
};
const auto kInt = [](auto v) -> nb::object { return nb::int_(static_cast<int64_t>(v)); };

// A getter at one time (`one`) and over many (`times`: an iterable or None
// for all steps), as PAMS's get_x(time) and get_xs(times).
template <typename One>
nb::list Many(const Market& m, nb::handle times, One one, const char* what) {
  nb::list out;
  if (times.is_none()) {
    for (int64_t t = 0; t <= m.get_time(); ++t) out.append(one(m, t));
    return out;
  }
  // PAMS checks every time before reading any (each is converted twice:
  // cheaper than keeping them, for the few steps an agent asks for).
  nb::list ts = nb::list(nb::iter(times));
  auto step = [&](nb::handle t) {
    const std::optional<int64_t> s = TimeArg(t, what);
    if (!s) RaiseArgument(PyExc_TypeError, what, "ints", t);
    return *s;
  };
  for (nb::handle t : ts) {
    if (step(t) > m.get_time()) {
      PyErr_SetString(PyExc_AssertionError, "Cannot refer the future parameters");
      throw nb::python_error();
    }
  }
  for (nb::handle t : ts) out.append(one(m, Resolve(m, step(t))));
  return out;
}

nb::object Mid(const Market& m, int64_t t) {
  if (t == kFuture) return nb::none();
  return OptionalPrice(m, m.mid_prices()[t], false);
}
nb::object LastExecuted(const Market& m, int64_t t) {
  if (t == kFuture) return nb::none();
  return OptionalPrice(m, m.last_executed_prices()[t], m.tick_size_is_int());
}
nb::object Fundamental(const Market& m, int64_t t) {
  if (t == kFuture) AssertionFailed();
  const double v = m.fundamental_prices()[t];
  if (v != v) AssertionFailed();
  return nb::float_(v);
}
nb::object Volume(const Market& m, int64_t t) {
  return nb::int_(t == kFuture ? 0 : m.get_executed_volume(t));
}
nb::object BuyOrders(const Market& m, int64_t t) {
  return nb::int_(t == kFuture ? 0 : m.get_n_buy_order(t));
}
nb::object SellOrders(const Market& m, int64_t t) {
  return nb::int_(t == kFuture ? 0 : m.get_n_sell_order(t));
}
nb::object FeeRevenue(const Market& m, int64_t t) {
  return nb::float_(t == kFuture ? 0.0 : m.get_transaction_fee_revenue(t));
}

// PAMS's get_vwap(time): sums over the list slice [:time + 1], so a
// negative time counts from the end of the chunked list.
double Vwap(const Market& m, std::optional<int64_t> time) {
  const int64_t now = m.get_time();
  int64_t t = time.value_or(now);
  if (t > now) {
    PyErr_SetString(PyExc_AssertionError, "Cannot refer the future parameters");
    throw nb::python_error();
  }
  if (t < 0) {
    // [:0] is empty; [:-k] ends k entries before the list's end, and the
    // entries after now add nothing.
    if (t == -1) return std::nan("");
    t = std::min(ListLength(m) + t, now);
    if (t < 0) return std::nan("");
  }
  return m.get_vwap(t);
}

nb::dict Book(const Market& m, const OrderBook& book) {
  nb::dict out;
  for (const auto& [price, volume] : book.get_price_volume()) {
    out[price ? Price(m, *price) : nb::none()] = nb::int_(volume);
  }
  return out;
}

nb::object TickSize(const Market& m) {
  if (m.tick_size_is_int()) return nb::int_(static_cast<int64_t>(m.tick_size()));
  return nb::float_(m.tick_size());
}

// A price for the tick grid: a number (TypeError), not NaN (ValueError),
// within the engine's tick levels (OverflowError).
double TickPrice(const Market& m, Arg<double> price, const char* method) {
  const std::string what = std::string(method) + ": price";
  const double p = NumberArg(price.object, what.c_str());
  CheckTickPrice(m, p, method);
  return p;
}

}  // namespace

void CheckComponents(const IndexMarket& index, const char* method) {
  int64_t total = 0;
  for (const Market* c : index.get_components()) {
    if (!c->outstanding_shares()) {
      Raise(PyExc_TypeError, std::string(method) + ": component " + c->name() +
                                 " has no outstanding_shares (None)");
    }
    total += *c->outstanding_shares();
  }
  if (total == 0) {
    Raise(PyExc_ZeroDivisionError,
          std::string(method) + ": the components' outstanding shares add up to 0 (" +
              std::to_string(index.get_components().size()) + " components)");
  }
}

namespace {

// PAMS's Market.change_fundamental_price: the market's fundamental price
// now, and the Fundamentals' (whose path goes on from it), times scale.
// Checked before anything changes: a market before its first step is
// PAMS's IndexError (its list is empty), one without a fundamental path
// (an index market, a market not added to the Fundamentals) PAMS's
// KeyError.
void ChangeFundamentalPrice(nb::handle self, Arg<double> scale) {
  Market& mk = nb::cast<Market&>(self);
  const double s = NotNanArg(scale.object, "Market.change_fundamental_price: scale");
  if (mk.get_time() < 0) {
    Raise(PyExc_IndexError, "Market.change_fundamental_price: market " + mk.name() +
                                " has no step yet (time -1): call _update_time first");
  }
  if (!ContextOf(self, "market").simulator().fundamentals().has_market(mk.market_id())) {
    PyErr_SetObject(PyExc_KeyError, nb::int_(mk.market_id()).ptr());
    throw nb::python_error();
  }
  mk.change_fundamental_price(s);
}

}  // namespace

nb::object PriceObject(const Market& market, double price) { return Price(market, price); }

namespace {

// The docstrings of the getters, in PAMS's Google style. The getters at one
// step share their `time` argument and its errors, those over many steps
// their `times`: composed here so that every getter says the same thing.
constexpr const char* kTimeArg = R"(
Args:
    time (int | None): the step to read; None (the default) reads the
        current step. A negative time counts back from the end of PAMS's
        history list (which grows in chunks of 100 entries), as a list
        index does: -1 is the chunk's last entry, not always now.)";
constexpr const char* kTimesArg = R"(
Args:
    times (Iterable[int] | None): the steps to read, in the order given;
        None (the default) reads every step from 0 to now.)";
constexpr const char* kFutureRaises = R"(
    AssertionError: a step after the current one ("Cannot refer the
        future parameters").)";

std::string AtTime(const char* summary, const char* returns, const char* raises = "") {
  return std::string(summary) + "\n" + kTimeArg + "\n\nReturns:\n    " + returns +
         "\n\nRaises:" + kFutureRaises + raises;
}
std::string AtTimes(const char* summary, const char* returns, const char* raises = "") {
  return std::string(summary) + "\n" + kTimesArg + "\n\nReturns:\n    " + returns +
         "\n\nRaises:" + kFutureRaises + raises;
}

constexpr const char* kMarketDoc = R"(A market: one traded asset, its two order books and its histories
(PAMS's ``pams.Market``).

A runner builds its markets from the config; a program that drives the
simulation by hand builds one as PAMS does. Every getter reads as PAMS's
does: ``time=None`` means the current step, a step after now raises
AssertionError, and the values have PAMS's Python types (prices are ints
in a market whose ``tickSize`` is an int).

Args:
    market_id (int): the market's id, unique in its simulator.
    prng (random.Random): the market's own generator.
    simulator (Simulator): the pams_cpp Simulator the market belongs to.
    name (str): the market's name, unique in its simulator.
    logger (Logger | None): where its logs go (None: the simulator's).

Raises:
    TypeError: simulator is not a pams_cpp Simulator, prng not a
        random.Random or logger not a pams_cpp Logger.

Note:
    The market is the engine's (C++) object: its underscore methods
    (``_add_order``, ``_cancel_order``, ``_execution``, ``_update_time``,
    ...) run the engine's code and update the Order objects given as PAMS's
    market does. Subclass it in Python as in PAMS; register the subclass
    with ``runner.class_register``.)";

}  // namespace

namespace {

// PAMS's history lists and the Market getters that read them.
struct History {
  const char* name;
  const char* getter;
};
constexpr History kHistories[] = {
    {"_market_prices", "get_market_prices"},
    {"_mid_prices", "get_mid_prices"},
    {"_last_executed_prices", "get_last_executed_prices"},
    {"_fundamental_prices", "get_fundamental_prices"},
    {"_executed_volumes", "get_executed_volumes"},
    {"_executed_total_prices", "get_executed_total_prices"},
    {"_n_buy_orders", "get_n_buy_orders"},
    {"_n_sell_orders", "get_n_sell_orders"}};

// The methods of _core.Market that reach a market of a Python class
// (interop/python_markets.h): setup for Python's super(), and PAMS's
// history lists.
void BindPythonMarkets(nb::class_<Market>& market) {
  market.def(
      "setup",
      [](Market& m, nb::handle settings, nb::args, nb::kwargs) {
        RequireSettings(settings, "Market.setup");
        PythonMarketCalls* p = PythonCallsOf(m);
        if (p == nullptr) {
          // A runner's market of a built-in class, set up by a program
          // running the runner's pending setups itself.
          const Json json = ToJson(settings, m.name());
          m.setup(Settings(json, m.name()));
          return;
        }
        p->BaseSetup(settings);
      },
      nb::arg("settings").none(), nb::arg("args"), nb::arg("kwargs"));
  // PAMS's history lists, which a Python market may preset in setup (as
  // PAMS's market_share sample presets _executed_volumes). Reading one
  // gives its entries up to now, with the getters' types (PAMS's lists
  // also hold the None entries of the steps to come in their chunk).
  for (const History& history : kHistories) {
    const std::string key = history.name;
    const char* getter = history.getter;
    market.def_prop_rw(
        history.name,
        [getter](nb::handle self) -> nb::object {
          nb::list times;
          for (int64_t i = 0; i <= nb::cast<const Market&>(self).get_time(); ++i) {
            times.append(i);
          }
          return self.attr(getter)(nb::arg("times") = times);
        },
        [key](Market& m, nb::handle values) {
          PythonMarketCalls* p = PythonCallsOf(m);
          if (p == nullptr || !p->SetHistory(key, values)) {
            throw nb::attribute_error(("only a market of a Python class may set " + key +
                                       ", in its setup")
                                          .c_str());
          }
        });
  }
}

}  // namespace

void BindMarket(nb::module_& m) {
  using T = Arg<std::optional<int64_t>>;
  const auto time_arg = nb::arg("time").none() = nb::none();
  const auto times_arg = nb::arg("times").none() = nb::none();
  nb::class_<Market> market(m, "Market", nb::dynamic_attr(), kMarketDoc);
  BindPythonMarkets(market);
  market.def_prop_ro("market_id", &Market::market_id,
                     "int: the market's id, unique in its simulator (read-only).")
      .def_prop_ro("name", [](const Market& mk) { return mk.name(); },
                   "str: the market's name, unique in its simulator (read-only).")
      .def_prop_ro("class_name", [](const Market& mk) { return mk.class_name(); },
                   "str: the name of the market's class in the config (\"Market\", ...).")
      .def_prop_ro("tick_size", &TickSize,
                   "float | int: the price grid's step (the config's tickSize).")
      .def_prop_ro("outstanding_shares", &Market::outstanding_shares,
                   "int | None: the number of shares (outstandingShares; None: not set).")
      .def_prop_ro("is_running", &Market::is_running,
                   "bool: whether orders execute in the current session (a session "
                   "without order execution, or a trading halt, stops them).")
      .def_prop_ro("time", &Market::get_time,
                   "int: the current step (-1 before the first one), as get_time().")
      .def("get_time", &Market::get_time,
           "The current step of the market.\n\n"
           "Returns:\n    int: the step, counted from 0 over all sessions; -1 before the\n"
           "    first step.")
      .def("get_market_price",
           [](const Market& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "Market.get_market_price: time");
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().market_prices, time, kRequired);
             return MarketPrice(mk, Resolve(mk, time));
           },
           time_arg,
           AtTime("The market price at a step: the last execution price; before the first\n"
                  "execution, the last mid price; before both books had orders, the\n"
                  "initial price (``marketPrice``, else the fundamental price).",
                  "float | int: the market price (an int in a market whose tickSize is an int).",
                  "\n    AssertionError: the step has no market price yet.").c_str(),
           nb::sig("def get_market_price(self, time: int | None = None) -> float | int"))
      .def("get_market_prices",
           [](const Market& mk, nb::handle times) {
             return Many(mk, times, MarketPrice, "Market.get_market_prices: times");
           },
           times_arg,
           AtTimes("The market prices at several steps (see get_market_price).",
                   "List[float | int]: one market price per step.",
                   "\n    AssertionError: one of the steps has no market price yet.").c_str(),
           nb::sig("def get_market_prices(self, times: collections.abc.Iterable[int] | None = None) -> list[float | int]"))
      .def("get_mid_price",
           [](const Market& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "Market.get_mid_price: time");
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().mid_prices, time, kOptional);
             return Mid(mk, Resolve(mk, time));
           }, time_arg,
           AtTime("The mid price at a step: the mean of the best buy and best sell\n"
                  "prices, as last computed (it carries over steps whose books are\n"
                  "one-sided).",
                  "float | None: the mid price; None until both books have had an order.",
                  "").c_str(),
           nb::sig("def get_mid_price(self, time: int | None = None) -> float | None"))
      .def("get_mid_prices",
           [](const Market& mk, nb::handle times) {
             return Many(mk, times, Mid, "Market.get_mid_prices: times");
           },
           times_arg,
           AtTimes("The mid prices at several steps (see get_mid_price).",
                   "List[float | None]: one mid price per step, None where a book was\n    empty.",
                   "").c_str(),
           nb::sig("def get_mid_prices(self, times: collections.abc.Iterable[int] | None = None) -> list[float | None]"))
      .def("get_last_executed_price",
           [](const Market& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "Market.get_last_executed_price: time");
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().last_executed_prices, time, kOptional);
             return LastExecuted(mk, Resolve(mk, time));
           },
           time_arg,
           AtTime("The price of the last execution at or before a step.",
                  "float | int | None: the price; None when nothing has executed yet.",
                  "").c_str(),
           nb::sig("def get_last_executed_price(self, time: int | None = None) -> float | int | None"))
      .def("get_last_executed_prices",
           [](const Market& mk, nb::handle times) {
             return Many(mk, times, LastExecuted, "Market.get_last_executed_prices: times");
           },
           times_arg,
           AtTimes("The last execution prices at several steps (see\nget_last_executed_price).",
                   "List[float | int | None]: one price per step, None before the first\n    execution.",
                   "").c_str(),
           nb::sig("def get_last_executed_prices(self, times: collections.abc.Iterable[int] | None = None) -> list[float | int | None]"))
      .def("get_fundamental_price",
           [](const Market& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "Market.get_fundamental_price: time");
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().fundamental_prices, time, kRequired);
             return Fundamental(mk, Resolve(mk, time));
           },
           time_arg,
           AtTime("The fundamental price at a step (what the fundamental process gave).",
                  "float: the fundamental price.",
                  "\n    AssertionError: the step has no fundamental price yet.").c_str(),
           nb::sig("def get_fundamental_price(self, time: int | None = None) -> float"))
      .def("get_fundamental_prices",
           [](const Market& mk, nb::handle times) {
             return Many(mk, times, Fundamental, "Market.get_fundamental_prices: times");
           },
           times_arg,
           AtTimes("The fundamental prices at several steps (see get_fundamental_price).",
                   "List[float]: one fundamental price per step.",
                   "\n    AssertionError: one of the steps has no fundamental price yet.").c_str(),
           nb::sig("def get_fundamental_prices(self, times: collections.abc.Iterable[int] | None = None) -> list[float]"))
      .def("get_executed_volume",
           [](const Market& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "Market.get_executed_volume: time");
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().executed_volumes, time, kInt);
             return Volume(mk, Resolve(mk, time));
           }, time_arg,
           AtTime("The volume executed in a step (the sum over its executions).",
                  "int: the executed volume; 0 for a step without executions.",
                  "").c_str(),
           nb::sig("def get_executed_volume(self, time: int | None = None) -> int"))
      .def("get_executed_volumes",
           [](const Market& mk, nb::handle times) {
             return Many(mk, times, Volume, "Market.get_executed_volumes: times");
           },
           times_arg,
           AtTimes("The executed volumes of several steps (see get_executed_volume).",
                   "List[int]: one volume per step.",
                   "").c_str(),
           nb::sig("def get_executed_volumes(self, times: collections.abc.Iterable[int] | None = None) -> list[int]"))
      .def("get_executed_total_price",
           [](const Market& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "Market.get_executed_total_price: time");
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().executed_total_prices, time, kInt);
             return ExecutedTotalPrice(mk, Resolve(mk, time));
           },
           time_arg,
           AtTime("The total value executed in a step: the sum of price times volume\nover its executions.",
                  "float | int: the executed value; 0 for a step without executions.",
                  "").c_str(),
           nb::sig("def get_executed_total_price(self, time: int | None = None) -> float | int"))
      .def("get_executed_total_prices",
           [](const Market& mk, nb::handle times) {
             return Many(mk, times, ExecutedTotalPrice, "Market.get_executed_total_prices: times");
           },
           times_arg,
           AtTimes("The executed values of several steps (see get_executed_total_price).",
                   "List[float | int]: one value per step.",
                   "").c_str(),
           nb::sig("def get_executed_total_prices(self, times: collections.abc.Iterable[int] | None = None) -> list[float | int]"))
      .def("get_n_buy_order",
           [](const Market& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "Market.get_n_buy_order: time");
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().n_buy_orders, time, kInt);
             return BuyOrders(mk, Resolve(mk, time));
           },
           time_arg,
           AtTime("The number of buy orders in the book at the end of a step.",
                  "int: the number of buy orders.",
                  "").c_str(),
           nb::sig("def get_n_buy_order(self, time: int | None = None) -> int"))
      .def("get_n_buy_orders",
           [](const Market& mk, nb::handle times) {
             return Many(mk, times, BuyOrders, "Market.get_n_buy_orders: times");
           },
           times_arg,
           AtTimes("The numbers of buy orders at the end of several steps.",
                   "List[int]: one count per step.",
                   "").c_str(),
           nb::sig("def get_n_buy_orders(self, times: collections.abc.Iterable[int] | None = None) -> list[int]"))
      .def("get_n_sell_order",
           [](const Market& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "Market.get_n_sell_order: time");
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().n_sell_orders, time, kInt);
             return SellOrders(mk, Resolve(mk, time));
           },
           time_arg,
           AtTime("The number of sell orders in the book at the end of a step.",
                  "int: the number of sell orders.",
                  "").c_str(),
           nb::sig("def get_n_sell_order(self, time: int | None = None) -> int"))
      .def("get_n_sell_orders",
           [](const Market& mk, nb::handle times) {
             return Many(mk, times, SellOrders, "Market.get_n_sell_orders: times");
           },
           times_arg,
           AtTimes("The numbers of sell orders at the end of several steps.",
                   "List[int]: one count per step.",
                   "").c_str(),
           nb::sig("def get_n_sell_orders(self, times: collections.abc.Iterable[int] | None = None) -> list[int]"))
      .def("get_vwap",
           [](const Market& mk, T time) {
             return Vwap(mk, TimeArg(time.object, "Market.get_vwap: time"));
           },
           time_arg,
           AtTime("The volume-weighted average execution price from step 0 to a step.",
                  "float: the executed value over the executed volume of those steps;\n"
                  "    NaN when nothing executed in them.").c_str())
      .def("get_best_buy_price",
           [](const Market& mk) {
             const auto p = mk.get_best_buy_price();
             return p ? Price(mk, *p) : nb::none();
           },
           "The highest price of the buy orders in the book now.\n\n"
           "Returns:\n    float | int | None: the price; None when the buy book is empty or\n"
           "    its first order is a market order.",
           nb::sig("def get_best_buy_price(self) -> float | int | None"))
      .def("get_best_sell_price",
           [](const Market& mk) {
             const auto p = mk.get_best_sell_price();
             return p ? Price(mk, *p) : nb::none();
           },
           "The lowest price of the sell orders in the book now.\n\n"
           "Returns:\n    float | int | None: the price; None when the sell book is empty or\n"
           "    its first order is a market order.",
           nb::sig("def get_best_sell_price(self) -> float | int | None"))
      .def("get_buy_order_book",
           [](const Market& mk) { return Book(mk, mk.buy_order_book()); },
           "The buy side of the book now, as volumes per price.\n\n"
           "Returns:\n    Dict[float | int | None, int]: the total volume at each price, from\n"
           "    the best price down; the key None holds the market orders.",
           nb::sig("def get_buy_order_book(self) -> dict[float | int | None, int]"))
      // PAMS's buy_order_book and sell_order_book attributes (read-only:
      // orders go through the runner).
      .def_prop_ro("buy_order_book",
                   [](nb::handle self) {
                     return OwnedBy(&nb::cast<Market&>(self).buy_order_book(), self);
                   },
                   "OrderBook: the market's buy orders (read-only: orders reach it\n"
                   "through the runner or _add_order).")
      .def_prop_ro("sell_order_book",
                   [](nb::handle self) {
                     return OwnedBy(&nb::cast<Market&>(self).sell_order_book(), self);
                   },
                   "OrderBook: the market's sell orders (read-only: orders reach it\n"
                   "through the runner or _add_order).")
      // Multiplies the fundamental price by scale from now on (what PAMS's
      // FundamentalPriceShock does).
      .def("change_fundamental_price",
           &ChangeFundamentalPrice, nb::arg("scale").none(),
           nb::sig("def change_fundamental_price(self, scale: float) -> None"),
           "Multiplies the fundamental price by scale from the current step on.\n\n"
           "This is what FundamentalPriceShock does; the fundamental process goes on\n"
           "from the scaled price.\n\n"
           "Args:\n    scale (float): the factor (1.1 raises the price by 10%).")
      .def("get_sell_order_book",
           [](const Market& mk) { return Book(mk, mk.sell_order_book()); },
           "The sell side of the book now, as volumes per price.\n\n"
           "Returns:\n    Dict[float | int | None, int]: the total volume at each price, from\n"
           "    the best price up; the key None holds the market orders.",
           nb::sig("def get_sell_order_book(self) -> dict[float | int | None, int]"))
      .def("remain_executable_orders", &Market::remain_executable_orders,
           "Whether the books now hold a buy and a sell order that would execute.\n\n"
           "Returns:\n    bool: True when a market order faces the other side, or the best\n"
           "    buy price is at or above the best sell price.")
      .def("convert_to_tick_level_rounded_lower",
           [](const Market& mk, Arg<double> price) {
             return mk.convert_to_tick_level_rounded_lower(
                 TickPrice(mk, price, "Market.convert_to_tick_level_rounded_lower"));
           },
           nb::arg("price").none(),
           nb::sig("def convert_to_tick_level_rounded_lower(self, price: float) -> int"),
           "The tick level at or below a price (the price over tick_size, rounded\n"
           "down).\n\nArgs:\n    price (float): the price.\n\n"
           "Returns:\n    int: the tick level.")
      .def("convert_to_tick_level_rounded_upper",
           [](const Market& mk, Arg<double> price) {
             return mk.convert_to_tick_level_rounded_upper(
                 TickPrice(mk, price, "Market.convert_to_tick_level_rounded_upper"));
           },
           nb::arg("price").none(),
           nb::sig("def convert_to_tick_level_rounded_upper(self, price: float) -> int"),
           "The tick level at or above a price (the price over tick_size, rounded\n"
           "up).\n\nArgs:\n    price (float): the price.\n\n"
           "Returns:\n    int: the tick level.")
      .def("convert_to_tick_level",
           [](const Market& mk, Arg<double> price, Arg<bool> is_buy) {
             return mk.convert_to_tick_level(
                 TickPrice(mk, price, "Market.convert_to_tick_level"),
                 TruthArg(is_buy.object, "Market.convert_to_tick_level: is_buy"));
           },
           nb::arg("price").none(), nb::arg("is_buy").none(),
           nb::sig("def convert_to_tick_level(self, price: float, is_buy: bool) -> int"),
           "The tick level an order's price moves to: down for a buy order, up for\n"
           "a sell order, so that the order never gets a worse price than it asked.\n\n"
           "Args:\n    price (float): the order's price.\n"
           "    is_buy (bool): whether the order buys.\n\n"
           "Returns:\n    int: the tick level.")
      .def("convert_to_price",
           [](const Market& mk, Arg<int64_t> level) {
             return Price(mk, mk.convert_to_price(
                                  IntArg(level.object, "Market.convert_to_price: tick_level")));
           },
           nb::arg("tick_level").none(),
           "The price of a tick level (tick_level times tick_size).\n\n"
           "Args:\n    tick_level (int): the tick level.\n\n"
           "Returns:\n    float | int: the price (an int where tick_size is an int).",
           nb::sig("def convert_to_price(self, tick_level: int) -> float | int"));
  // Since PAMS's development branch: the market's transaction fee (None
  // without one) and the fees it collected (floats; 0.0 without a fee).
  market
      .def_prop_ro("transaction_fee",
                   [](nb::handle self) {
                     return TransactionFeeObject(nb::cast<Market&>(self), self);
                   },
                   "TransactionFee | None: the fee the market charges on executions\n"
                   "(its group's transactionFee; None: no fee). Since PAMS's development\n"
                   "branch.")
      .def("get_transaction_fee_revenue",
           [](const Market& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "Market.get_transaction_fee_revenue: time");
             return FeeRevenue(mk, Resolve(mk, time));
           },
           time_arg,
           AtTime("The transaction fees the market collected in a step, both sides of\n"
                  "every execution (since PAMS's development branch).",
                  "float: the revenue; 0.0 in a market without a fee.").c_str(),
           nb::sig("def get_transaction_fee_revenue(self, time: int | None = None) -> float"))
      .def("get_transaction_fee_revenues",
           [](const Market& mk, nb::handle times) {
             return Many(mk, times, FeeRevenue, "Market.get_transaction_fee_revenues: times");
           },
           times_arg,
           AtTimes("The transaction fees the market collected in several steps (dev).",
                   "List[float]: one revenue per step (0.0 in a market without a fee).",
                   "").c_str(),
           nb::sig("def get_transaction_fee_revenues(self, times: collections.abc.Iterable[int] | None = None) -> list[float]"))
      .def("get_cumulative_transaction_fee_revenue",
           [](const Market& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "Market.get_cumulative_transaction_fee_revenue: time");
             // PAMS: sum(revenues[:max(time + 1, 0)], 0.0).
             const int64_t t = time.value_or(mk.get_time());
             if (t > mk.get_time()) {
               PyErr_SetString(PyExc_AssertionError, "Cannot refer the future parameters");
               throw nb::python_error();
             }
             return t < 0 ? 0.0 : mk.get_cumulative_transaction_fee_revenue(t);
           },
           time_arg,
           AtTime("The transaction fees the market collected from step 0 to a step\n"
                  "(since PAMS's development branch).",
                  "float: the total revenue; 0.0 in a market without a fee or for a\n"
                  "    negative time.").c_str());

  nb::class_<IndexMarket, Market>(
      m, "IndexMarket",
      "A market whose asset is an index of other markets (PAMS's\n"
      "``pams.IndexMarket``): the mean of its components' prices weighted by\n"
      "their outstanding shares.\n\n"
      "Built from a config (``\"markets\"`` naming the components) or by hand as a\n"
      "Market (same arguments), adding components with ``_add_market``.\n\n"
      "Args:\n"
      "    market_id (int): the market's id, unique in its simulator.\n"
      "    prng (random.Random): the market's own generator.\n"
      "    simulator (Simulator): the pams_cpp Simulator the market belongs to.\n"
      "    name (str): the market's name.\n"
      "    logger (Logger | None): where its logs go (None: the simulator's).")
      .def("get_fundamental_index",
           [](const IndexMarket& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "IndexMarket.get_fundamental_index: time");
             return mk.get_fundamental_index(ResolvePresent(mk, time));
           },
           time_arg,
           AtTime("The index market's own fundamental price at a step (what its\n"
                  "fundamental process gave, as get_fundamental_price).",
                  "float: the fundamental index.").c_str())
      .def("get_market_index",
           [](const IndexMarket& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "IndexMarket.get_market_index: time");
             CheckComponents(mk, "IndexMarket.get_market_index");
             return mk.get_market_index(ResolvePresent(mk, time));
           },
           time_arg,
           AtTime("The index of the components' market prices at a step (as\n"
                  "compute_market_index).",
                  "float: the market index.").c_str())
      .def("get_index",
           [](const IndexMarket& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "IndexMarket.get_index: time");
             CheckComponents(mk, "IndexMarket.get_index");
             return mk.get_index(ResolvePresent(mk, time));
           },
           time_arg,
           AtTime("The index at a step: the same as get_market_index.",
                  "float: the market index.").c_str())
      .def("compute_fundamental_index",
           [](const IndexMarket& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "IndexMarket.compute_fundamental_index: time");
             CheckComponents(mk, "IndexMarket.compute_fundamental_index");
             return mk.compute_fundamental_index(ResolvePresent(mk, time));
           },
           time_arg,
           AtTime("The index of the components' fundamental prices at a step: their\n"
                  "sum weighted by outstanding shares over the total shares.",
                  "float: the computed fundamental index.").c_str())
      .def("compute_market_index",
           [](const IndexMarket& mk, T time_arg) {
             const std::optional<int64_t> time =
                 TimeArg(time_arg.object, "IndexMarket.compute_market_index: time");
             CheckComponents(mk, "IndexMarket.compute_market_index");
             return mk.compute_market_index(ResolvePresent(mk, time));
           },
           time_arg,
           AtTime("The index of the components' market prices at a step: their sum\n"
                  "weighted by outstanding shares over the total shares.",
                  "float: the computed market index.").c_str())
      .def("is_all_markets_running", &IndexMarket::is_all_markets_running,
           "Whether every component market is running (executes orders) now.\n\n"
           "Returns:\n    bool: True when all components run.")
      // The component markets (the simulator's objects).
      .def("get_components", [](nb::handle self) {
        nb::object owner = nb::getattr(self, "_owner", nb::none());
        nb::list out;
        for (const Market* c : nb::cast<const IndexMarket&>(self).get_components()) {
          out.append(OwnedBy(const_cast<Market*>(c), owner.is_none() ? nb::handle() : owner));
        }
        return out;
      },
      "The component markets of the index, in the order they were added.\n\n"
      "Returns:\n    List[Market]: the components (the simulator's own objects).");

  // An order book as PAMS's OrderBook reads (its market is the _owner
  // attribute OwnedBy set, for PAMS's int or float prices). Its public
  // methods are replaced, with their docstrings, by hand_built_order_book.cc.
  auto market_of = [](nb::handle book) -> const Market& {
    return nb::cast<const Market&>(book.attr("_owner"));
  };
  nb::class_<OrderBook>(
      m, "OrderBook", nb::dynamic_attr(),
      "One side of a market's book (PAMS's ``pams.order_book.OrderBook``): the\n"
      "buy or the sell orders waiting, best first (market orders, then the\n"
      "better price, then the earlier placement, then the smaller order id).\n\n"
      "A market's books are ``market.buy_order_book`` and\n"
      "``market.sell_order_book``; a book built by hand stands alone.\n\n"
      "Args:\n    is_buy (bool): True for a book of buy orders.")
      .def_prop_ro("is_buy", &OrderBook::is_buy,
                   "bool: whether the book holds buy orders (else sell orders).")
      .def("__len__", &OrderBook::size, "The number of orders in the book.")
      .def("get_best_price",
           [market_of](nb::handle self) {
             const auto p = nb::cast<const OrderBook&>(self).best_price();
             return p ? Price(market_of(self), *p) : nb::none();
           })
      // {price: volume} (None: market orders), as Market.get_buy_order_book.
      .def("get_price_volume", [market_of](nb::handle self) {
        return Book(market_of(self), nb::cast<const OrderBook&>(self));
      });
}

}  // namespace pams::python
