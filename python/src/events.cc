// Events for Python: _core.Event (an engine event as pams_cpp's event
// classes see it) and the engine events whose class is a Python subclass of
// pams_cpp.events.EventABC.
//
// Such an event is a PyEvent: the engine calls its hook_registration() once
// after setup(), as PAMS does, turns the Python EventHooks into the engine's,
// and then calls the Python hooked_* methods of the hooks it registered (and
// nothing else). A hook before an order hands the method a Python Order;
// what the method changes in it goes into the engine's order.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agents.h"
#include "bindings.h"
#include "events.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/events/event.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"
#include "python_run.h"

namespace pams::python {

namespace {

HookType ToHookType(const std::string& name, const std::string& event) {
  if (name == "order") return HookType::kOrder;
  if (name == "cancel") return HookType::kCancel;
  if (name == "execution") return HookType::kExecution;
  if (name == "session") return HookType::kSession;
  if (name == "market") return HookType::kMarket;
  throw SimulationError("event " + event + ": hook type must be one of order, cancel, "
                        "execution, session, or market, got " + name);
}

class PyEvent final : public Event, public PythonPart {
 public:
  PyEvent(EventInit init, std::shared_ptr<PythonEventClass> cls, PythonRun* run)
      : Event(std::move(init)), cls_(std::move(cls)), run_(run) {}

  void Attach(nb::object self) { self_ = std::move(self); }

  void setup(const Settings& settings) override {
    nb::gil_scoped_acquire gil;
    Call("setup", [&] { self_.attr("setup")(nb::arg("settings") = ToPython(settings.json())); });
    // Python reads its keys from the dict: none of them is unread.
    if (settings.is_object()) {
      for (auto it = settings.json().begin(); it != settings.json().end(); ++it) {
        settings.has(it.key());
      }
    }
  }

  std::vector<EventHook> hook_registration() override {
    nb::gil_scoped_acquire gil;
    std::vector<EventHook> hooks;
    Call("hook_registration", [&] {
      nb::object result = self_.attr("hook_registration")();
      for (nb::handle h : result) hooks.push_back(ToHook(h));
    });
    return hooks;
  }

  void hooked_before_order(Simulator&, Order& order) override {
    nb::gil_scoped_acquire gil;
    Call("hooked_before_order", [&] {
      nb::object obj = ToPythonAction(run_->classes, *run_->simulator, Action(order));
      self_.attr("hooked_before_order")(run_->simulator_object, obj);
      // What the event changed (PAMS's events change the order in place).
      const Action changed = ToAction(run_->classes, obj, {});
      order = std::get<Order>(changed);
    });
  }
  void hooked_after_order(Simulator&, const OrderLog& log) override {
    nb::gil_scoped_acquire gil;
    Call("hooked_after_order", [&] {
      self_.attr("hooked_after_order")(run_->simulator_object, PythonLog(*run_, log));
    });
  }
  void hooked_before_cancel(Simulator&, Cancel& cancel) override {
    nb::gil_scoped_acquire gil;
    Call("hooked_before_cancel", [&] {
      self_.attr("hooked_before_cancel")(
          run_->simulator_object, ToPythonAction(run_->classes, *run_->simulator, Action(cancel)));
    });
  }
  void hooked_after_cancel(Simulator&, const CancelLog& log) override {
    nb::gil_scoped_acquire gil;
    Call("hooked_after_cancel", [&] {
      self_.attr("hooked_after_cancel")(run_->simulator_object, PythonLog(*run_, log));
    });
  }
  void hooked_after_execution(Simulator&, const ExecutionLog& log) override {
    nb::gil_scoped_acquire gil;
    Call("hooked_after_execution", [&] {
      self_.attr("hooked_after_execution")(run_->simulator_object, PythonLog(*run_, log));
    });
  }
  void hooked_before_session(Simulator&, const Session& session) override {
    nb::gil_scoped_acquire gil;
    Call("hooked_before_session", [&] {
      self_.attr("hooked_before_session")(run_->simulator_object, SessionObject(session));
    });
  }
  void hooked_after_session(Simulator&, const Session& session) override {
    nb::gil_scoped_acquire gil;
    Call("hooked_after_session", [&] {
      self_.attr("hooked_after_session")(run_->simulator_object, SessionObject(session));
    });
  }
  void hooked_before_step_for_market(Simulator&, Market& market) override {
    nb::gil_scoped_acquire gil;
    Call("hooked_before_step_for_market", [&] {
      self_.attr("hooked_before_step_for_market")(run_->simulator_object,
                                                  MarketObject(market));
    });
  }
  void hooked_after_step_for_market(Simulator&, Market& market) override {
    nb::gil_scoped_acquire gil;
    Call("hooked_after_step_for_market", [&] {
      self_.attr("hooked_after_step_for_market")(run_->simulator_object,
                                                 MarketObject(market));
    });
  }

