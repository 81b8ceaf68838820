// SimulationContext (hand_built.h) and the methods of PAMS's objects that
// programs building a simulation by hand call.

#include "hand_built.h"

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

#include "agents.h"
#include "bindings.h"
#include "events.h"
#include "markets.h"
#include "pams/agents/agent.h"
#include "pams/agents/arbitrage_agent.h"
#include "pams/errors.h"
#include "pams/events/event.h"
#include "pams/market/fundamentals.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/market/order_book.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"
#include "python_run.h"

namespace pams::python {

// ------------------------------------------------------ SimulationContext

HandBuiltSimulation::~HandBuiltSimulation() {
  // Python objects (the loggers, the run's) go first, while the engine
  // objects they refer to still exist.
  market_loggers.clear();
  own_run.reset();
  own_simulator.reset();
}

namespace {

// Python's warnings.warn, as PAMS's code warns (a UserWarning).
void WarnInPython(std::string_view message) {
  nb::gil_scoped_acquire gil;
  nb::module_::import_("warnings")
      .attr("warn")(nb::str(message.data(), message.size()), nb::handle(PyExc_UserWarning), 2);
}

}  // namespace

SimulationContext::SimulationContext(const Random::State& prng)
    : shared_(std::make_shared<HandBuiltSimulation>()) {
  Random r;
  r.setstate(prng);
  shared_->own_simulator = std::make_unique<Simulator>(std::move(r), nullptr);
  shared_->own_run = std::make_unique<PythonRun>();
  shared_->simulator = shared_->own_simulator.get();
  shared_->run = shared_->own_run.get();
  shared_->run->set_simulator(shared_->simulator);
  // Markets built for this simulation before they are added are found too.
  HandBuiltSimulation* s = shared_.get();
  shared_->run->market_lookup = [s](int id) -> const Market* {
    if (const Market* m = s->simulator->find_market(id)) return m;
    auto it = s->markets_made.find(id);
    return it == s->markets_made.end() || it->second.empty() ? nullptr : it->second.back();
  };
  shared_->simulator->set_warning_handler(&WarnInPython);
}

SimulationContext::SimulationContext(Simulator* simulator, PythonRun* run, nb::handle runner)
    : shared_(std::make_shared<HandBuiltSimulation>()) {
  shared_->simulator = simulator;
  shared_->run = run;
  shared_->runner = nb::borrow(runner);
}

Logger* SimulationContext::MarketLoggerFor(nb::handle logger) {
  for (const auto& l : shared_->market_loggers) {
    if (l.logger.is(logger)) return l.fan_out.get();
  }
  HandBuiltSimulation::MarketLogger entry;
  entry.logger = nb::borrow(logger);
  entry.fan_out = std::make_unique<Loggers>();
  // The mirror first: PAMS's market changes the Order objects before any
  // logger sees the log.
  entry.fan_out->add(&run().mirror);
  if (!logger.is_none()) {
    nb::object engine = logger.attr("_engine_logger")();
    if (!engine.is_none()) {
      entry.fan_out->add(nb::cast<Logger*>(engine));
    } else {
      // PAMS's market hands its logs to logger.write (read_and_write).
      entry.python = std::make_unique<PythonLogger>(nb::borrow(logger), PythonLogKinds{}, &run());
      entry.fan_out->add(entry.python.get());
    }
  }
  shared_->market_loggers.push_back(std::move(entry));
  return shared_->market_loggers.back().fan_out.get();
}

void SimulationContext::NoteMarket(Market* market) {
  HandBuiltSimulation* s = shared_.get();
  const int id = market->market_id();
  s->markets_made[id].push_back(market);
  if (auto* part = dynamic_cast<PythonPart*>(market)) {
    part->KeepWhileAlive(shared_, [s, id, market] {
      auto& list = s->markets_made[id];
      list.erase(std::remove(list.begin(), list.end(), market), list.end());
    });
  }
}

void SimulationContext::RaisePending() {
  if (run().pending.has_error()) run().pending.Raise();
}

int SimulationContext::Traverse(visitproc visit, void* arg) const {
  if (!shared_) return 0;
  Py_VISIT(shared_->runner.ptr());
  for (const auto& l : shared_->market_loggers) Py_VISIT(l.logger.ptr());
  if (shared_->own_run) {
    int result = 0;
    shared_->own_run->Traverse([&](PyObject* o) {
      if (result == 0 && o != nullptr) result = visit(o, arg);
    });
    return result;
  }
  return 0;
}

void SimulationContext::Clear() {
  if (!shared_) return;
  shared_->runner = nb::object();
  for (auto& l : shared_->market_loggers) {
    if (l.python) l.python->Clear();
  }
  if (shared_->own_run) shared_->own_run->Clear();
}

SimulationContext& ContextOf(nb::handle object, const char* what) {
  nb::object context = nb::getattr(object, "_context", nb::none());
  if (context.is_none()) {
    // A runner's object: its owner is the runner's simulator, or the
    // runner (whose simulator holds the context).
    nb::object owner = nb::getattr(object, "_owner", nb::none());
    if (!owner.is_none()) context = nb::getattr(owner, "_context", nb::none());
    if (context.is_none() && !owner.is_none()) {
      nb::object simulator = nb::getattr(owner, "simulator", nb::none());
      if (!simulator.is_none()) context = nb::getattr(simulator, "_context", nb::none());
    }
  }
  if (context.is_none() || !nb::isinstance<SimulationContext>(context)) {
    throw nb::type_error((std::string("this ") + what +
                          " belongs to no simulation pams_cpp knows (build it with a "
                          "pams_cpp Simulator, or take it from a runner's simulator)")
                             .c_str());
  }
  return nb::cast<SimulationContext&>(context);
}

namespace {

int ContextTraverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  // The instance dict (dynamic attributes) holds the Python simulator.
  PyObject** dict = _PyObject_GetDictPtr(self);
  if (dict != nullptr) Py_VISIT(*dict);
  return nb::inst_ptr<SimulationContext>(self)->Traverse(visit, arg);
}

int ContextClear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<SimulationContext>(self)->Clear();
  PyObject** dict = _PyObject_GetDictPtr(self);
  if (dict != nullptr) Py_CLEAR(*dict);
  return 0;
}

PyType_Slot context_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(&ContextTraverse)},
                               {Py_tp_clear, reinterpret_cast<void*>(&ContextClear)},
                               {0, nullptr}};

// ---------------------------------------------------------------- helpers

[[noreturn]] void Raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

