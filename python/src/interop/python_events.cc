// Events for Python: _core.Event (an engine event as pams_cpp's event
// classes see it) and the engine events whose class is a Python subclass of
// pams_cpp.events.EventABC or of a built-in event.
//
// Such an event is a PyEvent<Base>, an engine event of the nearest built-in
// class Base (Event for EventABC) that calls the Python methods the class
// overrides and Base's own for the others (decided once per class). The
// engine calls hook_registration() once after setup(), as PAMS does, turns
// Python EventHooks into the engine's, and then calls the hooked_* methods
// of the hooks registered. A hook before an order hands the method a Python
// Order; what the method changes in it goes into the engine's order.
// Python's super() reaches Base's methods through _core.Event's _base_*
// methods.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <memory>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "interop/arguments.h"
#include "interop/hand_built.h"
#include "interop/python.h"
#include "interop/python_agents.h"
#include "interop/python_events.h"
#include "interop/python_run.h"
#include "interop/values.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/events/event.h"
#include "pams/events/fundamental_price_shock.h"
#include "pams/events/order_mistake_shock.h"
#include "pams/events/price_limit_rule.h"
#include "pams/events/trading_halt_rule.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

using Method = EventMethod;

HookType ToHookType(const std::string& name, const std::string& event) {
  if (name == "order") return HookType::kOrder;
  if (name == "cancel") return HookType::kCancel;
  if (name == "execution") return HookType::kExecution;
  if (name == "session") return HookType::kSession;
  if (name == "market") return HookType::kMarket;
  throw SimulationError("event " + event + ": hook type must be one of order, cancel, "
                        "execution, session, or market, got " + name);
}


constexpr std::array<const char*, kMethodCount> kMethodNames = {
    "setup",
    "hook_registration",
    "hooked_before_order",
    "hooked_after_order",
    "hooked_before_cancel",
    "hooked_after_cancel",
    "hooked_after_execution",
    "hooked_before_session",
    "hooked_after_session",
    "hooked_before_step_for_market",
    "hooked_after_step_for_market",
};

using Overrides = std::array<bool, kMethodCount>;

Overrides ToOverrides(const PythonEventClass& cls) {
  Overrides out{};
  for (const std::string& name : cls.overrides) {
    size_t i = 0;
    while (i < kMethodNames.size() && name != kMethodNames[i]) ++i;
    if (i == kMethodNames.size()) {
      throw ConfigError("", "class " + cls.name + ": " + name + " is not a method of events");
    }
    out[i] = true;
  }
  return out;
}



template <typename Base>
class PyEvent final : public Base, public PythonEventCalls {
 public:
  PyEvent(EventInit init, std::shared_ptr<PythonEventClass> cls, Overrides overrides,
          PythonRun* run)
      : Base(std::move(init)), cls_(std::move(cls)), overrides_(overrides), run_(run) {}

  void Attach(nb::object self) { self_ = std::move(self); }

  // Set once the built-in setup returned (see RequireSetUp).
  bool base_set_up_ = false;

  void setup(const Settings& settings) override {
    if (!overrides_[kSetup]) {
      Base::setup(settings);
      base_set_up_ = true;
      return;
    }
    nb::gil_scoped_acquire gil;
    setup_.Run(settings, [&] {
      Call(kSetup,
           [&] { self_.attr("setup")(nb::arg("settings") = ToPython(settings.json())); });
    });
  }

  std::vector<EventHook> hook_registration() override {
    if (!overrides_[kHookRegistration]) return CallBaseHookRegistration();
    nb::gil_scoped_acquire gil;
    std::vector<EventHook> hooks;
    Call(kHookRegistration, [&] {
      nb::object result = self_.attr("hook_registration")();
      for (nb::handle h : result) hooks.push_back(ToHook(h));
    });
    return hooks;
  }

