// SimulationContext (interop/hand_built.h): the simulation that PAMS's
// objects built by hand belong to.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string_view.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "interop/hand_built.h"
#include "interop/python.h"
#include "pams/market/market.h"
#include "pams/simulator/simulator.h"

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

std::array<size_t, 5> ObjectCounts(const Simulator& simulator) {
  return {simulator.market_objects().size(), simulator.agents().size(),
          simulator.sessions().size(), simulator.events().size(),
          simulator.event_hooks().size()};
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

}  // namespace pams::python
