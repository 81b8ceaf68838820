// Engine events whose class is written in Python (events.cc), for the
// runner binding: subclasses of EventABC and of the built-in events.

#ifndef PAMS_PYTHON_SRC_EVENTS_H_
#define PAMS_PYTHON_SRC_EVENTS_H_

#include <nanobind/nanobind.h>

#include <memory>
#include <string>
#include <vector>

#include "python_run.h"

#include "pams/events/event.h"

namespace pams {
class ClassRegistry;
}  // namespace pams

namespace pams::python {

namespace nb = nanobind;

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

// PAMS's EventHook object `hook` (event, hook_type, is_before, time,
// specific_class, specific_instance) as the engine's, for `event`.
// Throws SimulationError for a hook type or class the engine does not know.
// REQUIRES: the GIL is held.
EventHook ToEngineHook(nb::handle hook, Event* event);

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_EVENTS_H_