  void hooked_before_order(Simulator& sim, Order& order) override {
    if (!overrides_[kBeforeOrder]) {
      RequireSetUp();
      return Base::hooked_before_order(sim, order);
    }
    nb::gil_scoped_acquire gil;
    Call(kBeforeOrder, [&] {
      nb::object obj = ToPythonAction(*run_, Action(order));
      self_.attr("hooked_before_order")(run_->simulator_object, obj);
      // What the event changed (PAMS's events change the order in place).
      // Its fields only: an order a program hands a simulator's trigger
      // by hand may be placed already (PAMS's tests hand one).
      order = ToOrder(obj);
    });
  }
  void hooked_after_order(Simulator& sim, const OrderLog& log) override {
    if (!overrides_[kAfterOrder]) {
      RequireSetUp();
      return Base::hooked_after_order(sim, log);
    }
    CallWithLog(kAfterOrder, log);
  }
  void hooked_before_cancel(Simulator& sim, Cancel& cancel) override {
    if (!overrides_[kBeforeCancel]) {
      RequireSetUp();
      return Base::hooked_before_cancel(sim, cancel);
    }
    nb::gil_scoped_acquire gil;
    Call(kBeforeCancel, [&] {
      self_.attr("hooked_before_cancel")(
          run_->simulator_object, ToPythonAction(*run_, Action(cancel)));
    });
  }
  void hooked_after_cancel(Simulator& sim, const CancelLog& log) override {
    if (!overrides_[kAfterCancel]) {
      RequireSetUp();
      return Base::hooked_after_cancel(sim, log);
    }
    CallWithLog(kAfterCancel, log);
  }
  void hooked_after_execution(Simulator& sim, const ExecutionLog& log) override {
    if (!overrides_[kAfterExecution]) {
      RequireSetUp();
      return Base::hooked_after_execution(sim, log);
    }
    CallWithLog(kAfterExecution, log);
  }
  void hooked_before_session(Simulator& sim, const Session& session) override {
    if (!overrides_[kBeforeSession]) {
      RequireSetUp();
      return Base::hooked_before_session(sim, session);
    }
    nb::gil_scoped_acquire gil;  // before the argument is made
    CallWith(kBeforeSession, SessionObject(session));
  }
  void hooked_after_session(Simulator& sim, const Session& session) override {
    if (!overrides_[kAfterSession]) {
      RequireSetUp();
      return Base::hooked_after_session(sim, session);
    }
    nb::gil_scoped_acquire gil;  // before the argument is made
    CallWith(kAfterSession, SessionObject(session));
  }
  void hooked_before_step_for_market(Simulator& sim, Market& market) override {
    if (!overrides_[kBeforeStep]) {
      RequireSetUp();
      return Base::hooked_before_step_for_market(sim, market);
    }
    nb::gil_scoped_acquire gil;  // before the argument is made
    CallWith(kBeforeStep, MarketObject(market));
  }
  void hooked_after_step_for_market(Simulator& sim, Market& market) override {
    if (!overrides_[kAfterStep]) {
      RequireSetUp();
      return Base::hooked_after_step_for_market(sim, market);
    }
    nb::gil_scoped_acquire gil;  // before the argument is made
    CallWith(kAfterStep, MarketObject(market));
  }

  // --- super()

  void BaseSetup(nb::handle settings) override {
    Base::setup(setup_.ForSuper(settings, this->name()));
    base_set_up_ = true;
  }

  bool base_set_up() const override {
    return base_set_up_ || !this->hand_built() || std::is_same_v<Base, Event>;
  }

  nb::list BaseHookRegistration() override {
    return PythonHooks(CallBaseHookRegistration(), self_,
                       [this](const Market& m) { return MarketObject(m); });
  }

  void BaseBeforeOrder(nb::handle obj) override {
    RequireSetUp();
    Order order = std::get<Order>(ToAction(run_->classes, obj, {}));
    Base::hooked_before_order(this->simulator(), order);
    // Into the Python order, which the hook may change further (and the
    // engine then reads).
    nb::object changed = ToPythonAction(*run_, Action(order));
    for (const char* field : {"is_buy", "kind", "volume", "price", "ttl"}) {
      nb::setattr(obj, field, changed.attr(field));
    }
  }

  void BaseBeforeCancel(nb::handle obj) override {
    RequireSetUp();
    Cancel cancel = std::get<Cancel>(ToAction(run_->classes, obj, {}));
    Base::hooked_before_cancel(this->simulator(), cancel);
  }

  void BaseAfterLog(Method method, const void* log) override {
    RequireSetUp();
    if (log == nullptr) log = running_ == method ? current_log_ : nullptr;
    if (log == nullptr) {
      throw SimulationError(std::string("event ") + this->name() + ": super()." +
                            kMethodNames[method] + "() must be called from " +
                            kMethodNames[method] + " with the log it got");
    }
    Simulator& sim = this->simulator();
    if (method == kAfterOrder) {
      Base::hooked_after_order(sim, *static_cast<const OrderLog*>(log));
    } else if (method == kAfterCancel) {
      Base::hooked_after_cancel(sim, *static_cast<const CancelLog*>(log));
    } else {
      Base::hooked_after_execution(sim, *static_cast<const ExecutionLog*>(log));
    }
  }

