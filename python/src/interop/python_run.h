// PythonRun: what one run shares with the Python classes inside it (agents,
// events, loggers): the Python error that stopped the run, the Python
// objects the engine hands to Python code (the markets, the simulator),
// pams_cpp's classes it makes objects of, and the OrderMirror that keeps
// the Python Order objects agents submitted in step with the engine's
// orders.
//
// Threading: the engine calls everything here on the thread that runs the
// simulation, with or without the GIL; every method that touches Python
// takes the GIL itself.

#ifndef PAMS_PYTHON_SRC_INTEROP_PYTHON_RUN_H_
#define PAMS_PYTHON_SRC_INTEROP_PYTHON_RUN_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "interop/order_slots.h"
#include "interop/python.h"
#include "pams/config/json.h"
#include "pams/config/settings.h"
#include "pams/logs/logger.h"
#include "pams/market/order.h"
#include "pams/random/random.h"

namespace pams {
class Market;
class Session;
class Simulator;
}  // namespace pams

namespace pams::python {

// A Python error raised inside the engine (in a Python agent, a warning the
// filters made an error, a KeyboardInterrupt), kept to be raised again once
// the engine has stopped: an exception thrown through the engine would
// reach Python as a SimulationError instead.
class PendingError {
 public:
  // Keeps the error set in Python now. REQUIRES: the GIL is held and a
  // Python error is set.
  void Take() {
    if (!error_) error_ = std::make_unique<nb::python_error>();
  }
  // Keeps e (the first error wins). REQUIRES: the GIL is held.
  void Keep(nb::python_error& e) {
    if (!error_) error_ = std::make_unique<nb::python_error>(e);
  }
  bool has_error() const { return error_ != nullptr; }
  // Raises the kept error. REQUIRES: has_error(), the GIL is held.
  [[noreturn]] void Raise() {
    std::unique_ptr<nb::python_error> error = std::move(error_);
    throw nb::python_error(*error);
  }

 private:
  std::unique_ptr<nb::python_error> error_;
};

// pams_cpp's Python classes that the engine makes objects of, and the
// functions it calls, imported once per runner.
struct PythonClasses {
  // REQUIRES: the GIL is held.
  PythonClasses();
  nb::object order;  // pams_cpp.order.Order
  nb::object cancel;
  nb::object limit_order;  // pams_cpp.order.LIMIT_ORDER
  nb::object market_order;
  nb::object order_log;  // pams_cpp.logs.base.OrderLog
  nb::object cancel_log;
  nb::object expiration_log;
  nb::object execution_log;
  nb::object simulation_begin_log;
  nb::object simulation_end_log;
  nb::object session_begin_log;
  nb::object session_end_log;
  nb::object market_step_begin_log;
  nb::object market_step_end_log;
  // pams_cpp.runners._task_state's dumps and loads: what the process
  // runner's tasks pickle Python agents' state with. Imported on first
  // use: only process runners need them, and importing them (pickle,
  // traceback) cost a sequential run's start about 8 ms.
  // REQUIRES (each): the GIL is held.
  const nb::object& task_state_dumps() const { return Lazy(&task_state_dumps_, kTaskState, "dumps"); }
  const nb::object& task_state_loads() const { return Lazy(&task_state_loads_, kTaskState, "loads"); }
  // pams_cpp.runners._errors's dumps: a worker's Python error, as it
  // travels to the main process.
  const nb::object& error_dumps() const { return Lazy(&error_dumps_, kErrors, "dumps"); }

  const nb::object& kind(OrderKind k) const {
    return k == OrderKind::kLimit ? limit_order : market_order;
  }
  template <typename Visit>
  void Traverse(Visit&& visit) const {
    for (const nb::object* o : std::initializer_list<const nb::object*>{
             &order, &cancel, &limit_order, &market_order, &order_log, &cancel_log,
          &expiration_log, &execution_log, &simulation_begin_log, &simulation_end_log,
          &session_begin_log, &session_end_log, &market_step_begin_log,
          &market_step_end_log, &task_state_dumps_, &task_state_loads_, &error_dumps_}) {
      visit(o->ptr());
    }
  }

