// The methods of PAMS's markets and sessions that programs building or
// driving a simulation by hand call (interop/hand_built.h), and the
// constructors of PAMS's classes the engine binds.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bindings/binding_helpers.h"
#include "bindings/bindings.h"
#include "interop/attr_names.h"
#include "interop/hand_built.h"
#include "interop/python_agents.h"
#include "interop/python_events.h"
#include "interop/python_markets.h"
#include "interop/python_run.h"
#include "interop/values.h"
#include "pams/agents/agent.h"
#include "pams/agents/arbitrage_agent.h"
#include "pams/agents/market_maker_agent.h"
#include "pams/errors.h"
#include "pams/events/event.h"
#include "pams/market/fundamentals.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/market/order_book.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

// Makes cls constructible with PAMS's arguments: cls(...) calls
// module.factory(cls, ...), which builds the engine object Python owns, and
// __init__ accepts the same arguments (for subclasses calling
// super().__init__). Python subclasses of cls construct the same way.
// `signature` is PAMS's __init__ signature, which help(), the stubs and the
// API reference show (the function itself takes *args, **kwargs). The
// simulator and logger are typing.Any there: the stub of _core has no
// pams_cpp.Simulator to name (its own Simulator and Logger are the engine's,
// which a type checker would then demand).
void Constructor(nb::handle cls, const char* module, const char* factory,
                 const char* signature) {
  Forget(cls, "__init__");
  Forget(cls, "__new__");
  nb::cpp_function([](nb::handle, nb::args, nb::kwargs) {}, nb::is_method(), nb::scope(cls),
                   nb::name("__init__"), nb::sig(signature),
                   "Builds the object by hand, with PAMS's constructor arguments (see the\n"
                   "class's docstring).");
  const std::string mod = module;
  const std::string fac = factory;
  nb::cpp_function(
      [mod, fac](nb::handle type, nb::args args, nb::kwargs kwargs) {
        return nb::module_::import_(mod.c_str()).attr(fac.c_str())(type, *args, **kwargs);
      },
      nb::scope(cls), nb::name("__new__"));
}

}  // namespace