// Drops what an already bound class defines under `name` (a function
// defined there again would become an overload of it).
void Forget(nb::handle cls, const char* name) {
  nb::object dict = cls.attr("__dict__");
  if (PySequence_Contains(dict.ptr(), nb::str(name).ptr()) == 1) nb::delattr(cls, name);
}

// Adds a method to an already bound class (replacing one of that name).
template <typename F, typename... Extra>
void Method(nb::handle cls, const char* name, F&& f, const Extra&... extra) {
  Forget(cls, name);
  nb::cpp_function(std::forward<F>(f), nb::is_method(), nb::name(name), nb::scope(cls),
                   extra...);
}

// Adds a property to an already bound class.
template <typename Get, typename Set>
void Property(nb::handle cls, const char* name, Get&& get, Set&& set) {
  Forget(cls, name);
  nb::object property = nb::module_::import_("builtins").attr("property");
  nb::setattr(cls, name,
              property(nb::cpp_function(std::forward<Get>(get), nb::is_method()),
                       nb::cpp_function(std::forward<Set>(set), nb::is_method())));
}
template <typename Get>
void ReadOnlyProperty(nb::handle cls, const char* name, Get&& get) {
  Forget(cls, name);
  nb::object property = nb::module_::import_("builtins").attr("property");
  nb::setattr(cls, name, property(nb::cpp_function(std::forward<Get>(get), nb::is_method())));
}

// Makes cls constructible with PAMS's arguments: cls(...) calls
// module.factory(cls, ...), which builds the engine object Python owns, and
// __init__ accepts the same arguments (for subclasses calling
// super().__init__). Python subclasses of cls construct the same way.
void Constructor(nb::handle cls, const char* module, const char* factory) {
  Forget(cls, "__init__");
  Forget(cls, "__new__");
  nb::cpp_function([](nb::handle, nb::args, nb::kwargs) {}, nb::is_method(), nb::scope(cls),
                   nb::name("__init__"));
  const std::string mod = module;
  const std::string fac = factory;
  nb::cpp_function(
      [mod, fac](nb::handle type, nb::args args, nb::kwargs kwargs) {
        return nb::module_::import_(mod.c_str()).attr(fac.c_str())(type, *args, **kwargs);
      },
      nb::scope(cls), nb::name("__new__"));
}

// The fields of a Python Order (PAMS's attribute names), unchecked.
Order OrderFields(nb::handle o) {
  Order order;
  order.agent_id = nb::cast<int>(o.attr("agent_id"));
  order.market_id = nb::cast<int>(o.attr("market_id"));
  order.is_buy = nb::cast<bool>(o.attr("is_buy"));
  order.kind = nb::cast<int>(o.attr("kind").attr("kind_id")) == 1 ? OrderKind::kLimit
                                                                   : OrderKind::kMarket;
  order.volume = nb::cast<int64_t>(o.attr("volume"));
  nb::object price = o.attr("price");
  if (!price.is_none()) order.price = nb::cast<double>(price);
  nb::object ttl = o.attr("ttl");
  if (!ttl.is_none()) order.ttl = nb::cast<int64_t>(ttl);
  nb::object order_id = o.attr("order_id");
  if (!order_id.is_none()) order.order_id = nb::cast<int64_t>(order_id);
  nb::object placed_at = o.attr("placed_at");
  if (!placed_at.is_none()) order.placed_at = nb::cast<int64_t>(placed_at);
  return order;
}

// What an event's hook changed in an engine order, into the Python order.
void WriteBack(const PythonRun& run, const Order& order, nb::handle obj) {
  nb::object changed = ToPythonAction(run, Action(order));
  for (const char* field : {"is_buy", "kind", "volume", "price", "ttl"}) {
    nb::object now = changed.attr(field);
    nb::object before = obj.attr(field);
    // Unchanged values keep their Python objects (an int price stays one).
    if (!now.equal(before)) nb::setattr(obj, field, now);
  }
}

std::optional<double> OptionalDouble(nb::handle v) {
  if (v.is_none()) return std::nullopt;
  return nb::cast<double>(v);
}
std::optional<int64_t> OptionalInt(nb::handle v) {
  if (v.is_none()) return std::nullopt;
  return nb::cast<int64_t>(v);
}
OrderKind KindOf(nb::handle kind) {
  return nb::cast<int>(kind.attr("kind_id")) == 1 ? OrderKind::kLimit : OrderKind::kMarket;
}

// PAMS's log objects as the engine's.
OrderLog ToOrderLog(nb::handle l) {
  return OrderLog{nb::cast<int64_t>(l.attr("order_id")), nb::cast<int>(l.attr("market_id")),
                  nb::cast<int64_t>(l.attr("time")),     nb::cast<int>(l.attr("agent_id")),
                  nb::cast<bool>(l.attr("is_buy")),      KindOf(l.attr("kind")),
                  nb::cast<int64_t>(l.attr("volume")),   OptionalDouble(l.attr("price")),
                  OptionalInt(l.attr("ttl"))};
}
CancelLog ToCancelLog(nb::handle l) {
  return CancelLog{nb::cast<int64_t>(l.attr("order_id")), nb::cast<int>(l.attr("market_id")),
                   nb::cast<int64_t>(l.attr("cancel_time")),
                   nb::cast<int64_t>(l.attr("order_time")), nb::cast<int>(l.attr("agent_id")),
                   nb::cast<bool>(l.attr("is_buy")), KindOf(l.attr("kind")),
                   nb::cast<int64_t>(l.attr("volume")), OptionalDouble(l.attr("price")),
                   OptionalInt(l.attr("ttl"))};
}
ExecutionLog ToExecutionLog(nb::handle l) {
  return ExecutionLog{nb::cast<int>(l.attr("market_id")),
                      nb::cast<int64_t>(l.attr("time")),
                      nb::cast<int>(l.attr("buy_agent_id")),
                      nb::cast<int>(l.attr("sell_agent_id")),
                      nb::cast<int64_t>(l.attr("buy_order_id")),
                      nb::cast<int64_t>(l.attr("sell_order_id")),
                      nb::cast<double>(l.attr("price")),
                      nb::cast<int64_t>(l.attr("volume"))};
}

