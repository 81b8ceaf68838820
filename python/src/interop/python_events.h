// Engine events whose class is written in Python (python_events.cc), for the
// runner binding: subclasses of EventABC and of the built-in events.

#ifndef PAMS_PYTHON_SRC_INTEROP_PYTHON_EVENTS_H_
#define PAMS_PYTHON_SRC_INTEROP_PYTHON_EVENTS_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "interop/python.h"
#include "interop/python_run.h"
#include "pams/events/event.h"

namespace pams {
class ClassRegistry;
}  // namespace pams

namespace pams::python {

// How the engine runs one Python event class.
struct PythonEventClass {
  std::string name;  // the name configs use (the class's __name__)
  // The built-in class it derives from: "Event" (EventABC),
  // "FundamentalPriceShock", "PriceLimitRule", "TradingHaltRule" or
  // "OrderMistakeShock".
  std::string base = "Event";
  // maker(engine_event) returns the new Python event whose _engine is
  // engine_event (pams_cpp.runners.base).
  nb::object maker;
  // The methods of the built-in class that the Python class overrides
  // ("setup", "hook_registration", "hooked_before_order", ...): the others
  // run in C++.
  std::vector<std::string> overrides;
};

// Registers `cls` in registry: configs naming cls->name create PyEvents.
// Throws ConfigError for an unknown base or method, or a name already
// registered.
// REQUIRES: run outlives the registry's events.
void RegisterPythonEvent(ClassRegistry* registry, PythonRun* run,
                         std::shared_ptr<PythonEventClass> cls);

// An engine event of the built-in class cls->base for `self`, a Python
// event a program built by hand (PAMS's FundamentalPriceShock(event_id=...,
// ...)): self owns it (as its _engine) and it refers to self without a
// reference of its own. Throws TypeError for an unknown base and
// ConfigError for an unknown method in cls->overrides. REQUIRES: the GIL is
// held; run outlives the event.
std::unique_ptr<Event> MakeHandBuiltEvent(EventInit init, std::shared_ptr<PythonEventClass> cls,
                                          PythonRun* run, nb::handle self);

// The methods a Python event class may override (PAMS's names: hook_registration,
// hooked_before_order, ...).
enum EventMethod : int {
  kSetup,
  kHookRegistration,
  kBeforeOrder,
  kAfterOrder,
  kBeforeCancel,
  kAfterCancel,
  kAfterExecution,
  kBeforeSession,
  kAfterSession,
  kBeforeStep,
  kAfterStep,
  kMethodCount,
  kNoMethod = kMethodCount,
};

// What _core.Event's methods reach in an event of a Python class: the
// built-in class's own methods (Python's super()).
class PythonEventCalls : public PythonPart {
 public:
  virtual void BaseSetup(nb::handle settings) = 0;
  // Whether the built-in class's code may run: its setup returned (through
  // the engine or super().setup), or the event is a runner's (set up
  // before it is hooked). The Base* calls below throw SimulationError
  // otherwise.
  virtual bool base_set_up() const = 0;
  virtual nb::list BaseHookRegistration() = 0;
  // `order` is the Python Order the hook got; Base's changes go into it.
  virtual void BaseBeforeOrder(nb::handle order) = 0;
  virtual void BaseBeforeCancel(nb::handle cancel) = 0;
  // The log the running hook got. REQUIRES: called from that hook (else
  // SimulationError).
  // log: the engine's copy of the log the Python method got; nullptr: the
  // log of the hook running now.
  virtual void BaseAfterLog(EventMethod method, const void* log) = 0;
  virtual void BaseSession(EventMethod method, const Session& session) = 0;
  virtual void BaseStep(EventMethod method, Market& market) = 0;
};

// The Python side of an event of a Python class. Throws SimulationError for
// an event of a built-in class (the simulator calls its hooks).
PythonEventCalls& PythonCallsOf(Event& event);

// The state of a built-in event, under PAMS's attribute names (market ids
// where PAMS holds markets); empty for Event itself.
nb::dict BuiltinState(const Event& event);

// PAMS's EventHook objects of `hooks`, whose event is the Python object
// `event`; market_object gives a market's Python object.
// REQUIRES: the GIL is held.
nb::list PythonHooks(const std::vector<EventHook>& hooks, nb::handle event,
                     const std::function<nb::object(const Market&)>& market_object);

// PAMS's EventHook object `hook` (event, hook_type, is_before, time,
// specific_class, specific_instance) as the engine's, for `event`.
// Throws SimulationError for a hook type or class the engine does not know.
// REQUIRES: the GIL is held.
EventHook ToEngineHook(nb::handle hook, Event* event);

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_PYTHON_EVENTS_H_
