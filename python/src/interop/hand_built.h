// SimulationContext: the simulation that PAMS's objects built by hand belong
// to, as pams_cpp.Simulator holds it (its _context).
//
// PAMS's tests and programs such as pamsenvs build the objects themselves
// (Simulator(prng=...), Market(...), FCNAgent(...), Session(...), events)
// and drive them with the underscore methods (market._add_order,
// simulator._update_times_on_markets, ...). Those objects are the engine's:
// a Simulator built by hand owns an engine Simulator and the Python side of
// its run (PythonRun: the order mirror, the Python classes, the error a
// Python method raised); a runner's Simulator borrows the runner's. Markets,
// agents, events and sessions built by hand are engine objects that Python
// owns; the engine simulator refers to them once they are added
// (Simulator::add_*_borrowed), and pams_cpp.Simulator keeps them alive as
// long as it.
//
// Every method here needs the GIL (Python calls them); they run the engine
// on the calling thread. The context and the simulator's methods are in
// simulation_context.cc, what objects built by hand hand to the engine in
// hand_built.cc; the bindings of all this are in bindings/ (hand_built*.cc,
// runner_steps.cc).

#ifndef PAMS_PYTHON_SRC_INTEROP_HAND_BUILT_H_
#define PAMS_PYTHON_SRC_INTEROP_HAND_BUILT_H_

#include <array>
#include <memory>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "interop/python.h"
#include "interop/python_logger.h"
#include "interop/python_run.h"
#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/logs/logs.h"
#include "pams/random/random.h"

namespace pams {
class Market;
class Simulator;
}  // namespace pams

namespace pams::python {

// What a context and the engine objects built for it share: the engine
// simulator and run (its own, or a runner's), and the loggers of the
// markets built by hand. Shared, so that an object built by hand that
// outlives its pams_cpp.Simulator (the garbage collector frees them in any
// order) still finds what it refers to.
struct HandBuiltSimulation {
  // REQUIRES: the GIL is held.
  HandBuiltSimulation() = default;
  HandBuiltSimulation(const HandBuiltSimulation&) = delete;
  HandBuiltSimulation& operator=(const HandBuiltSimulation&) = delete;
  ~HandBuiltSimulation();

  std::unique_ptr<Simulator> own_simulator;  // null for a runner's
  std::unique_ptr<PythonRun> own_run;        // null for a runner's
  Simulator* simulator = nullptr;
  PythonRun* run = nullptr;
  // The runner whose simulation this is (kept alive), or None.
  nb::object runner;
  // Markets built by hand for this simulation, by id, whether added to the
  // simulator or not (for Python's values of their prices, MarketLookup).
  std::unordered_map<int, std::vector<const Market*>> markets_made;
  // The engine logger of each Python logger markets built by hand write to:
  // the order mirror, then the logger (a fan-out per logger).
  struct MarketLogger {
    nb::object logger;  // the pams_cpp Logger, or None
    std::unique_ptr<PythonLogger> python;  // for a logger written in Python
    std::unique_ptr<Loggers> fan_out;
  };
  std::vector<MarketLogger> market_loggers;
};

class SimulationContext {
 public:
  // A simulation of its own (PAMS's Simulator(prng=...)): its generator
  // starts from `prng`, and the Fundamentals draw their seed from it.
  explicit SimulationContext(const Random::State& prng);
  // The simulation of a runner (its engine simulator and run; runner is its
  // _core.Runner, kept alive).
  SimulationContext(Simulator* simulator, PythonRun* run, nb::handle runner);
  SimulationContext(const SimulationContext&) = delete;
  SimulationContext& operator=(const SimulationContext&) = delete;

  Simulator& simulator() const { return *shared_->simulator; }
  PythonRun& run() const { return *shared_->run; }
  const std::shared_ptr<HandBuiltSimulation>& shared() const { return shared_; }
  bool owns_simulation() const { return shared_->own_simulator != nullptr; }

  // The engine logger for a market built by hand whose PAMS logger is
  // `logger` (None: none; an engine logger of pams_cpp; a Python Logger).
  Logger* MarketLoggerFor(nb::handle logger);
  // Notes a market built for this simulation (and forgets it when it
  // dies): its prices' Python type is looked up by id before it is added.
  void NoteMarket(Market* market);

  // Raises the Python error that a Python method raised while the engine
  // ran, if any (a SimulationError from the engine then means that error).
  void RaisePending();
  // Runs f (engine code that may call Python) and raises a Python error
  // that f's Python calls kept, instead of the SimulationError it caused.
  template <typename F>
  auto Engine(F&& f) -> decltype(f()) {
    try {
      if constexpr (std::is_void_v<decltype(f())>) {
        f();
        RaisePending();
      } else {
        auto result = f();
        RaisePending();
        return result;
      }
    } catch (const SimulationError&) {
      RaisePending();
      throw;
    }
  }

  // For the garbage collector (the Python objects held).
  int Traverse(visitproc visit, void* arg) const;
  void Clear();

 private:
  std::shared_ptr<HandBuiltSimulation> shared_;
};

// What `simulator` holds, counted: markets, agents, sessions, events and
// event hooks. Python's lists made from them (Simulator.markets, a
// runner's method checks) are current while the counts are unchanged,
// since objects are only ever added.
std::array<size_t, 5> ObjectCounts(const Simulator& simulator);

// The context of an object built by hand or of a runner's object (its
// _context, or its owner's). Throws TypeError naming `what` when it has none.
SimulationContext& ContextOf(nb::handle object, const char* what);

// The fields of a Python Order (PAMS's attribute names), placed or not, for
// the calls of objects built by hand: ToOrder's, with a TypeError naming a
// field of the wrong type. REQUIRES: the GIL is held.
Order OrderFields(nb::handle order);
// What an event's hook changed in an engine order, into the Python order
// it came from. REQUIRES: the GIL is held.
void WriteBack(const PythonRun& run, const Order& order, nb::handle obj);
// The engine market of a PAMS market object (TypeError otherwise; `what`
// names the argument: "Simulator._update_time_on_market: market").
Market& MarketArg(nb::handle market);
Market& MarketArg(nb::handle market, const char* what);
// PAMS's log object `log`, handed to an engine logger as the engine's log:
// what a program driving a simulation by hand writes to the engine's
// loggers (MarketStepPrintLogger, the CSV loggers, ...).
void FeedLogger(Logger& logger, nb::handle log);

// PAMS's log objects (pams_cpp.logs.base) as the engine's logs. Throws
// nb::cast_error for a field of the wrong type. REQUIRES: the GIL is held.
OrderLog EngineOrderLog(nb::handle log);
CancelLog EngineCancelLog(nb::handle log);
ExecutionLog EngineExecutionLog(nb::handle log);

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_HAND_BUILT_H_