 private:
  static constexpr const char* kTaskState = "pams_cpp.runners._task_state";
  static constexpr const char* kErrors = "pams_cpp.runners._errors";
  static const nb::object& Lazy(nb::object* slot, const char* module, const char* name) {
    if (!slot->is_valid()) *slot = nb::module_::import_(module).attr(name);
    return *slot;
  }
  mutable nb::object task_state_dumps_;
  mutable nb::object task_state_loads_;
  mutable nb::object error_dumps_;
};

// PAMS's Order objects are the market's own: the market sets their
// order_id and placed_at (and moves their price onto the tick grid), an
// execution lowers their volume, a cancel marks them canceled. The engine
// copies orders instead, so this logger, the first a run's markets write
// to, does the same to the Python objects an agent returned, at the moment
// PAMS does it (before the agents' callbacks).
// The market of an id for Python's values of its prices (an int or a
// float): the simulator's, or for a simulation built by hand any market
// made for it, added to the simulator or not. nullptr: none (prices are
// then floats).
using MarketLookup = std::function<const Market*(int market_id)>;

class OrderMirror final : public Logger {
 public:
  // REQUIRES: classes and markets outlive this object.
  OrderMirror(const PythonClasses* classes, const MarketLookup* markets)
      : classes_(classes), markets_(markets) {}

  // `action` (an Order or a Cancel object) was returned by agent
  // `agent_id` and will be processed after those returned before it.
  // REQUIRES: the GIL is held.
  void Expect(int agent_id, nb::handle action);
  // Forgets what agent_id's last actions left unprocessed.
  void Forget(int agent_id);
  // Forgets every action not processed yet. REQUIRES: the GIL is held.
  void ForgetAll();
  // `action` is the next of agent_id's to be processed (before those
  // expected already): a program placing it by hand. REQUIRES: the GIL.
  void ExpectNext(int agent_id, nb::handle action);
  // Forgets `action` if it is still expected (its processing failed).
  // REQUIRES: the GIL is held.
  void Unexpect(int agent_id, nb::handle action);
  // The first n actions expected of agent_id, which are forgotten (a
  // program hands them to Python instead). REQUIRES: the GIL is held.
  std::vector<nb::object> Take(int agent_id, size_t n);
  // The Python order in a book with that id (None: none known).
  // REQUIRES: the GIL is held.
  nb::object Find(int market_id, int64_t order_id) const;

  void process_order_log(const OrderLog& log) override;
  void process_cancel_log(const CancelLog& log) override;
  void process_execution_log(const ExecutionLog& log) override;
  void process_expiration_log(const ExpirationLog& log) override;

  // The Python objects held, for the garbage collector.
  template <typename Visit>
  void Traverse(Visit&& visit) const {
    for (const auto& [agent, queue] : pending_) {
      for (size_t i = queue.head; i < queue.items.size(); ++i) visit(queue.items[i].ptr());
    }
    for (const auto& [key, o] : live_) visit(o.ptr());
  }
  // Drops every Python object. REQUIRES: the GIL is held.
  void Clear();

 private:
  const PythonClasses* classes_;
  const MarketLookup* markets_;
  // (market id, order id) as one key: hash maps, as every order, execution
  // and expiration of a step looks one up (std::map's tree walks cost a
  // hand-driven loop a tenth of its step methods' time). Iteration order
  // matters nowhere (Traverse, Clear and ForgetAll drop or visit them all).
  struct OrderKeyHash {
    size_t operator()(const std::pair<int, int64_t>& key) const {
      return std::hash<int64_t>()(key.second) ^ (std::hash<int>()(key.first) << 1);
    }
  };
  // An agent's actions not processed yet, oldest first (from `head`): a
  // vector, as a deque's first element allocates over half a kilobyte,
  // which an agent's first order paid in every run.
  struct Queue {
    std::vector<nb::object> items;
    size_t head = 0;