namespace {

// ------------------------------------------------------------- markets

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

nb::list HistoryList(const Market& m, const std::string& name) {
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

// PAMS's checks of Market._add_order, _cancel_order and _execute_orders
// (ValueError and AssertionError), made before the engine's.
void CheckOwnOrder(const Market& m, nb::handle order, const char* what) {
  if (nb::cast<int>(order.attr("market_id")) != m.market_id()) {
    Raise(PyExc_ValueError, std::string(what) + " is not for this market (market " +
                                std::to_string(m.market_id()) + ", " + m.name() + ")");
  }
}

nb::object AddOrder(nb::handle self, nb::handle order) {
  Market& m = nb::cast<Market&>(self);
  SimulationContext& ctx = ContextOf(self, "market");
  PythonRun& run = ctx.run();
  if (!nb::isinstance(order, run.classes.order)) {
    Raise(PyExc_TypeError, std::string("_add_order takes an Order, got ") +
                               nb::str(nb::repr(order)).c_str());
  }
  CheckOwnOrder(m, order, "the order");
  if (!order.attr("placed_at").is_none() || !order.attr("order_id").is_none()) {
    Raise(PyExc_ValueError, "the order is already submitted");
  }
  Order engine = OrderFields(order);
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
  Market& m = nb::cast<Market&>(self);
  SimulationContext& ctx = ContextOf(self, "market");
  PythonRun& run = ctx.run();
  if (!nb::isinstance(cancel, run.classes.cancel)) {
    Raise(PyExc_TypeError, std::string("_cancel_order takes a Cancel, got ") +
                               nb::str(nb::repr(cancel)).c_str());
  }
  nb::object order = cancel.attr("order");
  if (nb::cast<int>(order.attr("market_id")) != m.market_id()) {
    Raise(PyExc_ValueError, "this cancel order is for a different market");
  }
  if (order.attr("order_id").is_none() || order.attr("placed_at").is_none()) {
    Raise(PyExc_ValueError, "the order is not submitted before");
  }
  Cancel engine;
  engine.order = OrderFields(order);
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
  std::vector<ExecutionLog> logs;
  ctx.Engine([&] { m.execution(&logs); });
  nb::list out;
  for (const ExecutionLog& log : logs) out.append(PythonLog(ctx.run(), log));
  return out;
}

nb::object ExecuteOrders(nb::handle self, double price, nb::handle volume, nb::handle buy,
                         nb::handle sell) {
  Market& m = nb::cast<Market&>(self);
  SimulationContext& ctx = ContextOf(self, "market");
  if (!m.is_running()) Raise(PyExc_AssertionError, "market is not running");
  if (nb::cast<int>(buy.attr("market_id")) != m.market_id()) {
    Raise(PyExc_ValueError, "buy order is not for this market");
  }
  if (nb::cast<int>(sell.attr("market_id")) != m.market_id()) {
    Raise(PyExc_ValueError, "sell order is not for this market");
  }
  if (buy.attr("placed_at").is_none()) Raise(PyExc_ValueError, "buy order is not submitted yet");
  if (sell.attr("placed_at").is_none()) {
    Raise(PyExc_ValueError, "sell order is not submitted yet");
  }
  const int64_t v = nb::cast<int64_t>(volume);
  if (v <= 0) Raise(PyExc_AssertionError, "the volume to execute must be positive");
  const Order b = OrderFields(buy);
  const Order s = OrderFields(sell);
  const ExecutionLog log = ctx.Engine([&] { return m.execute_orders(price, v, b, s); });
  return PythonLog(ctx.run(), log);
}

void BindMarketMethods(nb::handle market_cls, nb::handle index_cls) {
  Method(market_cls, "_add_order", &AddOrder, nb::arg("order"));
  Method(market_cls, "_cancel_order", &CancelOrder, nb::arg("cancel"));
  Method(market_cls, "_execution", &Execution);
  Method(market_cls, "_execute_orders", &ExecuteOrders, nb::arg("price"), nb::arg("volume"),
         nb::arg("buy_order"), nb::arg("sell_order"));
  Method(
      market_cls, "_update_time",
      [](nb::handle self, double next_fundamental_price) {
        ContextOf(self, "market").Engine(
            [&] { nb::cast<Market&>(self).update_time(next_fundamental_price); });
      },
      nb::arg("next_fundamental_price"));
  Method(
      market_cls, "_set_time",
      [](nb::handle self, int64_t time, double next_fundamental_price) {
        if (time < 0) Raise(PyExc_ValueError, "time must be >= 0");
        ContextOf(self, "market").Engine(
            [&] { nb::cast<Market&>(self).set_time(time, next_fundamental_price); });
      },
      nb::arg("time"), nb::arg("next_fundamental_price"));
  Method(market_cls, "_update_market_price", [](nb::handle self) {
    // The engine updates the mid and market prices with every change of a
    // book: nothing is left to do (PAMS's internal step).
    (void)nb::cast<Market&>(self);
  });
  Property(
      market_cls, "time", [](const Market& m) { return m.get_time(); },
      [](Market& m, int64_t time) {
        if (time < -1) Raise(PyExc_ValueError, "time must be >= -1");
        m.set_time_only(time);
      },
      "int: the current step (-1 before the first one), as get_time(). Setting\n"
      "it moves the market's clock only, as PAMS's attribute (a program driving\n"
      "the simulation by hand; runners move it themselves).");
  Property(
      market_cls, "_is_running", [](const Market& m) { return m.is_running(); },
      [](Market& m, bool running) { m.set_is_running(running); });
  for (const char* name : {"_market_prices", "_mid_prices", "_last_executed_prices",
                           "_fundamental_prices", "_executed_volumes", "_executed_total_prices",
                           "_n_buy_orders", "_n_sell_orders"}) {
    const std::string key = name;
    // The setter (a Python market's setup presets a history) stays the one
    // market.cc binds.
    nb::object old = nb::getattr(market_cls, name);
    nb::object property = nb::module_::import_("builtins").attr("property");
    Forget(market_cls, name);
    nb::setattr(market_cls, name,
                property(nb::cpp_function([key](const Market& m) { return HistoryList(m, key); },
                                          nb::is_method()),
                         old.attr("fset")));
  }
  Method(
      index_cls, "_add_market",
      [](IndexMarket& index, const Market& market) {
        for (const Market* c : index.get_components()) {
          if (c == &market) Raise(PyExc_ValueError, "market is already registered as components");
        }
        if (!market.outstanding_shares()) {
          Raise(PyExc_AssertionError,
                "outstandingShares is required in component market setting");
        }
        index.add_component(market);
      },
      nb::arg("market"));
}

// ------------------------------------------------------------- sessions

void BindSessionMethods() {
  nb::handle cls = nb::type<Session>();
  Property(
      cls, "iteration_steps", [](const Session& s) { return s.iteration_steps(); },
      [](Session& s, int64_t v) { s.set_iteration_steps(v); },
      "int: the number of steps of the session (iterationSteps).");
  Property(
      cls, "max_normal_orders", [](const Session& s) { return s.max_normal_orders(); },
      [](Session& s, int64_t v) { s.set_max_normal_orders(v); },
      "int: the most orders the normal agents place per step\n(maxNormalOrders; PAMS's default 1).");
  Property(
      cls, "max_high_frequency_orders",
      [](const Session& s) { return s.max_high_frequency_orders(); },
      [](Session& s, int64_t v) { s.set_max_high_frequency_orders(v); },
      "int: the most orders the high-frequency agents place per step\n(maxHighFrequencyOrders; default 1).");
  Property(
      cls, "with_order_placement", [](const Session& s) { return s.with_order_placement(); },
      [](Session& s, bool v) { s.set_with_order_placement(v); },
      "bool: whether agents place orders in the session\n(withOrderPlacement).");
  Property(
      cls, "with_order_execution", [](const Session& s) { return s.with_order_execution(); },
      [](Session& s, bool v) { s.set_with_order_execution(v); },
      "bool: whether orders execute in the session\n(withOrderExecution; markets are not running otherwise).");
  Property(
      cls, "with_print", [](const Session& s) { return s.with_print(); },
      [](Session& s, bool v) { s.set_with_print(v); },
      "bool: whether the session prints each step's market prices\n(withPrint).");
  Property(
      cls, "high_frequency_submission_rate",
      [](const Session& s) { return s.high_frequency_submission_rate(); },
      [](Session& s, double v) { s.set_high_frequency_submission_rate(v); },
      "float: the chance, per normal order, that the high-frequency\nagents are asked for orders (highFrequencySubmitRate; default 1.0).");
}

}  // namespace


void BindAgentParameters() {
  nb::handle cls = nb::type<Agent>();
  // ArbitrageAgent's parameters, as PAMS's attributes.
  ReadOnlyProperty(cls, "arbitrage_parameters", [](const Agent& a) {
    const auto* arbitrage = dynamic_cast<const ArbitrageAgent*>(&a);
    if (arbitrage == nullptr) throw nb::attribute_error("not an ArbitrageAgent");
    return nb::make_tuple(arbitrage->order_volume(), arbitrage->order_threshold_price(),
                          arbitrage->order_time_length());
  });
  // MarketMakerAgent's, likewise (target market id: -1 before setup).
  ReadOnlyProperty(cls, "market_maker_parameters", [](const Agent& a) {
    const auto* maker = dynamic_cast<const MarketMakerAgent*>(&a);
    if (maker == nullptr) throw nb::attribute_error("not a MarketMakerAgent");
    return nb::make_tuple(maker->target_market_id(), maker->net_interest_spread(),
                          maker->order_time_length());
  });
}

void BindHandBuiltMarkets(nb::module_& m) {
  // PAMS's exceptions where the engine meets the cases PAMS asserts
  // against or declines (a run's too, as PAMS raises them there).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const AssertionFailure& e) {
      PyErr_SetString(PyExc_AssertionError, e.what());
    } catch (const UnsupportedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    }
  });
  BindAgentParameters();
  Property(
      nb::type<Market>(), "tick_size",
      [](const Market& mk) -> nb::object {
        if (mk.tick_size_is_int()) return nb::int_(static_cast<int64_t>(mk.tick_size()));
        return nb::float_(mk.tick_size());
      },
      [](Market& mk, nb::handle value) {
        const bool is_int = PyLong_Check(value.ptr()) && !PyBool_Check(value.ptr());
        const double v = nb::cast<double>(value);
        if (!(v > 0.0) || !std::isfinite(v)) {
          Raise(PyExc_ValueError, "tick_size must be a positive number");
        }
        mk.set_tick_size(v, is_int);
      },
      "float | int: the price grid's step (the config's tickSize); prices are\n"
      "ints in a market whose tick size is an int. Settable (> 0), as PAMS's\n"
      "attribute, for markets built by hand.");
  Property(
      nb::type<Market>(), "outstanding_shares",
      [](const Market& mk) { return mk.outstanding_shares(); },
      [](Market& mk, std::optional<int64_t> shares) { mk.set_outstanding_shares(shares); },
      "int | None: the number of shares (the config's outstandingShares; None:\n"
      "not set). An IndexMarket weighs its components by it.");
  constexpr const char* kMarketInit =
      "def __init__(self, market_id: int, prng: random.Random, "
      "simulator: typing.Any, name: str, "
      "logger: typing.Any = None) -> None";
  Constructor(nb::type<Market>(), "pams_cpp.market", "_new", kMarketInit);
  Constructor(nb::type<IndexMarket>(), "pams_cpp.market", "_new", kMarketInit);
  Constructor(nb::type<Session>(), "pams_cpp.session", "_new",
              "def __init__(self, session_id: int, prng: random.Random, "
              "session_start_time: int, simulator: typing.Any, "
              "name: str, logger: typing.Any = None) -> None");
  Constructor(nb::type<OrderBook>(), "pams_cpp.order_book", "_new",
              "def __init__(self, is_buy: bool) -> None");
  Constructor(nb::type<Fundamentals>(), "pams_cpp.fundamentals", "_new",
              "def __init__(self, prng: random.Random) -> None");
  BindMarketMethods(nb::type<Market>(), nb::type<IndexMarket>());
  BindHandBuiltOrderBooks(m);
  BindHandBuiltFundamentals(m);
  BindSessionMethods();
}

}  // namespace pams::python
