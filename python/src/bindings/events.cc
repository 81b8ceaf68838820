// _core.Event: an engine event as pams_cpp's event classes read it, with
// the built-in class's own methods for Python's super() (an event of a
// Python class: interop/python_events.h).

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>

#include "bindings/bindings.h"
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
           [](const Event& e, std::optional<double> price, const Market& market) {
             const auto* rule = dynamic_cast<const PriceLimitRule*>(&e);
             if (rule == nullptr) throw SimulationError("not a PriceLimitRule");
             Order order;
             order.price = price;
             return rule->get_limited_price(order, market);
           },
           nb::arg("price").none(), nb::arg("market"))
      // The built-in class's own methods (Python's super()).
      .def("_base_setup",
           [](Event& e, nb::handle settings) {
             if (dynamic_cast<PythonEventCalls*>(&e) == nullptr) {
               // A runner's event of a built-in class, set up by a program
               // running the runner's pending setups itself.
               const Json json = ToJson(settings, e.name());
               e.setup(Settings(json, e.name()));
               return;
             }
             PythonCallsOf(e).BaseSetup(settings);
           },
           nb::arg("settings"))
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
           [](Event& e, nb::handle order) { PythonCallsOf(e).BaseBeforeOrder(order); },
           nb::arg("order"))
      .def("_base_hooked_before_cancel",
           [](Event& e, nb::handle cancel) { PythonCallsOf(e).BaseBeforeCancel(cancel); },
           nb::arg("cancel"))
      // With the Python log the hook got (a program may call the hook
      // itself), or without: the log of the hook running now.
      .def("_base_hooked_after_order",
           [](Event& e, nb::handle log) {
             if (log.is_none()) return PythonCallsOf(e).BaseAfterLog(kAfterOrder, nullptr);
             const OrderLog l = EngineOrderLog(log);
             PythonCallsOf(e).BaseAfterLog(kAfterOrder, &l);
           },
           nb::arg("log").none() = nb::none())
      .def("_base_hooked_after_cancel",
           [](Event& e, nb::handle log) {
             if (log.is_none()) return PythonCallsOf(e).BaseAfterLog(kAfterCancel, nullptr);
             const CancelLog l = EngineCancelLog(log);
             PythonCallsOf(e).BaseAfterLog(kAfterCancel, &l);
           },
           nb::arg("log").none() = nb::none())
      .def("_base_hooked_after_execution",
           [](Event& e, nb::handle log) {
             if (log.is_none()) return PythonCallsOf(e).BaseAfterLog(kAfterExecution, nullptr);
             const ExecutionLog l = EngineExecutionLog(log);
             PythonCallsOf(e).BaseAfterLog(kAfterExecution, &l);
           },
           nb::arg("log").none() = nb::none())
      .def("_base_hooked_session",
           [](Event& e, bool before, const Session& session) {
             PythonCallsOf(e).BaseSession(before ? kBeforeSession : kAfterSession, session);
           },
           nb::arg("before"), nb::arg("session"))
      .def("_base_hooked_step_for_market",
           [](Event& e, bool before, Market& market) {
             PythonCallsOf(e).BaseStep(before ? kBeforeStep : kAfterStep, market);
           },
           nb::arg("before"), nb::arg("market"));
}

}  // namespace pams::python