  void BaseSession(Method method, const Session& session) override {
    RequireSetUp();
    if (method == kBeforeSession) {
      Base::hooked_before_session(this->simulator(), session);
    } else {
      Base::hooked_after_session(this->simulator(), session);
    }
  }

  void BaseStep(Method method, Market& market) override {
    RequireSetUp();
    if (method == kBeforeStep) {
      Base::hooked_before_step_for_market(this->simulator(), market);
    } else {
      Base::hooked_after_step_for_market(this->simulator(), market);
    }
  }

 private:
  // The built-in code reads what its setup set (its target markets, its
  // times): an event built by hand is refused before its setup ran, as
  // PAMS's has none of those attributes then (a runner sets its events up
  // before they are hooked).
  void RequireSetUp() const {
    if (base_set_up()) return;
    throw SimulationError("event " + this->name() + " (" + cls_->name +
                          "): called before setup; call its setup(settings) first (PAMS's "
                          "event has no target before it either)");
  }

  std::vector<EventHook> CallBaseHookRegistration() {
    RequireSetUp();
    if constexpr (std::is_abstract_v<Base>) {
      throw SimulationError("event " + this->name() + " (" + cls_->name +
                            "): its class does not define hook_registration");
    } else {
      return Base::hook_registration();
    }
  }

  // PAMS's EventHook(event, hook_type, is_before, time, specific_class,
  // specific_instance) as the engine's.
  EventHook ToHook(nb::handle h) {
    if (!h.attr("event").is(self_)) {
      throw SimulationError("event " + this->name() + ": hook_registration returned a hook of "
                            "another event");
    }
    try {
      return ToEngineHook(h, this);
    } catch (nb::python_error& e) {
      // A field of the wrong type: the run's error names the event, as
      // for any value hook_registration gets wrong.
      throw SimulationError("event " + this->name() + " (" + cls_->name +
                            "): hook_registration gave a value of the wrong type (" + e.what() +
                            ")");
    }
  }

  nb::object SessionObject(const Session& session) const {
    return OwnedBy(const_cast<Session*>(&session), run_->owner);
  }
  nb::object MarketObject(const Market& market) const { return run_->MarketObject(market); }

  // Calls the Python hook `method` with (simulator, arg). REQUIRES: the
  // GIL is held.
  void CallWith(Method method, nb::object arg) {
    Call(method, [&] { self_.attr(kMethodNames[method])(run_->simulator_object, arg); });
  }
  template <typename Log>
  void CallWithLog(Method method, const Log& log) {
    nb::gil_scoped_acquire gil;
    current_log_ = &log;
    Call(method, [&] {
      self_.attr(kMethodNames[method])(run_->simulator_object, PythonLog(*run_, log));
    });
    current_log_ = nullptr;
  }

  // Runs f, which calls Python's `method`. A Python error stops the run: it
  // is kept (to be raised from the run, with the user's traceback) with a
  // note naming the event, the method and the step.
  template <typename F>
  void Call(Method method, F&& f) {
    const Method outer = running_;
    running_ = method;
    try {
      f();
    } catch (nb::python_error& e) {
      running_ = outer;
      const int64_t t = run_->simulator->time();
      StopWithPythonError(run_, e,
                          std::string("in ") + kMethodNames[method] + " of event " +
                              this->name() + " (" + cls_->name + ")" +
                              (t >= 0 ? " at step " + std::to_string(t) : ""));
    } catch (const nb::cast_error&) {
      running_ = outer;
      throw SimulationError("event " + this->name() + " (" + cls_->name + "): " +
                            kMethodNames[method] + " gave a value of the wrong type");
    } catch (...) {
      running_ = outer;
      throw;
    }
    running_ = outer;
  }

  std::shared_ptr<PythonEventClass> cls_;
  Overrides overrides_;
  PythonRun* run_;
  PythonSetup setup_;
  Method running_ = kNoMethod;           // the Python method running now
  const void* current_log_ = nullptr;    // the log of the running hook
};

using Make = std::unique_ptr<Event> (*)(EventInit, std::shared_ptr<PythonEventClass>, Overrides,
                                        PythonRun*);