// The engine object of a PAMS object built by hand or by a runner (its
// _engine), or the object itself when it is one.
template <typename T>
T& EngineOf(nb::handle object, const char* what) {
  if (nb::isinstance<T>(object)) return nb::cast<T&>(object);
  nb::object engine = nb::getattr(object, "_engine", nb::none());
  if (!engine.is_none() && nb::isinstance<T>(engine)) return nb::cast<T&>(engine);
  Raise(PyExc_TypeError, std::string("expected ") + what + ", got " +
                             nb::str(nb::repr(object)).c_str());
}

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
      });
  Property(
      market_cls, "_is_running", [](const Market& m) { return m.is_running(); },
      [](Market& m, bool running) { m.set_is_running(running); });
  for (const char* name : {"_market_prices", "_mid_prices", "_last_executed_prices",
                           "_fundamental_prices", "_executed_volumes", "_executed_total_prices",
                           "_n_buy_orders", "_n_sell_orders"}) {
    const std::string key = name;
    // The setter (a Python market's setup presets a history) stays the one
    // markets.cc binds.
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

// --------------------------------------------------------- order books

// A book built by hand (PAMS's OrderBook(is_buy=...)) holds engine copies
// of Python orders under keys of its own (an order needs no id there), the
// Python objects by key in _orders, and the keys by id(order) in _keys.
bool IsHandBuiltBook(nb::handle book) { return nb::hasattr(book, "_orders"); }

void RequireHandBuiltBook(nb::handle book, const char* method) {
  if (IsHandBuiltBook(book)) return;
  nb::object owner = nb::getattr(book, "_owner", nb::none());
  std::string market = owner.is_none() ? std::string("a market")
                                       : "market " + nb::cast<std::string>(owner.attr("name"));
  Raise(PyExc_RuntimeError,
        std::string("OrderBook.") + method + ": this book belongs to " + market +
            ", whose orders change through the market (market._add_order, "
            "market._cancel_order, market._execution); build an OrderBook(is_buy=...) "
            "to change one by hand");
}

nb::object KeyOf(nb::handle book, nb::handle order) {
  nb::dict keys = nb::cast<nb::dict>(book.attr("_keys"));
  nb::object id = nb::module_::import_("builtins").attr("id")(order);
  return keys.contains(id) ? nb::object(keys[id]) : nb::none();
}

void ForgetKey(nb::handle book, nb::handle order, nb::handle key) {
  nb::cast<nb::dict>(book.attr("_orders")).attr("pop")(key, nb::none());
  nb::object id = nb::module_::import_("builtins").attr("id")(order);
  nb::cast<nb::dict>(book.attr("_keys")).attr("pop")(id, nb::none());
}

// The engine's copy of a Python order of a book built by hand.

void BindOrderBookMethods(nb::module_& m) {
  nb::handle cls = nb::type<OrderBook>();
  m.def("_new_order_book", [](nb::handle type, bool is_buy) {
    nb::object self = nb::inst_take_ownership(type, new OrderBook(is_buy));
    self.attr("_orders") = nb::dict();
    self.attr("_keys") = nb::dict();
    self.attr("_next_key") = 0;
    return self;
  });
  Method(
      cls, "add",
      [](nb::handle self, nb::handle order) {
        RequireHandBuiltBook(self, "add");
        OrderBook& book = nb::cast<OrderBook&>(self);
        if (nb::cast<bool>(order.attr("is_buy")) != book.is_buy()) {
          Raise(PyExc_ValueError, "buy/sell is incorrect");
        }
        if (!KeyOf(self, order).is_none()) Raise(PyExc_ValueError, "the order is in the book");
        Order engine = OrderFields(order);
        if (engine.kind == OrderKind::kLimit && !engine.price) {
          Raise(PyExc_ValueError, "a limit order needs a price");
        }
        const int64_t key = nb::cast<int64_t>(self.attr("_next_key"));
        self.attr("_next_key") = key + 1;
        engine.order_id = key;
        book.add(&engine);
        order.attr("placed_at") = engine.placed_at;
        nb::cast<nb::dict>(self.attr("_orders"))[nb::int_(key)] = order;
        nb::cast<nb::dict>(self.attr("_keys"))[nb::module_::import_("builtins").attr("id")(
            order)] = nb::int_(key);
      },
      nb::arg("order"));
  Method(
      cls, "_remove",
      [](nb::handle self, nb::handle order) {
        RequireHandBuiltBook(self, "_remove");
        OrderBook& book = nb::cast<OrderBook&>(self);
        nb::object key = KeyOf(self, order);
        if (key.is_none()) Raise(PyExc_ValueError, "the order is not in the book");
        if (order.attr("placed_at").is_none()) {
          Raise(PyExc_AssertionError, "the order is not yet placed");
        }
        Order probe = OrderFields(order);
        probe.order_id = nb::cast<int64_t>(key);
        book.remove(probe);
        ForgetKey(self, order, key);
      },
      nb::arg("order"));
  Method(
      cls, "cancel",
      [](nb::handle self, nb::handle cancel) {
        RequireHandBuiltBook(self, "cancel");
        OrderBook& book = nb::cast<OrderBook&>(self);
        nb::object order = cancel.attr("order");
        order.attr("is_canceled") = true;
        cancel.attr("placed_at") = book.time();
        nb::object key = KeyOf(self, order);
        if (key.is_none()) return;  // executed before the cancel, as in PAMS
        Order probe = OrderFields(order);
        probe.order_id = nb::cast<int64_t>(key);
        book.remove(probe);
        ForgetKey(self, order, key);
      },
      nb::arg("cancel"));
  Method(
      cls, "change_order_volume",
      [](nb::handle self, nb::handle order, int64_t delta) {
        RequireHandBuiltBook(self, "change_order_volume");
        OrderBook& book = nb::cast<OrderBook&>(self);
        const int64_t volume = nb::cast<int64_t>(order.attr("volume")) + delta;
        order.attr("volume") = volume;
        nb::object key = KeyOf(self, order);
        if (key.is_none()) Raise(PyExc_ValueError, "the order is not in the book");
        if (volume < 0) Raise(PyExc_AssertionError, "an order's volume cannot be negative");
        Order probe = OrderFields(order);
        probe.order_id = nb::cast<int64_t>(key);
        book.change_order_volume(probe, delta);
        if (volume == 0) ForgetKey(self, order, key);
      },
      nb::arg("order"), nb::arg("delta"));
  Method(cls, "get_best_order", [](nb::handle self) -> nb::object {
    const OrderBook& book = nb::cast<const OrderBook&>(self);
    const Order* best = book.best_order();
    if (best == nullptr) return nb::none();
    if (IsHandBuiltBook(self)) {
      return nb::cast<nb::dict>(self.attr("_orders"))[nb::int_(best->order_id)];
    }
    // A market's book: the Python order a program or agent placed, else a
    // copy of the engine's.
    nb::object owner = self.attr("_owner");
    PythonRun& run = ContextOf(owner, "market").run();
    nb::object found = run.mirror.Find(best->market_id, best->order_id);
    if (!found.is_none()) return found;
    return ToPythonAction(run, Action(*best));
  });
  Method(
      cls, "_set_time",
      [](nb::handle self, int64_t time) {
        OrderBook& book = nb::cast<OrderBook&>(self);
        RequireHandBuiltBook(self, "_set_time");
        std::vector<Order> expired;
        book.set_time(time, &expired);
        nb::object log_class = nb::module_::import_("pams_cpp.logs.base").attr("ExpirationLog");
        nb::object limit = nb::module_::import_("pams_cpp.order").attr("LIMIT_ORDER");
        nb::object market = nb::module_::import_("pams_cpp.order").attr("MARKET_ORDER");
        nb::dict orders = nb::cast<nb::dict>(self.attr("_orders"));
        nb::list logs;
        for (const Order& o : expired) {
          nb::object obj = orders[nb::int_(o.order_id)];
          ForgetKey(self, obj, nb::int_(o.order_id));
          logs.append(log_class(obj.attr("order_id"), o.market_id, time, o.placed_at, o.agent_id,
                                o.is_buy, o.kind == OrderKind::kLimit ? limit : market, o.volume,
                                obj.attr("price"), obj.attr("ttl")));
        }
        return logs;
      },
      nb::arg("time"));
  Method(cls, "_update_time", [](nb::handle self) {
    const OrderBook& book = nb::cast<const OrderBook&>(self);
    self.attr("_set_time")(book.time() + 1);
  });
  ReadOnlyProperty(cls, "time", [](const OrderBook& book) { return book.time(); });
  // A market's book gives PAMS's price types (an int where the tick size
  // is one); a book built by hand floats.
  auto market_of = [](nb::handle book) -> const Market* {
    nb::object owner = nb::getattr(book, "_owner", nb::none());
    return owner.is_none() ? nullptr : &nb::cast<const Market&>(owner);
  };
  Method(cls, "get_best_price", [market_of](nb::handle self) -> nb::object {
    const auto p = nb::cast<const OrderBook&>(self).best_price();
    return p ? PriceObject(market_of(self), *p) : nb::none();
  });
  Method(cls, "get_price_volume", [market_of](nb::handle self) {
    nb::dict out;
    const Market* market = market_of(self);
    for (const auto& [price, volume] : nb::cast<const OrderBook&>(self).get_price_volume()) {
      out[price ? PriceObject(market, *price) : nb::none()] = nb::int_(volume);
    }
    return out;
  });
}

// --------------------------------------------------------- fundamentals

void BindFundamentalsMethods(nb::module_& m) {
  nb::handle cls = nb::type<Fundamentals>();
  m.def("_new_fundamentals",
        [](nb::handle type, const std::vector<uint32_t>& mt, uint32_t index,
           std::optional<double> gauss) {
          Random::State state;
          if (mt.size() != Random::kStateWords) throw nb::value_error("bad random state");
          std::copy(mt.begin(), mt.end(), state.mt.begin());
          state.index = index;
          state.has_gauss_next = gauss.has_value();
          state.gauss_next = gauss.value_or(0.0);
          Random r;
          r.setstate(state);
          return nb::inst_take_ownership(type, new Fundamentals(std::move(r)));
        });
  auto known = [](const Fundamentals& f, int market_id) {
    if (!f.has_market(market_id)) {
      PyErr_SetObject(PyExc_KeyError, nb::int_(market_id).ptr());
      throw nb::python_error();
    }
  };
  // The generation's failures as PAMS's: a market correlated with itself
  // is an AssertionError, a correlation matrix that is not positive
  // definite numpy's LinAlgError.
  auto generating = [](Fundamentals& f, auto&& fn) {
    for (const auto& [a, b, c] : f.correlations()) {
      (void)c;
      if (a == b && f.has_market(a) && f.volatility(a) != 0.0) {
        Raise(PyExc_AssertionError,
              "market " + std::to_string(a) + " is correlated with itself");
      }
    }
    try {
      return fn();
    } catch (const SimulationError& e) {
      nb::object error = nb::module_::import_("numpy.linalg").attr("LinAlgError");
      PyErr_SetString(error.ptr(), e.what());
      throw nb::python_error();
    }
  };
  Method(
      cls, "add_market",
      [](Fundamentals& f, int market_id, double initial, double drift, double volatility,
         int64_t start_at) {
        if (f.has_market(market_id)) {
          Raise(PyExc_ValueError, "market " + std::to_string(market_id) + " is already registered");
        }
        if (!(volatility >= 0.0)) Raise(PyExc_ValueError, "volatility must be non-negative");
        if (!(initial > 0.0)) Raise(PyExc_ValueError, "initial value must be positive");
        if (market_id < 0) Raise(PyExc_ValueError, "market_id must be >= 0");
        if (start_at < 0) Raise(PyExc_ValueError, "start_at must be >= 0");
        f.add_market(market_id, initial, drift, volatility, start_at);
      },
      nb::arg("market_id"), nb::arg("initial"), nb::arg("drift"), nb::arg("volatility"),
      nb::arg("start_at") = 0);
  Method(
      cls, "remove_market",
      [known](Fundamentals& f, int market_id) {
        if (!f.has_market(market_id)) Raise(PyExc_ValueError, "market is not registered");
        known(f, market_id);
        f.remove_market(market_id);
      },
      nb::arg("market_id"));
  Method(
      cls, "change_volatility",
      [known](Fundamentals& f, int market_id, double volatility, int64_t time) {
        if (!(volatility >= 0.0)) Raise(PyExc_ValueError, "volatility must be non-negative");
        known(f, market_id);
        f.change_volatility(market_id, volatility, time);
      },
      nb::arg("market_id"), nb::arg("volatility"), nb::arg("time") = 0);
  Method(
      cls, "change_drift",
      [known](Fundamentals& f, int market_id, double drift, int64_t time) {
        known(f, market_id);
        f.change_drift(market_id, drift, time);
      },
      nb::arg("market_id"), nb::arg("drift"), nb::arg("time") = 0);
  Method(
      cls, "set_correlation",
      [](Fundamentals& f, int market_id1, int market_id2, double corr, int64_t time) {
        if (!(-1.0 < corr && corr < 1.0)) Raise(PyExc_ValueError, "corr must be in (-1.0, 1.0)");
        if (market_id1 == market_id2) {
          Raise(PyExc_ValueError, "market_id1 and market_id2 must be different");
        }
        f.set_correlation(market_id1, market_id2, corr, time);
      },
      nb::arg("market_id1"), nb::arg("market_id2"), nb::arg("corr"), nb::arg("time") = 0);
  Method(
      cls, "remove_correlation",
      [](Fundamentals& f, int market_id1, int market_id2, int64_t time) {
        if (market_id1 == market_id2) {
          Raise(PyExc_ValueError, "market_id1 and market_id2 must be different");
        }
        bool found = false;
        for (const auto& [a, b, c] : f.correlations()) {
          (void)c;
          found = found || (a == market_id1 && b == market_id2) ||
                  (a == market_id2 && b == market_id1);
        }
        if (!found) {
          PyErr_SetObject(PyExc_KeyError,
                          nb::make_tuple(market_id1, market_id2).ptr());
          throw nb::python_error();
        }
        f.remove_correlation(market_id1, market_id2, time);
      },
      nb::arg("market_id1"), nb::arg("market_id2"), nb::arg("time") = 0);
  Method(
      cls, "get_fundamental_price",
      [known, generating](Fundamentals& f, int market_id, int64_t time) {
        known(f, market_id);
        return generating(f, [&] { return f.get_fundamental_price(market_id, time); });
      },
      nb::arg("market_id"), nb::arg("time"));
  Method(
      cls, "get_fundamental_prices",
      [known, generating](Fundamentals& f, int market_id, nb::handle times) {
        std::vector<int64_t> ts;
        for (nb::handle t : times) ts.push_back(nb::cast<int64_t>(t));
        nb::list out;
        if (ts.empty()) return out;
        known(f, market_id);
        const int64_t last = *std::max_element(ts.begin(), ts.end());
        generating(f, [&] { return f.get_fundamental_price(market_id, last); });
        const std::vector<double>& prices = f.prices(market_id);
        for (int64_t t : ts) {
          if (t < 0) t += static_cast<int64_t>(prices.size());
          if (t < 0 || static_cast<size_t>(t) >= prices.size()) {
            throw nb::index_error("list index out of range");
          }
          out.append(prices[static_cast<size_t>(t)]);
        }
        return out;
      },
      nb::arg("market_id"), nb::arg("times"));
  Method(cls, "_generate_next", [generating](Fundamentals& f) {
    generating(f, [&] {
      f.generate_next();
      return 0;
    });
  });
  auto by_market = [](const Fundamentals& f, auto value) {
    nb::dict out;
    for (int id : f.market_ids()) out[nb::int_(id)] = value(id);
    return out;
  };
  ReadOnlyProperty(cls, "market_ids",
                   [](const Fundamentals& f) { return nb::cast(f.market_ids()); });
  ReadOnlyProperty(cls, "drifts", [by_market](const Fundamentals& f) {
    return by_market(f, [&](int id) { return nb::float_(f.drift(id)); });
  });
  ReadOnlyProperty(cls, "volatilities", [by_market](const Fundamentals& f) {
    return by_market(f, [&](int id) { return nb::float_(f.volatility(id)); });
  });
  ReadOnlyProperty(cls, "initials", [by_market](const Fundamentals& f) {
    return by_market(f, [&](int id) { return nb::float_(f.initial(id)); });
  });
  ReadOnlyProperty(cls, "start_at", [by_market](const Fundamentals& f) {
    return by_market(f, [&](int id) { return nb::int_(f.start_at(id)); });
  });
  ReadOnlyProperty(cls, "prices", [by_market](const Fundamentals& f) {
    return by_market(f, [&](int id) { return nb::cast(f.prices(id)); });
  });
  Property(
      cls, "_generated_until", [](const Fundamentals& f) { return f.generated_until(); },
      [](Fundamentals& f, int64_t time) {
        if (time < 0 || time > f.generated_until()) {
          Raise(PyExc_ValueError, "_generated_until can move back only (to >= 0)");
        }
        f.set_generated_until(time);
      });
  ReadOnlyProperty(cls, "_generate_chunk_size",
                   [](const Fundamentals&) { return Fundamentals::chunk_size(); });
  // PAMS's correlation dict: {(id1, id2): corr}, in the order they were set.
  Method(cls, "_correlation_items", [](const Fundamentals& f) {
    nb::list out;
    for (const auto& [a, b, c] : f.correlations()) out.append(nb::make_tuple(a, b, c));
    return out;
  });
  Method(cls, "_set_correlation_entry", [](Fundamentals& f, int a, int b, double c) {
    f.set_correlation_entry(a, b, c);
  });
  Method(cls, "_erase_correlation_entry", [](Fundamentals& f, int a, int b) {
    if (!f.erase_correlation_entry(a, b)) {
      PyErr_SetObject(PyExc_KeyError, nb::make_tuple(a, b).ptr());
      throw nb::python_error();
    }
  });
  // numpy's generator of the fundamentals (PAMS's _np_prng): its uniform
  // draws, as numpy.random.Generator.random(size).
  Method(
      cls, "_np_random",
      [](nb::handle self, std::optional<int64_t> size) -> nb::object {
        Fundamentals& f = nb::cast<Fundamentals&>(self);
        if (!size) return nb::float_(f.np_prng().next_double());
        nb::list out;
        for (int64_t i = 0; i < *size; ++i) out.append(f.np_prng().next_double());
        return out;
      },
      nb::arg("size").none() = nb::none());
  Method(cls, "_engine_prng", [](nb::handle self) {
    return OwnedBy(&nb::cast<Fundamentals&>(self).prng(), self);
  });
}

// ------------------------------------------------------------- sessions

void BindSessionMethods() {
  nb::handle cls = nb::type<Session>();
  Property(
      cls, "iteration_steps", [](const Session& s) { return s.iteration_steps(); },
      [](Session& s, int64_t v) { s.set_iteration_steps(v); });
  Property(
      cls, "max_normal_orders", [](const Session& s) { return s.max_normal_orders(); },
      [](Session& s, int64_t v) { s.set_max_normal_orders(v); });
  Property(
      cls, "max_high_frequency_orders",
      [](const Session& s) { return s.max_high_frequency_orders(); },
      [](Session& s, int64_t v) { s.set_max_high_frequency_orders(v); });
  Property(
      cls, "with_order_placement", [](const Session& s) { return s.with_order_placement(); },
      [](Session& s, bool v) { s.set_with_order_placement(v); });
  Property(
      cls, "with_order_execution", [](const Session& s) { return s.with_order_execution(); },
      [](Session& s, bool v) { s.set_with_order_execution(v); });
  Property(
      cls, "with_print", [](const Session& s) { return s.with_print(); },
      [](Session& s, bool v) { s.set_with_print(v); });
  Property(
      cls, "high_frequency_submission_rate",
      [](const Session& s) { return s.high_frequency_submission_rate(); },
      [](Session& s, double v) { s.set_high_frequency_submission_rate(v); });
}

// ------------------------------------------------------------ simulator

Market& MarketArg(nb::handle market) { return EngineOf<Market>(market, "a Market"); }

void BindContext(nb::module_& m) {
  nb::class_<SimulationContext>(m, "SimulationContext", nb::dynamic_attr(),
                                nb::type_slots(context_slots))
      .def(
          "__init__",
          [](SimulationContext* self, const std::vector<uint32_t>& mt, uint32_t index,
             std::optional<double> gauss) {
            if (mt.size() != Random::kStateWords || index > Random::kStateWords) {
              throw nb::value_error("a random.Random state has 624 words and an index <= 624");
            }
            Random::State state;
            std::copy(mt.begin(), mt.end(), state.mt.begin());
            state.index = index;
            state.has_gauss_next = gauss.has_value();
            state.gauss_next = gauss.value_or(0.0);
            new (self) SimulationContext(state);
          },
          nb::arg("mt"), nb::arg("index"), nb::arg("gauss_next").none())
      .def_prop_ro("simulator",
                   [](nb::handle self) {
                     return OwnedBy(&nb::cast<SimulationContext&>(self).simulator(), self);
                   })
      .def_prop_ro("owns_simulation", &SimulationContext::owns_simulation)
      // The simulator's generator after the Fundamentals drew their seed,
      // as (words, index, gauss_next), for the random.Random it came from.
      .def("prng_state",
           [](SimulationContext& c) {
             const Random::State s = c.simulator().prng().getstate();
             return nb::make_tuple(std::vector<uint32_t>(s.mt.begin(), s.mt.end()), s.index,
                                   s.has_gauss_next ? nb::object(nb::float_(s.gauss_next))
                                                    : nb::none());
           })
      // What the engine hands Python code: the simulator's markets (a
      // list) and the Python Simulator.
      .def("set_python_objects",
           [](SimulationContext& c, nb::object markets, nb::object simulator) {
             c.run().markets = std::move(markets);
             c.run().simulator_object = std::move(simulator);
           },
           nb::arg("markets"), nb::arg("simulator"))
      .def(
          "new_market",
          [](nb::handle self, nb::handle cls, int market_id, const std::vector<uint32_t>& mt,
             uint32_t index, std::optional<double> gauss, const std::string& name,
             nb::handle logger) {
            SimulationContext& c = nb::cast<SimulationContext&>(self);
            auto info = std::make_shared<PythonMarketClass>();
            info->name = nb::cast<std::string>(cls.attr("__name__"));
            const bool index_market =
                PyObject_IsSubclass(cls.ptr(), nb::type<IndexMarket>().ptr()) == 1;
            info->base = index_market ? "IndexMarket" : "Market";
            info->cls = nb::borrow(cls);
            nb::handle builtin = index_market ? nb::type<IndexMarket>() : nb::type<Market>();
            info->setup = !cls.attr("setup").is(builtin.attr("setup"));
            Random::State state;
            std::copy(mt.begin(), mt.end(), state.mt.begin());
            state.index = index;
            state.has_gauss_next = gauss.has_value();
            state.gauss_next = gauss.value_or(0.0);
            MarketInit init{.market_id = market_id, .prng = Random()};
            init.prng.setstate(state);
            init.simulator = &c.simulator();
            init.name = name;
            init.logger = c.MarketLoggerFor(logger);
            init.class_name = info->name;
            nb::object market = NewHandBuiltMarket(std::move(init), info, &c.run());
            c.NoteMarket(nb::inst_ptr<Market>(market));
            market.attr("_context") = nb::borrow(self);
            return market;
          },
          nb::arg("cls"), nb::arg("market_id"), nb::arg("mt"), nb::arg("index"),
          nb::arg("gauss_next").none(), nb::arg("name"), nb::arg("logger").none())
      .def(
          "new_agent",
          [](nb::handle self, nb::handle agent, const PythonAgentClass& cls, int agent_id,
             const std::vector<uint32_t>& mt, uint32_t index, std::optional<double> gauss,
             const std::string& name) {
            SimulationContext& c = nb::cast<SimulationContext&>(self);
            AgentInit init{.agent_id = agent_id, .prng = Random()};
            Random::State state;
            std::copy(mt.begin(), mt.end(), state.mt.begin());
            state.index = index;
            state.has_gauss_next = gauss.has_value();
            state.gauss_next = gauss.value_or(0.0);
            init.prng.setstate(state);
            init.simulator = &c.simulator().view();
            init.name = name;
            init.class_name = cls.name;
            std::unique_ptr<Agent> engine = MakeHandBuiltAgent(
                std::move(init), std::make_shared<PythonAgentClass>(cls), &c.run(), agent);
            if (auto* part = dynamic_cast<PythonPart*>(engine.get())) {
              part->KeepWhileAlive(c.shared(), {});
            }
            nb::object out = nb::inst_take_ownership(nb::type<Agent>(), engine.release());
            out.attr("_context") = nb::borrow(self);
            return out;
          },
          nb::arg("agent"), nb::arg("cls"), nb::arg("agent_id"), nb::arg("mt"), nb::arg("index"),
          nb::arg("gauss_next").none(), nb::arg("name"))
      .def(
          "new_event",
          [](nb::handle self, nb::handle event, const PythonEventClass& cls, int event_id,
             const std::vector<uint32_t>& mt, uint32_t index, std::optional<double> gauss,
             Session& session, const std::string& name) {
            SimulationContext& c = nb::cast<SimulationContext&>(self);
            EventInit init{.event_id = event_id, .prng = Random()};
            Random::State state;
            std::copy(mt.begin(), mt.end(), state.mt.begin());
            state.index = index;
            state.has_gauss_next = gauss.has_value();
            state.gauss_next = gauss.value_or(0.0);
            init.prng.setstate(state);
            init.session = &session;
            init.simulator = &c.simulator();
            init.name = name;
            init.class_name = cls.name;
            std::unique_ptr<Event> engine = MakeHandBuiltEvent(
                std::move(init), std::make_shared<PythonEventClass>(cls), &c.run(), event);
            if (auto* part = dynamic_cast<PythonPart*>(engine.get())) {
              part->KeepWhileAlive(c.shared(), {});
            }
            nb::object out = nb::inst_take_ownership(nb::type<Event>(), engine.release());
            out.attr("_context") = nb::borrow(self);
            return out;
          },
          nb::arg("event"), nb::arg("cls"), nb::arg("event_id"), nb::arg("mt"), nb::arg("index"),
          nb::arg("gauss_next").none(), nb::arg("session"), nb::arg("name"))
      .def(
          "new_session",
          [](nb::handle self, nb::handle cls, int session_id, const std::vector<uint32_t>& mt,
             uint32_t index, std::optional<double> gauss, int64_t start,
             const std::string& name) {
            SimulationContext& c = nb::cast<SimulationContext&>(self);
            Random::State state;
            std::copy(mt.begin(), mt.end(), state.mt.begin());
            state.index = index;
            state.has_gauss_next = gauss.has_value();
            state.gauss_next = gauss.value_or(0.0);
            Random prng;
            prng.setstate(state);
            nb::object out = nb::inst_take_ownership(
                cls, new Session(session_id, std::move(prng), start, &c.simulator(), name));
            out.attr("_context") = nb::borrow(self);
            return out;
          },
          nb::arg("cls"), nb::arg("session_id"), nb::arg("mt"), nb::arg("index"),
          nb::arg("gauss_next").none(), nb::arg("session_start_time"), nb::arg("name"))
      // --- PAMS's Simulator._add_* (the Python side checks PAMS's rules
      // first and keeps the objects alive).
      .def(
          "add_market",
          [](SimulationContext& c, nb::handle market, const std::string& group) {
            c.simulator().add_market_borrowed(&MarketArg(market), group);
          },
          nb::arg("market"), nb::arg("group"))
      .def(
          "add_agent",
          [](SimulationContext& c, nb::handle agent, const std::string& group) {
            c.simulator().add_agent_borrowed(&EngineOf<Agent>(agent, "an Agent"), group);
          },
          nb::arg("agent"), nb::arg("group"))
      .def(
          "add_session",
          [](SimulationContext& c, Session& session) {
            c.simulator().add_session_borrowed(&session);
          },
          nb::arg("session"))
      .def(
          "add_event",
          [](SimulationContext& c, nb::handle event) {
            Event& e = EngineOf<Event>(event, "an event");
            for (const auto& known : c.simulator().events()) {
              if (known.get() == &e) return;
            }
            c.simulator().add_event_borrowed(&e);
          },
          nb::arg("event"))
      .def(
          "add_event_hook",
          [](SimulationContext& c, nb::handle hook) {
            Event& e = EngineOf<Event>(hook.attr("event"), "an event");
            c.simulator().add_event_hook(ToEngineHook(hook, &e));
          },
          nb::arg("hook"))
      .def("event_hook_count",
           [](const SimulationContext& c) { return c.simulator().event_hooks().size(); })
      // Engine hooks as (event, hook_type, is_before, time, specific_class
      // ("Market", "IndexMarket" or None), specific_instance market or None).
      .def(
          "event_hook",
          [](nb::handle self, size_t i) {
            SimulationContext& c = nb::cast<SimulationContext&>(self);
            const auto& hooks = c.simulator().event_hooks();
            if (i >= hooks.size()) throw nb::index_error();
            const EventHook& h = hooks[i];
            static const char* const kTypes[] = {"order", "cancel", "execution", "session",
                                                 "market"};
            nb::object time = h.time ? nb::cast(*h.time) : nb::none();
            nb::object cls = nb::none();
            if (h.specific_class == &IsMarketOfClass<IndexMarket>) {
              cls = nb::str("IndexMarket");
            } else if (h.specific_class != nullptr) {
              cls = nb::str("Market");
            }
            nb::object instance =
                h.specific_instance != nullptr ? c.run().MarketObject(*h.specific_instance)
                                               : nb::none();
            return nb::make_tuple(OwnedBy(h.event, self), kTypes[static_cast<int>(h.hook_type)],
                                  h.is_before, time, cls, instance);
          },
          nb::arg("index"))
      .def(
          "set_current_session",
          [](SimulationContext& c, nb::handle session) {
            c.simulator().set_current_session(session.is_none() ? nullptr
                                                                : &nb::cast<Session&>(session));
          },
          nb::arg("session").none())
      // --- PAMS's Simulator._update_times_on_markets & co.
      .def(
          "update_times_on_markets",
          [](SimulationContext& c, nb::handle markets) {
            Simulator& sim = c.simulator();
            bool all_in_step = markets.is(c.run().markets) &&
                               nb::len(markets) == sim.market_objects().size();
            for (const auto& m : sim.market_objects()) {
              all_in_step = all_in_step && m->get_time() == sim.time();
            }
            if (all_in_step) {
              // The simulator's own list (what a loop driven by hand
              // passes every step): every market, as the runner moves them.
              c.Engine([&] { c.simulator().update_times_on_markets(); });
              return;
            }
            std::vector<Market*> list;
            for (nb::handle market : markets) list.push_back(&MarketArg(market));
            c.Engine([&] { c.simulator().update_times_on_markets(list); });
          },
          nb::arg("markets"))
      .def(
          "update_time_on_market",
          [](SimulationContext& c, nb::handle market) {
            Market& m = MarketArg(market);
            c.Engine([&] { c.simulator().update_time_on_market(m); });
          },
          nb::arg("market"))
      .def(
          "update_agents_for_execution",
          [](SimulationContext& c, nb::handle logs) {
            std::vector<ExecutionLog> engine;
            for (nb::handle log : logs) engine.push_back(ToExecutionLog(log));
            for (const ExecutionLog& log : engine) {
              for (int id : {log.buy_agent_id, log.sell_agent_id}) {
                if (c.simulator().find_agent(id) == nullptr) {
                  PyErr_SetObject(PyExc_KeyError, nb::int_(id).ptr());
                  throw nb::python_error();
                }
              }
            }
            c.Engine([&] { c.simulator().update_agents_for_execution(engine); });
          },
          nb::arg("execution_logs"))
      // --- PAMS's Simulator._trigger_event_*.
      .def(
          "trigger_before_order",
          [](SimulationContext& c, nb::handle order) {
            Order engine = OrderFields(order);
            if (c.simulator().find_market(engine.market_id) == nullptr) {
              PyErr_SetObject(PyExc_KeyError, nb::int_(engine.market_id).ptr());
              throw nb::python_error();
            }
            c.Engine([&] { c.simulator().trigger_before_order(engine); });
            WriteBack(c.run(), engine, order);
          },
          nb::arg("order"))
      .def(
          "trigger_after_order",
          [](SimulationContext& c, nb::handle log) {
            const OrderLog engine = ToOrderLog(log);
            c.Engine([&] { c.simulator().trigger_after_order(engine); });
          },
          nb::arg("order_log"))
      .def(
          "trigger_before_cancel",
          [](SimulationContext& c, nb::handle cancel) {
            Cancel engine;
            engine.order = OrderFields(cancel.attr("order"));
            if (c.simulator().find_market(engine.order.market_id) == nullptr) {
              PyErr_SetObject(PyExc_KeyError, nb::int_(engine.order.market_id).ptr());
              throw nb::python_error();
            }
            c.Engine([&] { c.simulator().trigger_before_cancel(engine); });
          },
          nb::arg("cancel"))
      .def(
          "trigger_after_cancel",
          [](SimulationContext& c, nb::handle log) {
            const CancelLog engine = ToCancelLog(log);
            c.Engine([&] { c.simulator().trigger_after_cancel(engine); });
          },
          nb::arg("cancel_log"))
      .def(
          "trigger_after_execution",
          [](SimulationContext& c, nb::handle log) {
            const ExecutionLog engine = ToExecutionLog(log);
            c.Engine([&] { c.simulator().trigger_after_execution(engine); });
          },
          nb::arg("execution_log"))
      .def(
          "trigger_session",
          [](SimulationContext& c, Session& session, bool before) {
            c.Engine([&] {
              if (before) {
                c.simulator().trigger_before_session(session);
              } else {
                c.simulator().trigger_after_session(session);
              }
            });
          },
          nb::arg("session"), nb::arg("before"))
      .def(
          "trigger_step_for_market",
          [](SimulationContext& c, nb::handle market, bool before) {
            Market& m = MarketArg(market);
            c.Engine([&] {
              if (before) {
                c.simulator().trigger_before_step_for_market(m);
              } else {
                c.simulator().trigger_after_step_for_market(m);
              }
            });
          },
          nb::arg("market"), nb::arg("before"));
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
}

OrderLog EngineOrderLog(nb::handle log) { return ToOrderLog(log); }
CancelLog EngineCancelLog(nb::handle log) { return ToCancelLog(log); }
ExecutionLog EngineExecutionLog(nb::handle log) { return ToExecutionLog(log); }

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
      });
  Property(
      nb::type<Market>(), "outstanding_shares",
      [](const Market& mk) { return mk.outstanding_shares(); },
      [](Market& mk, std::optional<int64_t> shares) { mk.set_outstanding_shares(shares); });
  Constructor(nb::type<Market>(), "pams_cpp.market", "_new");
  Constructor(nb::type<IndexMarket>(), "pams_cpp.market", "_new");
  Constructor(nb::type<Session>(), "pams_cpp.session", "_new");
  Constructor(nb::type<OrderBook>(), "pams_cpp.order_book", "_new");
  Constructor(nb::type<Fundamentals>(), "pams_cpp.fundamentals", "_new");
  BindMarketMethods(nb::type<Market>(), nb::type<IndexMarket>());
  BindOrderBookMethods(m);
  BindFundamentalsMethods(m);
  BindSessionMethods();
}