    bool empty() const { return head == items.size(); }
    size_t size() const { return items.size() - head; }
    void clear() {
      items.clear();
      head = 0;
    }
  };
  // agent_id's actions not processed yet (null: none).
  Queue* ExpectedOf(int agent_id);
  // The first of `queue`'s actions, taken out. REQUIRES: queue is not empty.
  nb::object PopExpected(Queue* queue);

  // Orders and cancels not yet processed, per agent, in submission order.
  std::unordered_map<int, Queue> pending_;
  size_t n_pending_ = 0;
  // Python orders in a book, by (market id, order id).
  std::unordered_map<std::pair<int, int64_t>, nb::object, OrderKeyHash> live_;
};

// A hand-driven step's local_orders (lists of Order and Cancel objects) as
// runner_steps.cc's _handle_orders reads them. The PythonRun keeps one
// between steps for its vectors' capacity only (making them at each step
// cost a hand-driven loop allocations): it is empty outside a call.
struct HandedLists {
  std::vector<nb::object> lists;      // as handed in
  std::vector<nb::object> sequences;  // each as a list or a tuple, holding its items
  std::vector<nb::handle> objects;    // the lists' items, one list after the other
  std::vector<size_t> starts;         // where each list starts in objects, then the end

  size_t size() const { return lists.size(); }
  std::span<const nb::handle> objects_of(size_t b) const {
    return {objects.data() + starts[b], starts[b + 1] - starts[b]};
  }
  void Clear() {
    lists.clear();
    sequences.clear();
    objects.clear();
    starts.clear();
  }
};

// What a hand-driven step's _collect_orders_from_normal_agents returned
// (runner_steps.cc): the lists, their objects, and each object's fields
// as returned (order_slots.h's FieldValues). _handle_orders, handed back
// exactly these lists with every object unchanged, handles the runner's
// batches as collected instead of reading every object again.
struct CollectedOrders {
  nb::object outer;              // null: nothing kept
  uint64_t batches_version = 0;  // Runner::batches_version() of the batches
  std::vector<nb::object> lists;
  std::vector<nb::object> objects;  // the lists' objects, one list after the other
  std::vector<size_t> starts;       // where each list starts in objects, then the end
  FieldValues fields;

  // Forgets them, keeping the vectors' capacity. REQUIRES: the GIL is held.
  void Clear() {
    outer = nb::object();
    lists.clear();
    objects.clear();
    starts.clear();
    fields.clear();
  }
};

struct PythonRun {
  // REQUIRES: the GIL is held.
  PythonRun();
  PythonRun(const PythonRun&) = delete;
  PythonRun& operator=(const PythonRun&) = delete;

  // REQUIRES: before the run's first log; sim outlives this object.
  void set_simulator(const Simulator* sim);
  // The market of an id (see MarketLookup).
  const Market* find_market(int id) const {
    return market_lookup ? market_lookup(id) : nullptr;
  }

  const Simulator* simulator = nullptr;
  MarketLookup market_lookup;
  // A worker process's replica: no order is processed here, so nothing is
  // mirrored; agents hand their actions back with their state instead.
  bool is_worker = false;
  // The run's stop flag (the engine runner's), which an interruption
  // raised in Python code (KeyboardInterrupt, SystemExit) sets, so that
  // the engine waits for nothing more. Null: none.
  std::atomic<bool>* stop = nullptr;
  PythonClasses classes;
  PendingError pending;
  OrderMirror mirror;
  // What Python's submit_orders(markets=...) gets: the simulator's list
  // (market objects by id); and the runner's Python Simulator (what the
  // logs' `simulator` is). Set before the run.
  nb::object markets;
  nb::object simulator_object;
  // The runner's Python object (borrowed: it owns this), which the engine
  // objects given to Python belong to.
  nb::handle owner;

  // What a hand-driven step needs to call the engine directly (as
  // sequential.py's _step would): the runner's generator is the engine's
  // (a random.Random bound to it), and `markets` is the simulator's list
  // for the objects it holds now (the counts of ObjectCounts when Python
  // handed it over).
  bool prng_is_engine = false;
  std::array<size_t, 5> markets_counts{};