template <typename Base>
std::unique_ptr<Event> MakeEvent(EventInit init, std::shared_ptr<PythonEventClass> cls,
                                 Overrides overrides, PythonRun* run) {
  auto event = std::make_unique<PyEvent<Base>>(std::move(init), cls, overrides, run);
  nb::gil_scoped_acquire gil;
  try {
    event->Attach(cls->maker(OwnedBy(static_cast<Event*>(event.get()), run->owner)));
  } catch (nb::python_error& e) {
    StopWithPythonError(run, e, "creating event " + event->name() + " (" + cls->name + ")");
  }
  return event;
}

Make MakerFor(const std::string& base) {
  if (base == "Event") return &MakeEvent<Event>;
  if (base == "FundamentalPriceShock") return &MakeEvent<FundamentalPriceShock>;
  if (base == "PriceLimitRule") return &MakeEvent<PriceLimitRule>;
  if (base == "TradingHaltRule") return &MakeEvent<TradingHaltRule>;
  if (base == "OrderMistakeShock") return &MakeEvent<OrderMistakeShock>;
  return nullptr;
}



template <typename Base>
std::unique_ptr<Event> MakeHandBuilt(EventInit init, std::shared_ptr<PythonEventClass> cls,
                                     Overrides overrides, PythonRun* run, nb::handle self) {
  auto event = std::make_unique<PyEvent<Base>>(std::move(init), cls, overrides, run);
  event->AttachBorrowed(self);
  return event;
}

using MakeBorrowed = std::unique_ptr<Event> (*)(EventInit, std::shared_ptr<PythonEventClass>,
                                                Overrides, PythonRun*, nb::handle);

MakeBorrowed HandBuiltMakerFor(const std::string& base) {
  if (base == "Event") return &MakeHandBuilt<Event>;
  if (base == "FundamentalPriceShock") return &MakeHandBuilt<FundamentalPriceShock>;
  if (base == "PriceLimitRule") return &MakeHandBuilt<PriceLimitRule>;
  if (base == "TradingHaltRule") return &MakeHandBuilt<TradingHaltRule>;
  if (base == "OrderMistakeShock") return &MakeHandBuilt<OrderMistakeShock>;
  return nullptr;
}

}  // namespace

EventHook ToEngineHook(nb::handle h, Event* event) {
  EventHook hook;
  hook.event = event;
  nb::object type = h.attr("hook_type");
  if (!nb::isinstance<nb::str>(type)) {
    RaiseArgument(PyExc_ValueError, "EventHook.hook_type",
                  "order, cancel, execution, session, or market", type);
  }
  hook.hook_type = ToHookType(nb::cast<std::string>(type), event->name());
  hook.is_before = TruthArg(h.attr("is_before"), "EventHook.is_before");
  nb::object time = h.attr("time");
  if (!time.is_none()) {
    if (!nb::hasattr(time, "__iter__")) {
      RaiseArgument(PyExc_TypeError, "EventHook.time", "a list of steps or None", time);
    }
    std::vector<int64_t> steps;
    for (nb::handle t : time) steps.push_back(IntArg(t, "EventHook.time's items"));
    hook.time = std::move(steps);
  }
  nb::object instance = h.attr("specific_instance");
  if (!instance.is_none()) {
    hook.specific_instance = &MarketArg(instance, "EventHook.specific_instance");
  }
  nb::object cls = h.attr("specific_class");
  if (!cls.is_none()) {
    // The engine's market classes: Market (every market) and IndexMarket.
    nb::module_ package = nb::module_::import_("pams_cpp");
    if (PyObject_IsSubclass(cls.ptr(), package.attr("IndexMarket").ptr()) == 1) {
      hook.specific_class = &IsMarketOfClass<IndexMarket>;
    } else if (PyObject_IsSubclass(cls.ptr(), package.attr("Market").ptr()) == 1) {
      hook.specific_class = &IsMarketOfClass<Market>;
    } else {
      throw SimulationError("event " + event->name() + ": specific_class must be Market or "
                            "IndexMarket");
    }
  }
  // From now on the Python hook refuses changes (EventHook.__setattr__):
  // the engine reads this copy, not the object.
  nb::setattr(h, "_in_engine", nb::bool_(true));
  return hook;
}

std::unique_ptr<Event> MakeHandBuiltEvent(EventInit init, std::shared_ptr<PythonEventClass> cls,
                                          PythonRun* run, nb::handle self) {
  const MakeBorrowed make = HandBuiltMakerFor(cls->base);
  if (make == nullptr) {
    throw nb::type_error(("class " + cls->name + " derives from " + cls->base +
                          ", which pams_cpp cannot build events of")
                             .c_str());
  }
  const Overrides overrides = ToOverrides(*cls);
  return make(std::move(init), std::move(cls), overrides, run, self);
}