// PAMS's log object `log` (pams_cpp.logs.base), handed to an engine logger
// as the engine's log: what a program driving a simulation by hand writes
// to the engine's loggers (MarketStepPrintLogger, the CSV loggers, ...).
void FeedLogger(Logger& logger, nb::handle log) {
  const std::string kind = nb::cast<std::string>(log.type().attr("__name__"));
  auto simulator = [&]() -> Simulator& {
    nb::handle sim = log.attr("simulator");
    nb::object core = nb::getattr(sim, "_core", nb::none());
    if (core.is_none()) Raise(PyExc_TypeError, "the log's simulator is no pams_cpp Simulator");
    return nb::cast<Simulator&>(core);
  };
  auto session = [&]() -> const Session& { return nb::cast<const Session&>(log.attr("session")); };
  if (kind == "MarketStepBeginLog") {
    logger.process_market_step_begin_log(
        MarketStepBeginLog{session(), MarketArg(log.attr("market")), simulator()});
  } else if (kind == "MarketStepEndLog") {
    logger.process_market_step_end_log(
        MarketStepEndLog{session(), MarketArg(log.attr("market")), simulator()});
  } else if (kind == "SessionBeginLog") {
    logger.process_session_begin_log(SessionBeginLog{session(), simulator()});
  } else if (kind == "SessionEndLog") {
    logger.process_session_end_log(SessionEndLog{session(), simulator()});
  } else if (kind == "SimulationBeginLog") {
    logger.process_simulation_begin_log(SimulationBeginLog{simulator()});
  } else if (kind == "SimulationEndLog") {
    logger.process_simulation_end_log(SimulationEndLog{simulator()});
  } else if (kind == "OrderLog") {
    logger.process_order_log(ToOrderLog(log));
  } else if (kind == "CancelLog") {
    logger.process_cancel_log(ToCancelLog(log));
  } else if (kind == "ExecutionLog") {
    logger.process_execution_log(ToExecutionLog(log));
  } else if (kind == "ExpirationLog") {
    logger.process_expiration_log(ExpirationLog{
        nb::cast<int64_t>(log.attr("order_id")), nb::cast<int>(log.attr("market_id")),
        nb::cast<int64_t>(log.attr("time")), nb::cast<int64_t>(log.attr("order_time")),
        nb::cast<int>(log.attr("agent_id")), nb::cast<bool>(log.attr("is_buy")),
        KindOf(log.attr("kind")), nb::cast<int64_t>(log.attr("volume")),
        OptionalDouble(log.attr("price")), OptionalInt(log.attr("ttl"))});
  } else {
    Raise(PyExc_NotImplementedError, "no engine log is a " + kind);
  }
}

void BindHandBuiltSimulation(nb::module_& m) {
  BindContext(m);
  m.def("_feed_logger", &FeedLogger, nb::arg("logger"), nb::arg("log"));
  m.def("_flush_logger", [](Logger& logger) { logger.flush(); }, nb::arg("logger"));
  nb::handle sim = nb::type<Simulator>();
  // PAMS's markets_group_name2market and agents_group_name2agent: the
  // group an object was added with ("" for none).
  Method(
      sim, "market_group_of",
      [](const Simulator& s, nb::handle market) { return s.market_group(MarketArg(market)); },
      nb::arg("market"));
  Method(
      sim, "agent_group_of",
      [](const Simulator& s, nb::handle agent) {
        return s.agent_group(EngineOf<Agent>(agent, "an Agent"));
      },
      nb::arg("agent"));
}

}  // namespace pams::python