  // The runner's method checks (sequential.py's _method_checks) for the
  // simulation's objects as ObjectCounts counted them: a hand-driven loop
  // asks them at each step (see runner_steps.cc's AskOf).
  std::array<size_t, 5> ask_counts{};
  nb::object ask_checks;
  // The version tags of the checked classes when the checks last found no
  // method replaced (empty: unknown). CPython gives a class a new tag
  // whenever it or a base is changed, so equal tags need no new check.
  std::optional<std::vector<std::pair<PyTypeObject*, unsigned int>>> ask_versions;

  HandedLists handed;
  CollectedOrders collected;

  // mirror.Find as a Python function, which classes.task_state_loads takes
  // (made once: making it at each task took microseconds).
  nb::object find_order;

  // The Python object of an engine market: the one Python has (a market a
  // program built by hand, or one Python has seen), else the runner's by
  // id. REQUIRES: the GIL is held.
  nb::object MarketObject(const Market& market) const;
  // The Python object of an engine session, kept for the run: the logs of
  // every step then share one (as PAMS's share its Session) instead of
  // making one per log. REQUIRES: the GIL is held.
  nb::object SessionObject(const Session& session);
  // The sessions' objects SessionObject made (a run has a few sessions).
  std::vector<std::pair<const Session*, nb::object>> session_objects;

  template <typename Visit>
  void Traverse(Visit&& visit) const {
    classes.Traverse(visit);
    mirror.Traverse(visit);
    visit(markets.ptr());
    visit(simulator_object.ptr());
    visit(find_order.ptr());
    visit(ask_checks.ptr());
    for (const auto& [session, object] : session_objects) visit(object.ptr());
    visit(collected.outer.ptr());
    for (const auto* held : {&collected.lists, &collected.objects, &collected.fields}) {
      for (const nb::object& o : *held) visit(o.ptr());
    }
  }
  // REQUIRES: the GIL is held.
  void Clear() {
    mirror.Clear();
    session_objects.clear();
    collected.Clear();
    markets = nb::object();
    simulator_object = nb::object();
    ask_checks = nb::object();
    ask_versions.reset();
  }
};

// The Python log object (pams_cpp.logs.base) of an engine log.
// REQUIRES: the GIL is held.
nb::object PythonLog(const PythonRun& run, const OrderLog& log);
nb::object PythonLog(const PythonRun& run, const CancelLog& log);
nb::object PythonLog(const PythonRun& run, const ExpirationLog& log);
nb::object PythonLog(const PythonRun& run, const ExecutionLog& log);

// Keeps the Python error e, with a note saying where it was raised, to be
// raised from the run, and throws SimulationError(where: e) to stop the
// engine. An interruption (KeyboardInterrupt, SystemExit: what is not an
// Exception) gets no note, since it is no fault of the code it arrived in,
// and sets the stop flag. In a worker process, the error travels to the
// main process: the exception is a HostError carrying it
// (pams_cpp.runners._errors). REQUIRES: the GIL is held.
[[noreturn]] void StopWithPythonError(PythonRun* run, nb::python_error& e,
                                      const std::string& where);

// Whether e is an interruption (not an Exception: KeyboardInterrupt,
// SystemExit). REQUIRES: the GIL is held.
bool IsInterruption(const nb::python_error& e);

// For code that a call of Python's, made on a thread of the thread runner,
// returns to (the GIL held): throws TaskAbandonedError if the run stopped
// waiting for the call meanwhile (see runners/agent_task.h), so that
// nothing of the run is touched.
void CheckTaskNotAbandoned();

// The settings of a Python class's setup(settings, ...), which may call
// super().setup() with the dict it got or a changed one. One per engine
// object (an agent, a market, an event).
class PythonSetup {
 public:
  // Runs call (which calls the Python setup with settings as a dict); then
  // marks every key of settings read, since Python reads them out of the
  // engine's sight (none is an unread key).
  template <typename F>
  void Run(const Settings& settings, F&& call) {
    current_ = &settings;
    struct Reset {
      const Settings** current;
      ~Reset() { *current = nullptr; }
    } reset{&current_};
    call();
    MarkAllRead(settings);
  }
  // What the built-in setup gets for the dict `values` that super().setup()
  // got: the engine's own settings while Run is running and the dict is
  // unchanged, else settings over the new values (named `name`, kept here,
  // since a class may keep references into its settings).
  const Settings& ForSuper(nb::handle values, const std::string& name);

