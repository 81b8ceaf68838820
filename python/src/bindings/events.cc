// _core.Event: an engine event as pams_cpp's event classes read it, with
// the built-in class's own methods for Python's super() (an event of a
// Python class: interop/python_events.h).

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>

#include "bindings/bindings.h"
#include "interop/arguments.h"
#include "interop/hand_built.h"
#include "interop/python_events.h"
#include "interop/python_run.h"
#include "interop/values.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/events/event.h"
#include "pams/events/price_limit_rule.h"
#include "pams/market/market.h"
#include "pams/simulator/session.h"

namespace pams::python {

namespace {

[[noreturn]] void RaiseNotSetUp(const Event& e, const char* method) {
  Raise(PyExc_AttributeError, "event " + e.name() + ": " + method +
                                  " before setup; call its setup(settings) first (PAMS's event "
                                  "has no target before it either)");
}

// The Python side of an event whose built-in code Python calls (super(),
// an event built by hand): AttributeError before its setup ran.
PythonEventCalls& SetUpCalls(Event& e, const char* method) {
  PythonEventCalls& p = PythonCallsOf(e);
  if (!p.base_set_up()) RaiseNotSetUp(e, method);
  return p;
}

// An object of pams_cpp.order's class `cls`: TypeError naming `what` otherwise.
void RequireObject(nb::handle object, const char* cls, const char* what, const char* expected) {
  if (!nb::isinstance(object, nb::module_::import_("pams_cpp.order").attr(cls))) {
    RaiseArgument(PyExc_TypeError, what, expected, object);
  }
}

}  // namespace

void BindEvents(nb::module_& m) {
  nb::class_<Event>(m, "Event", nb::dynamic_attr())
      .def_prop_ro("event_id", &Event::event_id)
      .def_prop_ro("name", [](const Event& e) { return e.name(); })
      .def_prop_ro("class_name", [](const Event& e) { return e.class_name(); })
      .def_prop_ro("session",
                   [](nb::handle self) {
                     return OwnedBy(&nb::cast<Event&>(self).session(), self);
                   })
      .def_prop_ro("prng",
                   [](nb::handle self) { return OwnedBy(&nb::cast<Event&>(self).prng(), self); })
      // The Python object of an event of a Python class; None otherwise.
      .def_prop_ro("python_object",
                   [](Event& e) -> nb::object {
                     auto* p = dynamic_cast<PythonPart*>(&e);
                     return p != nullptr && p->self().is_valid() ? nb::borrow(p->self())
                                                                 : nb::none();
                   })
      .def_prop_ro("_state", &BuiltinState)
      // PriceLimitRule.get_limited_price for an order of that price.
      .def("_limited_price",
           [](Event& e, nb::handle price, nb::handle market) {
             const auto* rule = dynamic_cast<const PriceLimitRule*>(&e);
             if (rule == nullptr) throw SimulationError("not a PriceLimitRule");
             Order order;
             if (!price.is_none()) {
               order.price = NumberArg(price, "PriceLimitRule.get_limited_price: the order's price");
             }
             const Market& m = MarketArg(market, "PriceLimitRule.get_limited_price: market");
             if (auto* p = dynamic_cast<PythonEventCalls*>(&e); p != nullptr && !p->base_set_up()) {
               RaiseNotSetUp(e, "get_limited_price");
             }
             return rule->get_limited_price(order, m);
           },
           nb::arg("price").none(), nb::arg("market").none())
      // The built-in class's own methods (Python's super()).
      .def("_base_setup",
           [](Event& e, nb::handle settings) {
             RequireSettings(settings, "EventABC.setup");
             if (dynamic_cast<PythonEventCalls*>(&e) == nullptr) {
               // A runner's event of a built-in class, set up by a program
               // running the runner's pending setups itself.
               const Json json = ToJson(settings, e.name());
               e.setup(Settings(json, e.name()));
               return;
             }
             PythonCallsOf(e).BaseSetup(settings);
           },
           nb::arg("settings").none())
      .def("_base_hook_registration",
           [](nb::handle self, nb::handle event_object) {
             Event& e = nb::cast<Event&>(self);
             if (dynamic_cast<PythonEventCalls*>(&e) == nullptr) {
               // The same for its hooks: those of the engine's event, with
               // its Python object (event_object) as their event.
               return PythonHooks(e.hook_registration(), event_object, [&](const Market& m) {
                 nb::object found = nb::find(&m);
                 return found.is_valid() && !found.is_none()
                            ? found
                            : OwnedBy(const_cast<Market*>(&m), self);
               });
             }
             return PythonCallsOf(e).BaseHookRegistration();
           },
           nb::arg("event_object").none() = nb::none())
      .def("_base_hooked_before_order",
           [](Event& e, nb::handle order) {
             PythonEventCalls& p = SetUpCalls(e, "hooked_before_order");
             RequireObject(order, "Order", "EventABC.hooked_before_order: order", "an Order");
             p.BaseBeforeOrder(order);
           },
           nb::arg("order").none())
      .def("_base_hooked_before_cancel",
           [](Event& e, nb::handle cancel) {
             PythonEventCalls& p = SetUpCalls(e, "hooked_before_cancel");
             RequireObject(cancel, "Cancel", "EventABC.hooked_before_cancel: cancel", "a Cancel");
             p.BaseBeforeCancel(cancel);
           },
           nb::arg("cancel").none())
      // With the Python log the hook got (a program may call the hook
      // itself), or without: the log of the hook running now.
      .def("_base_hooked_after_order",
           [](Event& e, nb::handle log) {
             PythonEventCalls& p = SetUpCalls(e, "hooked_after_order");
             if (log.is_none()) return p.BaseAfterLog(kAfterOrder, nullptr);
             const OrderLog l = EngineOrderLog(log);
             p.BaseAfterLog(kAfterOrder, &l);
           },
           nb::arg("log").none() = nb::none())
      .def("_base_hooked_after_cancel",
           [](Event& e, nb::handle log) {
             PythonEventCalls& p = SetUpCalls(e, "hooked_after_cancel");
             if (log.is_none()) return p.BaseAfterLog(kAfterCancel, nullptr);
             const CancelLog l = EngineCancelLog(log);
             p.BaseAfterLog(kAfterCancel, &l);
           },
           nb::arg("log").none() = nb::none())
      .def("_base_hooked_after_execution",
           [](Event& e, nb::handle log) {
             PythonEventCalls& p = SetUpCalls(e, "hooked_after_execution");
             if (log.is_none()) return p.BaseAfterLog(kAfterExecution, nullptr);
             const ExecutionLog l = EngineExecutionLog(log);
             p.BaseAfterLog(kAfterExecution, &l);
           },
           nb::arg("log").none() = nb::none())
      .def("_base_hooked_session",
           [](Event& e, bool before, nb::handle session) {
             const char* method = before ? "hooked_before_session" : "hooked_after_session";
             PythonEventCalls& p = SetUpCalls(e, method);
             if (!nb::isinstance<Session>(session)) {
               RaiseArgument(PyExc_TypeError,
                             (std::string("EventABC.") + method + ": session").c_str(),
                             "a Session", session);
             }
             p.BaseSession(before ? kBeforeSession : kAfterSession,
                           nb::cast<const Session&>(session));
           },
           nb::arg("before"), nb::arg("session").none())
      .def("_base_hooked_step_for_market",
           [](Event& e, bool before, nb::handle market) {
             const char* method =
                 before ? "hooked_before_step_for_market" : "hooked_after_step_for_market";
             PythonEventCalls& p = SetUpCalls(e, method);
             p.BaseStep(before ? kBeforeStep : kAfterStep,
                        MarketArg(market, (std::string("EventABC.") + method + ": market").c_str()));
           },
           nb::arg("before"), nb::arg("market").none());
}

}  // namespace pams::python