 private:
  // PAMS's EventHook(event, hook_type, is_before, time, specific_class,
  // specific_instance) as the engine's.
  EventHook ToHook(nb::handle h) {
    EventHook hook;
    if (!h.attr("event").is(self_)) {
      throw SimulationError("event " + name() + ": hook_registration returned a hook of "
                            "another event");
    }
    hook.event = this;
    hook.hook_type = ToHookType(nb::cast<std::string>(h.attr("hook_type")), name());
    hook.is_before = nb::cast<bool>(h.attr("is_before"));
    nb::object time = h.attr("time");
    if (!time.is_none()) hook.time = nb::cast<std::vector<int64_t>>(time);
    nb::object instance = h.attr("specific_instance");
    if (!instance.is_none()) hook.specific_instance = nb::cast<const Market*>(instance);
    nb::object cls = h.attr("specific_class");
    if (!cls.is_none()) {
      // The engine's market classes: Market (every market) and IndexMarket.
      nb::module_ package = nb::module_::import_("pams_cpp");
      if (PyObject_IsSubclass(cls.ptr(), package.attr("IndexMarket").ptr()) == 1) {
        hook.specific_class = &IsMarketOfClass<IndexMarket>;
      } else if (PyObject_IsSubclass(cls.ptr(), package.attr("Market").ptr()) != 1) {
        throw SimulationError("event " + name() + ": specific_class must be Market or "
                              "IndexMarket");
      }
    }
    return hook;
  }

  nb::object SessionObject(const Session& session) const {
    return OwnedBy(const_cast<Session*>(&session), run_->owner);
  }
  nb::object MarketObject(const Market& market) const {
    return run_->markets[nb::int_(market.market_id())];
  }

  template <typename F>
  void Call(const char* method, F&& f) {
    try {
      f();
    } catch (nb::python_error& e) {
      const int64_t t = run_->simulator->time();
      StopWithPythonError(run_, e,
                          std::string("in ") + method + " of event " + name() + " (" +
                              cls_->name + ")" +
                              (t >= 0 ? " at step " + std::to_string(t) : ""));
    } catch (const nb::cast_error&) {
      throw SimulationError("event " + name() + " (" + cls_->name + "): " + method +
                            " gave a value of the wrong type");
    }
  }

  std::shared_ptr<PythonEventClass> cls_;
  PythonRun* run_;
};

}  // namespace

void RegisterPythonEvent(ClassRegistry* registry, PythonRun* run,
                         std::shared_ptr<PythonEventClass> cls) {
  const std::string name = cls->name;
  registry->add_event(name, [cls, run](EventInit init) -> std::unique_ptr<Event> {
    auto event = std::make_unique<PyEvent>(std::move(init), cls, run);
    nb::gil_scoped_acquire gil;
    try {
      event->Attach(cls->maker(OwnedBy(static_cast<Event*>(event.get()), run->owner)));
    } catch (nb::python_error& e) {
      StopWithPythonError(run, e, "creating event " + event->name() + " (" + cls->name + ")");
    }
    return event;
  });
}

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
      .def_prop_ro("python_object", [](Event& e) -> nb::object {
        auto* p = dynamic_cast<PythonPart*>(&e);
        return p != nullptr && p->self().is_valid() ? nb::borrow(p->self()) : nb::none();
      });
}

}  // namespace pams::python