void RegisterPythonEvent(ClassRegistry* registry, PythonRun* run,
                         std::shared_ptr<PythonEventClass> cls) {
  const Make make = MakerFor(cls->base);
  if (make == nullptr) {
    throw ConfigError("", "class " + cls->name + " derives from " + cls->base +
                              ", which pams_cpp cannot run Python subclasses of");
  }
  const Overrides overrides = ToOverrides(*cls);
  const std::string name = cls->name;
  registry->add_event(name, [make, cls, overrides, run](EventInit init) {
    return make(std::move(init), cls, overrides, run);
  });
}

PythonEventCalls& PythonCallsOf(Event& event) {
  auto* p = dynamic_cast<PythonEventCalls*>(&event);
  if (p == nullptr) {
    throw SimulationError("event " + event.name() + " is run by the engine: its hooks are "
                          "called by the simulator");
  }
  return *p;
}

// The state of a built-in event, under PAMS's attribute names (market ids
// where PAMS holds markets).
nb::dict BuiltinState(const Event& e) {
  nb::dict d;
  auto ids = [](const auto& markets) {
    std::vector<int> out;
    for (const Market* m : markets) out.push_back(m->market_id());
    return out;
  };
  if (const auto* f = dynamic_cast<const FundamentalPriceShock*>(&e)) {
    d["target_market_id"] = f->target_market() ? nb::cast(f->target_market()->market_id())
                                               : nb::none();
    d["trigger_time"] = f->trigger_time();
    d["price_change_rate"] = f->price_change_rate();
    d["is_enabled"] = f->is_enabled();
    d["shock_time_length"] = f->shock_time_length();
  } else if (const auto* p = dynamic_cast<const PriceLimitRule*>(&e)) {
    d["target_market_ids"] = ids(p->target_markets());
    d["trigger_change_rate"] = p->trigger_change_rate();
    d["is_enabled"] = p->is_enabled();
    d["activation_count"] = p->activation_count();
  } else if (const auto* t = dynamic_cast<const TradingHaltRule*>(&e)) {
    d["target_market_ids"] = ids(t->target_markets());
    d["halted_market_ids"] = ids(t->halted_markets());
    d["trigger_change_rate"] = t->trigger_change_rate();
    d["halting_time_length"] = t->halting_time_length();
    d["halting_time_started"] = t->halting_time_started();
    d["is_enabled"] = t->is_enabled();
    d["is_halting"] = t->is_halting();
    d["activation_count"] = t->activation_count();
  } else if (const auto* o = dynamic_cast<const OrderMistakeShock*>(&e)) {
    d["target_market_id"] = o->target_market() ? nb::cast(o->target_market()->market_id())
                                               : nb::none();
    d["trigger_time"] = o->trigger_time();
    d["price_change_rate"] = o->price_change_rate();
    d["order_volume"] = o->order_volume();
    d["order_time_length"] = o->order_time_length();
    d["is_enabled"] = o->is_enabled();
    d["triggered"] = o->triggered();
  }
  return d;
}

// PAMS's EventHook objects of `hooks`, whose event is the Python object
// `event`; market_object gives a market's Python object.
nb::list PythonHooks(const std::vector<EventHook>& hooks, nb::handle event,
                     const std::function<nb::object(const Market&)>& market_object) {
  nb::object hook_class = nb::module_::import_("pams_cpp.events").attr("EventHook");
  nb::module_ package = nb::module_::import_("pams_cpp");
  nb::list out;
  for (const EventHook& hook : hooks) {
    nb::object time = nb::none();
    if (hook.time) time = nb::cast(*hook.time);
    nb::object instance = nb::none();
    if (hook.specific_instance != nullptr) instance = market_object(*hook.specific_instance);
    nb::object cls = nb::none();
    if (hook.specific_class == &IsMarketOfClass<IndexMarket>) {
      cls = package.attr("IndexMarket");
    } else if (hook.specific_class != nullptr) {
      cls = package.attr("Market");
    }
    static const char* const kTypes[] = {"order", "cancel", "execution", "session", "market"};
    out.append(hook_class(nb::arg("event") = event,
                          nb::arg("hook_type") = kTypes[static_cast<int>(hook.hook_type)],
                          nb::arg("is_before") = hook.is_before, nb::arg("time") = time,
                          nb::arg("specific_class") = cls,
                          nb::arg("specific_instance") = instance));
  }
  return out;
}

}  // namespace pams::python
