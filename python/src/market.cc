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

#include "bindings.h"
#include "markets.h"
#include "python_run.h"
#include "transaction_fees.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/market/order_book.h"
#include "pams/market/order_book.h"

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
nb::list Many(const Market& m, nb::handle times, One one) {
  nb::list out;
  if (times.is_none()) {
    for (int64_t t = 0; t <= m.get_time(); ++t) out.append(one(m, t));
    return out;
  }
  // PAMS checks every time before reading any.
  nb::list ts = nb::list(nb::iter(times));
  for (nb::handle t : ts) {
    if (nb::cast<int64_t>(t) > m.get_time()) {
      PyErr_SetString(PyExc_AssertionError, "Cannot refer the future parameters");
      throw nb::python_error();
    }
  }
  for (nb::handle t : ts) out.append(one(m, Resolve(m, nb::cast<int64_t>(t))));
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

}  // namespace

nb::object PriceObject(const Market& market, double price) { return Price(market, price); }

void BindMarket(nb::module_& m) {
  using T = std::optional<int64_t>;
  const auto time_arg = nb::arg("time") = nb::none();
  const auto times_arg = nb::arg("times") = nb::none();
  nb::class_<Market> market(m, "Market", nb::dynamic_attr());
  BindPythonMarkets(market);
  market.def_prop_ro("market_id", &Market::market_id)
      .def_prop_ro("name", [](const Market& mk) { return mk.name(); })
      .def_prop_ro("class_name", [](const Market& mk) { return mk.class_name(); })
      .def_prop_ro("tick_size", &TickSize)
      .def_prop_ro("outstanding_shares", &Market::outstanding_shares)
      .def_prop_ro("is_running", &Market::is_running)
      .def_prop_ro("time", &Market::get_time)
      .def("get_time", &Market::get_time)
      .def("get_market_price",
           [](const Market& mk, T time) {
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().market_prices, time, kRequired);
             return MarketPrice(mk, Resolve(mk, time));
           },
           time_arg)
      .def("get_market_prices",
           [](const Market& mk, nb::handle times) { return Many(mk, times, MarketPrice); },
           times_arg)
      .def("get_mid_price",
           [](const Market& mk, T time) {
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().mid_prices, time, kOptional);
             return Mid(mk, Resolve(mk, time));
           }, time_arg)
      .def("get_mid_prices",
           [](const Market& mk, nb::handle times) { return Many(mk, times, Mid); },
           times_arg)
      .def("get_last_executed_price",
           [](const Market& mk, T time) {
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().last_executed_prices, time, kOptional);
             return LastExecuted(mk, Resolve(mk, time));
           },
           time_arg)
      .def("get_last_executed_prices",
           [](const Market& mk, nb::handle times) { return Many(mk, times, LastExecuted); },
           times_arg)
      .def("get_fundamental_price",
           [](const Market& mk, T time) {
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().fundamental_prices, time, kRequired);
             return Fundamental(mk, Resolve(mk, time));
           },
           time_arg)
      .def("get_fundamental_prices",
           [](const Market& mk, nb::handle times) { return Many(mk, times, Fundamental); },
           times_arg)
      .def("get_executed_volume",
           [](const Market& mk, T time) {
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().executed_volumes, time, kInt);
             return Volume(mk, Resolve(mk, time));
           }, time_arg)
      .def("get_executed_volumes",
           [](const Market& mk, nb::handle times) { return Many(mk, times, Volume); },
           times_arg)
      .def("get_executed_total_price",
[](const Market& mk, T time) {
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().executed_total_prices, time, kInt);
             return ExecutedTotalPrice(mk, Resolve(mk, time));
           },
           time_arg)
      .def("get_executed_total_prices",
           [](const Market& mk, nb::handle times) {
             return Many(mk, times, ExecutedTotalPrice);
           },
           times_arg)
      .def("get_n_buy_order",
           [](const Market& mk, T time) {
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().n_buy_orders, time, kInt);
             return BuyOrders(mk, Resolve(mk, time));
           },
           time_arg)
      .def("get_n_buy_orders",
           [](const Market& mk, nb::handle times) { return Many(mk, times, BuyOrders); },
           times_arg)
      .def("get_n_sell_order",
           [](const Market& mk, T time) {
             if (mk.get_time() < 0) return BeforeStart(mk, mk.history_entries().n_sell_orders, time, kInt);
             return SellOrders(mk, Resolve(mk, time));
           },
           time_arg)
      .def("get_n_sell_orders",
           [](const Market& mk, nb::handle times) { return Many(mk, times, SellOrders); },
           times_arg)
      .def("get_vwap", &Vwap, time_arg)
      .def("get_best_buy_price",
           [](const Market& mk) {
             const auto p = mk.get_best_buy_price();
             return p ? Price(mk, *p) : nb::none();
           })
      .def("get_best_sell_price",
           [](const Market& mk) {
             const auto p = mk.get_best_sell_price();
             return p ? Price(mk, *p) : nb::none();
           })
      .def("get_buy_order_book",
           [](const Market& mk) { return Book(mk, mk.buy_order_book()); })
      // PAMS's buy_order_book and sell_order_book attributes (read-only:
      // orders go through the runner).
      .def_prop_ro("buy_order_book",
                   [](nb::handle self) {
                     return OwnedBy(&nb::cast<Market&>(self).buy_order_book(), self);
                   })
      .def_prop_ro("sell_order_book",
                   [](nb::handle self) {
                     return OwnedBy(&nb::cast<Market&>(self).sell_order_book(), self);
                   })
      // Multiplies the fundamental price by scale from now on (what PAMS's
      // FundamentalPriceShock does).
      .def("change_fundamental_price",
           [](Market& mk, double scale) { mk.change_fundamental_price(scale); },
           nb::arg("scale"))
      .def("get_sell_order_book",
           [](const Market& mk) { return Book(mk, mk.sell_order_book()); })
      .def("remain_executable_orders", &Market::remain_executable_orders)
      .def("convert_to_tick_level_rounded_lower",
           &Market::convert_to_tick_level_rounded_lower, nb::arg("price"))
      .def("convert_to_tick_level_rounded_upper",
           &Market::convert_to_tick_level_rounded_upper, nb::arg("price"))
      .def("convert_to_tick_level", &Market::convert_to_tick_level, nb::arg("price"),
           nb::arg("is_buy"))
      .def("convert_to_price",
           [](const Market& mk, int64_t level) {
             return Price(mk, mk.convert_to_price(level));
           },
           nb::arg("tick_level"));
  // Since PAMS's development branch: the market's transaction fee (None
  // without one) and the fees it collected (floats; 0.0 without a fee).
  market
      .def_prop_ro("transaction_fee",
                   [](nb::handle self) {
                     return TransactionFeeObject(nb::cast<Market&>(self), self);
                   })
      .def("get_transaction_fee_revenue",
           [](const Market& mk, T time) { return FeeRevenue(mk, Resolve(mk, time)); },
           time_arg)
      .def("get_transaction_fee_revenues",
           [](const Market& mk, nb::handle times) { return Many(mk, times, FeeRevenue); },
           times_arg)
      .def("get_cumulative_transaction_fee_revenue",
           [](const Market& mk, T time) {
             // PAMS: sum(revenues[:max(time + 1, 0)], 0.0).
             const int64_t t = time.value_or(mk.get_time());
             if (t > mk.get_time()) {
               PyErr_SetString(PyExc_AssertionError, "Cannot refer the future parameters");
               throw nb::python_error();
             }
             return t < 0 ? 0.0 : mk.get_cumulative_transaction_fee_revenue(t);
           },
           time_arg);

  nb::class_<IndexMarket, Market>(m, "IndexMarket")
      .def("get_fundamental_index",
           [](const IndexMarket& mk, T time) {
             return mk.get_fundamental_index(ResolvePresent(mk, time));
           },
           time_arg)
      .def("get_market_index",
           [](const IndexMarket& mk, T time) {
             return mk.get_market_index(ResolvePresent(mk, time));
           },
           time_arg)
      .def("get_index",
           [](const IndexMarket& mk, T time) { return mk.get_index(ResolvePresent(mk, time)); },
           time_arg)
      .def("compute_fundamental_index",
           [](const IndexMarket& mk, T time) {
             return mk.compute_fundamental_index(ResolvePresent(mk, time));
           },
           time_arg)
      .def("compute_market_index",
           [](const IndexMarket& mk, T time) {
             return mk.compute_market_index(ResolvePresent(mk, time));
           },
           time_arg)
      .def("is_all_markets_running", &IndexMarket::is_all_markets_running)
      // The component markets (the simulator's objects).
      .def("get_components", [](nb::handle self) {
        nb::object owner = nb::getattr(self, "_owner", nb::none());
        nb::list out;
        for (const Market* c : nb::cast<const IndexMarket&>(self).get_components()) {
          out.append(OwnedBy(const_cast<Market*>(c), owner.is_none() ? nb::handle() : owner));
        }
        return out;
      });

  // An order book as PAMS's OrderBook reads (its market is the _owner
  // attribute OwnedBy set, for PAMS's int or float prices).
  auto market_of = [](nb::handle book) -> const Market& {
    return nb::cast<const Market&>(book.attr("_owner"));
  };
  nb::class_<OrderBook>(m, "OrderBook", nb::dynamic_attr())
      .def_prop_ro("is_buy", &OrderBook::is_buy)
      .def("__len__", &OrderBook::size)
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