 private:
  static void MarkAllRead(const Settings& settings);

  const Settings* current_ = nullptr;
  std::unique_ptr<Json> own_json_;
  std::unique_ptr<Settings> own_;
};

// The part of an engine object (an agent, an event) that is Python's: the
// object of its Python class.
class PythonPart {
 public:
  virtual ~PythonPart() {
    if (on_destroy_) on_destroy_();
    if (borrowed_) self_.release();
  }
  // The Python object (invalid once the garbage collector cleared it).
  nb::handle self() const { return self_; }
  // REQUIRES: the GIL is held.
  void clear_self() {
    if (borrowed_) {
      self_.release();
      borrowed_ = false;
    }
    self_ = nb::object();
  }
  // Keeps `keep` alive as long as this object, and runs on_destroy when it
  // is destroyed (an object built by hand and its simulation).
  void KeepWhileAlive(std::shared_ptr<void> keep, std::function<void()> on_destroy) {
    keep_ = std::move(keep);
    on_destroy_ = std::move(on_destroy);
  }
  // For an object a program built by hand: self owns this engine object
  // (as its _engine, or as the Python object of a market), so this refers
  // to self without a reference of its own.
  void AttachBorrowed(nb::handle self) {
    clear_self();
    self_ = nb::borrow(self);
    self_.dec_ref();
    borrowed_ = true;
  }
  // Whether a program built the Python object by hand (AttachBorrowed).
  bool hand_built() const { return borrowed_; }

 protected:
  nb::object self_;

 private:
  bool borrowed_ = false;
  std::shared_ptr<void> keep_;
  std::function<void()> on_destroy_;
};

// The engine's generator behind a Python random.Random when it is one of
// pams_cpp's EngineRandom (nullptr for any other random.Random).
// REQUIRES: the GIL is held.
Random* EngineGeneratorOf(nb::handle prng);
// The state of any random.Random, and setting it. REQUIRES: the GIL is held.
Random::State PythonRandomState(nb::handle prng);
void SetPythonRandomState(nb::handle prng, const Random::State& state);

// Runs f, which draws from `engine` (an engine object's generator), as if
// it drew from the Python random.Random `prng` instead: engine starts from
// prng's state and prng gets engine's state back, unless prng is engine's
// own EngineRandom (then nothing is copied). What PAMS's objects built by
// hand do: they keep drawing from the generator they were given.
// REQUIRES: the GIL is held.
template <typename F>
auto DrawingFrom(nb::handle prng, Random& engine, F&& f) -> decltype(f()) {
  if (!prng.is_valid() || prng.is_none() || EngineGeneratorOf(prng) == &engine) return f();
  engine.setstate(PythonRandomState(prng));
  // Also after an error: what was drawn stays drawn, as in PAMS.
  auto put_back = [&] {
    nb::error_scope keep;  // an error being raised stays raised
    try {
      SetPythonRandomState(prng, engine.getstate());
    } catch (nb::python_error&) {
    }
  };
  try {
    if constexpr (std::is_void_v<decltype(f())>) {
      f();
      put_back();
    } else {
      auto result = f();
      put_back();
      return result;
    }
  } catch (...) {
    put_back();
    throw;
  }
}

// Python's value of an engine price in `market`: an int where PAMS's market
// has an int tick size, else a float (bindings/market.cc).
nb::object PriceObject(const Market& market, double price);
// The same for a market that may be unknown (nullptr: a float).
inline nb::object PriceObject(const Market* market, double price) {
  return market != nullptr ? PriceObject(*market, price) : nb::float_(price);
}

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_PYTHON_RUN_H_
