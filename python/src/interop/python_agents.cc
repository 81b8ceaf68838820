// Agents for Python: _core.Agent (an engine agent as pams_cpp's agent
// classes read and change it) and the engine agents whose class is a Python
// subclass of one of pams_cpp's agent classes.
//
// Such an agent is a PyAgent<Base>: an engine agent of the nearest built-in
// class Base (Agent, FCNAgent, ...) that holds the Python object and calls
// the Python methods the class overrides, and nothing else: which methods a
// class overrides is decided once, when it is registered, so a subclass
// that overrides nothing costs no Python call. Python's super() calls reach
// Base's own methods through _core.Agent's _base_* methods.
//
// The engine owns the PyAgent; the PyAgent owns a reference to the Python
// object, whose _engine is a reference to the PyAgent kept alive with the
// runner (the garbage collector sees the cycle through the runner's
// traverse, bindings/runner.cc).

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "interop/attr_names.h"
#include "interop/order_slots.h"
#include "interop/python.h"
#include "interop/python_agents.h"
#include "interop/python_run.h"
#include "interop/values.h"
#include "pams/agents/agent.h"
#include "pams/agents/arbitrage_agent.h"
#include "pams/agents/fcn_agent.h"
#include "pams/agents/market_maker_agent.h"
#include "pams/agents/test_agent.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/market/market.h"
#include "pams/random/random.h"
#include "pams/runners/class_registry.h"
#include "pams/samples/black_scholes_workload_fcn_agent.h"
#include "pams/samples/cancel_fcn_agent.h"
#include "pams/samples/dark_pool_fcn_agent.h"
#include "pams/samples/invest_div_fcn_agent.h"
#include "pams/samples/workload_fcn_agent.h"
#include "pams/simulator/simulator.h"
#include "pams/simulator/simulator_view.h"
#include "pams/util/state.h"

namespace pams::python {

// ------------------------------------------------------- Python <-> engine

namespace {

std::string TypeName(nb::handle o) { return nb::str(o.type().attr("__name__")).c_str(); }

// Field `name` of a Python order as a T, or a SimulationError naming the
// field, what it must be and what it is.
template <typename T>
T OrderField(nb::handle value, const char* name, const char* expected) {
  try {
    return nb::cast<T>(value);
  } catch (const nb::cast_error&) {
    throw SimulationError(std::string("an order's ") + name + " must be " + expected +
                          ", got " + nb::repr(value).c_str() + " (" + TypeName(value) + ")");
  }
}

}  // namespace

Order ToOrder(nb::handle o) {
  const AttrNames& n = Attrs();
  const OrderSlots& s = Slots();
  const bool plain = s.IsPlainOrder(o);
  Order order;
  order.agent_id = OrderField<int>(GetField(o, s.agent_id, plain), "agent_id", "an int");
  order.market_id = OrderField<int>(GetField(o, s.market_id, plain), "market_id", "an int");
  order.is_buy = OrderField<bool>(GetField(o, s.is_buy, plain), "is_buy", "True or False");
  nb::object kind = GetField(o, s.kind, plain);
  if (kind.is(s.limit_order) || kind.is(s.market_order)) {
    order.kind = kind.is(s.limit_order) ? OrderKind::kLimit : OrderKind::kMarket;
  } else if (!nb::hasattr(kind, n.kind_id)) {
    throw SimulationError("an order's kind must be LIMIT_ORDER or MARKET_ORDER, got " +
                          std::string(nb::repr(kind).c_str()));
  } else {
    order.kind =
        OrderField<int>(kind.attr(n.kind_id), "kind", "LIMIT_ORDER or MARKET_ORDER") == 1
            ? OrderKind::kLimit
            : OrderKind::kMarket;
  }
  nb::object volume = GetField(o, s.volume, plain);
  if (!PyLong_Check(volume.ptr()) || PyBool_Check(volume.ptr())) {
    throw SimulationError("an order's volume must be an int, got " +
                          std::string(nb::repr(volume).c_str()));
  }
  order.volume = OrderField<int64_t>(volume, "volume", "an int of 64 bits");
  nb::object price = GetField(o, s.price, plain);
  if (!price.is_none()) order.price = OrderField<double>(price, "price", "a number or None");
  nb::object ttl = GetField(o, s.ttl, plain);
  if (!ttl.is_none()) order.ttl = OrderField<int64_t>(ttl, "ttl", "an int or None");
  nb::object order_id = GetField(o, s.order_id, plain);
  if (!order_id.is_none()) {
    order.order_id = OrderField<int64_t>(order_id, "order_id", "an int or None");
  }
  nb::object placed_at = GetField(o, s.placed_at, plain);
  if (!placed_at.is_none()) {
    order.placed_at = OrderField<int64_t>(placed_at, "placed_at", "an int or None");
  }
  return order;
}

namespace {

// PAMS's market refuses an Order object placed before (its placed_at or
// order_id set) with ValueError("the order is already submitted"); so does
// this, also for the same object twice in one list (whose second copy PAMS
// finds placed), with what it knows in parentheses.
[[noreturn]] void RaiseAlreadySubmitted(const std::string& detail) {
  PyErr_SetString(PyExc_ValueError, ("the order is already submitted (" + detail + ")").c_str());
  throw nb::python_error();
}

void CheckNotSubmitted(nb::handle order, std::span<const nb::handle> earlier) {
  for (nb::handle e : earlier) {
    if (e.is(order)) {
      RaiseAlreadySubmitted(
          "the same Order object is more than once in what submit_orders returned; make one "
          "Order object per order");
    }
  }
  const OrderSlots& s = Slots();
  const bool plain = s.IsPlainOrder(order);
  nb::object placed_at = GetField(order, s.placed_at, plain);
  nb::object order_id = GetField(order, s.order_id, plain);
  if (placed_at.is_none() && order_id.is_none()) return;
  std::string detail = "order " + std::string(nb::repr(order_id).c_str()) + ", placed at step " +
                       std::string(nb::repr(placed_at).c_str());
  nb::object volume = GetField(order, s.volume, plain);
  if (PyLong_Check(volume.ptr()) && nb::cast<int64_t>(volume) == 0) {
    detail += ", fully executed";
  }
  RaiseAlreadySubmitted(detail + "; submit a new Order object");
}

}  // namespace

Action ToAction(const PythonClasses& classes, nb::handle action,
                std::span<const nb::handle> earlier) {
  const OrderSlots& s = Slots();
  try {
    if (nb::isinstance(action, classes.order)) {
      if (nb::cast<bool>(GetField(action, s.is_canceled, s.IsPlainOrder(action)))) {
        throw SimulationError("the order is already canceled");
      }
      CheckNotSubmitted(action, earlier);
      return ToOrder(action);
    }
    if (nb::isinstance(action, classes.cancel)) {
      const bool plain = s.IsPlainCancel(action);
      nb::object order = GetField(action, s.cancel_order, plain);
      if (!GetField(action, s.cancel_placed_at, plain).is_none()) {
        throw SimulationError("the cancel was already submitted");
      }
      if (!nb::isinstance(order, classes.order)) {
        throw SimulationError("a Cancel's order must be an Order, got " + TypeName(order));
      }
      Cancel cancel;
      cancel.order = ToOrder(order);
      if (!cancel.order.is_placed()) {
        // An order of the same result, which the market places first.
        for (size_t i = 0; i < earlier.size(); ++i) {
          if (earlier[i].is(order)) cancel.same_batch_order = static_cast<int32_t>(i);
        }
        if (cancel.same_batch_order < 0) {
          throw SimulationError("the order to cancel was not submitted before");
        }
      }
      if (nb::cast<bool>(GetField(order, s.is_canceled, s.IsPlainOrder(order)))) {
        throw SimulationError("the order to cancel is already canceled");
      }
      return cancel;
    }
  } catch (const nb::cast_error&) {
    throw SimulationError("an order field has the wrong type: " +
                          std::string(nb::repr(action).c_str()));
  }
  throw SimulationError("submit_orders must return Order and Cancel objects, got " +
                        TypeName(action));
}

nb::object ToPythonAction(const PythonRun& run, const Action& action) {
  const PythonClasses& classes = run.classes;
  const OrderSlots& s = Slots();
  auto order_object = [&](const Order& o) {
    const Market* market = run.find_market(o.market_id);
    // Order.__new__(Order) without the lookup of __new__ (Order defines
    // none: object's, which only allocates) nor __init__'s checks (the
    // engine's orders are valid).
    auto* type = reinterpret_cast<PyTypeObject*>(classes.order.ptr());
    nb::object empty = nb::steal(PyTuple_New(0));
    nb::object obj = nb::steal(type->tp_new(type, empty.ptr(), nullptr));
    if (!obj.is_valid()) throw nb::python_error();
    const bool plain = s.IsPlainOrder(obj);
    SetField(obj, s.agent_id, plain, nb::int_(o.agent_id));
    SetField(obj, s.market_id, plain, nb::int_(o.market_id));
    SetField(obj, s.is_buy, plain, nb::bool_(o.is_buy));
    SetField(obj, s.kind, plain, classes.kind(o.kind));
    SetField(obj, s.volume, plain, nb::int_(o.volume));
    SetField(obj, s.placed_at, plain,
             o.placed_at >= 0 ? nb::object(nb::int_(o.placed_at)) : nb::none());
    SetField(obj, s.price, plain, o.price ? PriceObject(market, *o.price) : nb::none());
    SetField(obj, s.order_id, plain,
             o.order_id >= 0 ? nb::object(nb::int_(o.order_id)) : nb::none());
    SetField(obj, s.ttl, plain, o.ttl ? nb::object(nb::int_(*o.ttl)) : nb::none());
    SetField(obj, s.is_canceled, plain, nb::bool_(false));
    return obj;
  };
  if (const auto* order = std::get_if<Order>(&action)) return order_object(*order);
  auto* type = reinterpret_cast<PyTypeObject*>(classes.cancel.ptr());
  if (type != s.cancel_type) return classes.cancel(order_object(std::get<Cancel>(action).order));
  nb::object empty = nb::steal(PyTuple_New(0));
  nb::object cancel = nb::steal(type->tp_new(type, empty.ptr(), nullptr));
  if (!cancel.is_valid()) throw nb::python_error();
  SetField(cancel, s.cancel_order, true, order_object(std::get<Cancel>(action).order));
  SetField(cancel, s.cancel_placed_at, true, nb::none());
  return cancel;
}

// ------------------------------------------------------------------ PyAgent

namespace {


template <typename Base>
class PyAgent final : public Base, public PythonAgentCalls {
 public:
  PyAgent(AgentInit init, std::shared_ptr<PythonAgentClass> cls, PythonRun* run)
      : Base(std::move(init)), cls_(std::move(cls)), run_(run) {}

  void Attach(nb::object self) { self_ = std::move(self); }

  // See base_set_up(): set once the built-in setup returned.
  bool base_set_up_ = false;

  void setup(const Settings& settings, std::span<const int> ids) override {
    if (!cls_->setup) {
      WithOwnPrng([&] { Base::setup(settings, ids); });
      base_set_up_ = true;
      return;
    }
    nb::gil_scoped_acquire gil;
    nb::list py_ids;
    for (int id : ids) py_ids.append(id);
    setup_.Run(settings, [&] {
      Call("setup", [&] {
        self_.attr("setup")(nb::arg("settings") = ToPython(settings.json()),
                            nb::arg("accessible_markets_ids") = py_ids);
      });
    });
  }

  // A built-in class's own submit_orders, when the Python class keeps it.
  bool has_cheap_submit_orders() const override {
    return !cls_->submit_orders &&
           (std::is_same_v<Base, FCNAgent> || std::is_same_v<Base, MarketShareFCNAgent> ||
            std::is_same_v<Base, TestAgent>);
  }

  // Each call in a worker starts from the main process's object (PAMS's
  // runner drops what the class does not list as synced), and the orders a
  // call returned travel back with its state.
  bool replicas_may_keep_state() const override { return false; }

  void submit_orders(Markets markets, std::vector<Action>* orders) override {
    if (!cls_->submit_orders) {
      CallBaseSubmitOrders(markets, orders);
      return;
    }
    nb::gil_scoped_acquire gil;
    if (!run_->is_worker) run_->mirror.Forget(this->agent_id());
    Call("submit_orders", [&] {
      nb::object result = self_.attr("submit_orders")(nb::arg("markets") = run_->markets);
      // A thread runner's call may have outlived the run's wait for it.
      CheckTaskNotAbandoned();
      TakeActions(result, orders);
    });
  }

  bool Batches() const override { return cls_->batches; }

  nb::object PrepareModelCalls(nb::handle as_calls) override {
    nb::object calls;
    Call("prepare_model_calls", [&] {
      nb::object result = self_.attr("prepare_model_calls")(nb::arg("markets") = run_->markets);
      calls = as_calls(result);
    });
    return calls;
  }

  void SubmitWithModelOutputs(nb::handle outputs, std::vector<Action>* orders) override {
    if (!run_->is_worker) run_->mirror.Forget(this->agent_id());
    Call("submit_orders_with_model_outputs", [&] {
      nb::object result = self_.attr("submit_orders_with_model_outputs")(
          nb::arg("markets") = run_->markets, nb::arg("outputs") = outputs);
      TakeActions(result, orders);
    });
  }

  // The engine's actions of what a Python submit_orders returned, appended
  // to *orders, with the Python objects mirrored (or, in a worker, kept to
  // go back with the agent's state).
  void TakeActions(nb::handle result, std::vector<Action>* orders) {
    {
      earlier_.clear();
      nb::list actions;
      for (nb::handle action : result) {
        orders->push_back(ToAction(run_->classes, action, earlier_));
        earlier_.push_back(action);
        if (run_->is_worker) {
          actions.append(action);
        } else {
          run_->mirror.Expect(this->agent_id(), action);
        }
      }
      earlier_.clear();
      // In a worker, the objects go back to the main process with the
      // agent's state (save_state), which mirrors them there.
      if (run_->is_worker) last_actions_ = actions;
    }
  }

  // The Python object's state (pams_cpp.runners._task_state) after the
  // engine's: to a worker the agent's fields, from a worker also the Order
  // and Cancel objects its submit_orders returned, pickled together so
  // that the fields and the orders the main process mirrors stay the same
  // objects.
  void save_state(StateWriter& out) const override {
    Base::save_state(out);
    nb::gil_scoped_acquire gil;
    nb::object blob;
    try {
      nb::object actions = run_->is_worker && last_actions_.is_valid() ? last_actions_
                                                                       : nb::list();
      blob = run_->classes.task_state_dumps()(self_, actions, run_->is_worker);
    } catch (nb::python_error& e) {
      // Raised from the run as it is (a KeyboardInterrupt stays one).
      StopWithPythonError(run_, e,
                          "sending the state of agent " + this->name() + " (" + cls_->name +
                              ") to a worker process (define __getstate__ to choose what "
                              "travels)");
    }
    out.write_string(std::string_view(PyBytes_AsString(blob.ptr()),
                                      static_cast<size_t>(PyBytes_Size(blob.ptr()))));
    last_actions_ = nb::object();
  }

  void load_state(StateReader& in) override {
    Base::load_state(in);
    const std::string blob = in.read_string();
    nb::gil_scoped_acquire gil;
    nb::object actions;
    try {
      actions = run_->classes.task_state_loads()(self_, nb::bytes(blob.data(), blob.size()),
                                                run_->find_order);
    } catch (nb::python_error& e) {
      StopWithPythonError(run_, e,
                          run_->is_worker
                              ? "loading, in a worker process, the state of agent " +
                                    this->name() + " (" + cls_->name + ") sent by the main process"
                              : "loading the state of agent " + this->name() + " (" +
                                    cls_->name + ") that a worker process sent back");
    }
    if (!run_->is_worker) {
      run_->mirror.Forget(this->agent_id());
      for (nb::handle action : actions) run_->mirror.Expect(this->agent_id(), action);
    }
  }

  void submitted_order(const OrderLog& log) override {
    if (!cls_->submitted_order) return;
    nb::gil_scoped_acquire gil;
    Call("submitted_order", [&] { self_.attr("submitted_order")(PythonLog(*run_, log)); });
  }

  void executed_order(const ExecutionLog& log) override {
    if (!cls_->executed_order) return;
    nb::gil_scoped_acquire gil;
    Call("executed_order", [&] { self_.attr("executed_order")(PythonLog(*run_, log)); });
  }

  void canceled_order(const CancelLog& log) override {
    if (!cls_->canceled_order) return;
    nb::gil_scoped_acquire gil;
    Call("canceled_order", [&] { self_.attr("canceled_order")(PythonLog(*run_, log)); });
  }

  void BaseSetup(nb::handle settings, const std::vector<int>& ids) override {
    const Settings& s = setup_.ForSuper(settings, this->name());
    WithOwnPrng([&] { Base::setup(s, ids); });
    base_set_up_ = true;
  }

  bool base_set_up() const override { return base_set_up_ || !this->hand_built(); }

  nb::list BaseSubmitOrders(const std::vector<const Market*>& markets) override {
    std::vector<Action> actions;
    CallBaseSubmitOrders(Markets(markets.data(), markets.size()), &actions);
    return ToList(actions);
  }

  nb::list BaseSubmitOrdersByMarket(const Market& market) override {
    if constexpr (std::is_base_of_v<FCNAgent, Base>) {
      RequireSetUp("submit_orders_by_market");
      std::vector<Action> actions;
      WithOwnPrng([&] { Base::submit_orders_by_market(market, &actions); });
      return ToList(actions);
    } else {
      throw SimulationError("submit_orders_by_market belongs to FCNAgent");
    }
  }

 private:
  void CallBaseSubmitOrders(Markets markets, std::vector<Action>* orders) {
    if constexpr (std::is_abstract_v<Base>) {
      throw SimulationError("class " + cls_->name + " does not define submit_orders");
    } else {
      RequireSetUp("submit_orders");
      WithOwnPrng([&] { Base::submit_orders(markets, orders); });
    }
  }

  // The built-in code reads what its setup set (see base_set_up()).
  // Agents of a runner are all set up before they are asked (and a
  // worker's replicas get their state, not a setup): only an agent built by
  // hand may be asked first.
  void RequireSetUp(const char* method) const {
    if (base_set_up_ || !this->hand_built()) return;
    throw SimulationError("agent " + this->name() + " (" + cls_->name + "): " + method +
                          " before setup; call its setup(settings, accessible_markets_ids) "
                          "first (PAMS's agent has no parameters before it either)");
  }

  // Runs f, the built-in class's code, which may draw from the agent's
  // generator. An agent built by hand draws from the random.Random it was
  // given (its Python prng), as PAMS's does: f then draws from that state.
  template <typename F>
  void WithOwnPrng(F&& f) {
    if (!this->hand_built()) {
      f();
      return;
    }
    nb::gil_scoped_acquire gil;
    nb::object prng = nb::getattr(self_, "prng", nb::none());
    DrawingFrom(prng, this->prng(), f);
  }

  nb::list ToList(const std::vector<Action>& actions) {
    nb::list out;
    for (const Action& a : actions) {
      out.append(ToPythonAction(*run_, a));
    }
    return out;
  }

  // Runs f, which calls Python. A Python error stops the run: it is kept
  // (to be raised from the run, with the user's traceback) with a note
  // naming the agent, the method and the step.
  template <typename F>
  void Call(const char* method, F&& f) {
    try {
      f();
    } catch (nb::python_error& e) {
      CheckTaskNotAbandoned();
      const int64_t t = this->simulator().time();
      StopWithPythonError(run_, e,
                          std::string("in ") + method + " of agent " + this->name() + " (" +
                              cls_->name + ")" +
                              (t >= 0 ? " at step " + std::to_string(t) : ""));
    }
  }

  std::shared_ptr<PythonAgentClass> cls_;
  PythonRun* run_;
  PythonSetup setup_;
  std::vector<nb::handle> earlier_;  // scratch of submit_orders(), borrowed
  // In a worker: the actions of the last submit_orders, until save_state.
  mutable nb::object last_actions_;
};

using Make = std::unique_ptr<Agent> (*)(AgentInit, std::shared_ptr<PythonAgentClass>,
                                        PythonRun*);

template <typename Base>
std::unique_ptr<Agent> MakeAgent(AgentInit init, std::shared_ptr<PythonAgentClass> cls,
                                 PythonRun* run) {
  auto agent = std::make_unique<PyAgent<Base>>(std::move(init), cls, run);
  // The Python object is made once the engine agent exists: its _engine is
  // the engine agent.
  nb::gil_scoped_acquire gil;
  try {
    agent->Attach(cls->maker(OwnedBy(static_cast<Agent*>(agent.get()), run->owner)));
  } catch (nb::python_error& e) {
    StopWithPythonError(run, e, "creating agent " + agent->name() + " (" + cls->name + ")");
  }
  return agent;
}

template <typename Base>
std::unique_ptr<Agent> MakeHandBuilt(AgentInit init, std::shared_ptr<PythonAgentClass> cls,
                                     PythonRun* run, nb::handle self) {
  auto agent = std::make_unique<PyAgent<Base>>(std::move(init), cls, run);
  agent->AttachBorrowed(self);
  return agent;
}

using MakeBorrowed = std::unique_ptr<Agent> (*)(AgentInit, std::shared_ptr<PythonAgentClass>,
                                                PythonRun*, nb::handle);

MakeBorrowed HandBuiltMakerFor(const std::string& base) {
  if (base == "Agent") return &MakeHandBuilt<Agent>;
  if (base == "HighFrequencyAgent") return &MakeHandBuilt<HighFrequencyAgent>;
  if (base == "FCNAgent") return &MakeHandBuilt<FCNAgent>;
  if (base == "MarketShareFCNAgent") return &MakeHandBuilt<MarketShareFCNAgent>;
  if (base == "ArbitrageAgent") return &MakeHandBuilt<ArbitrageAgent>;
  if (base == "MarketMakerAgent") return &MakeHandBuilt<MarketMakerAgent>;
  if (base == "TestAgent") return &MakeHandBuilt<TestAgent>;
  return nullptr;
}

Make MakerFor(const std::string& base) {
  if (base == "Agent") return &MakeAgent<Agent>;
  if (base == "HighFrequencyAgent") return &MakeAgent<HighFrequencyAgent>;
  if (base == "FCNAgent") return &MakeAgent<FCNAgent>;
  if (base == "MarketShareFCNAgent") return &MakeAgent<MarketShareFCNAgent>;
  if (base == "ArbitrageAgent") return &MakeAgent<ArbitrageAgent>;
  if (base == "MarketMakerAgent") return &MakeAgent<MarketMakerAgent>;
  if (base == "TestAgent") return &MakeAgent<TestAgent>;
  // The samples' classes (since PAMS's development branch).
  if (base == "DarkPoolFCNAgent") return &MakeAgent<DarkPoolFCNAgent>;
  if (base == "InvestDivFCNAgent") return &MakeAgent<InvestDivFCNAgent>;
  if (base == "CancelFCNAgent") return &MakeAgent<CancelFCNAgent>;
  if (base == "WorkloadFCNAgent") return &MakeAgent<WorkloadFCNAgent>;
  if (base == "BlackScholesWorkloadFCNAgent") return &MakeAgent<BlackScholesWorkloadFCNAgent>;
  return nullptr;
}


class PythonModelBatcher final : public ModelBatcher {
 public:
  explicit PythonModelBatcher(PythonRun* run) : run_(run) {}

  ~PythonModelBatcher() override {
    if (!Py_IsInitialized()) {
      // Interpreter gone: the references cannot be dropped.
      calls_.release();
      names_.release();
      outputs_.release();
      as_calls_.release();
      run_batch_.release();
      return;
    }
    nb::gil_scoped_acquire gil;
    calls_.reset();
    names_.reset();
    outputs_.reset();
    as_calls_.reset();
    run_batch_.reset();
  }

  bool batches(const Agent& agent) const override {
    const auto* p = dynamic_cast<const PythonAgentCalls*>(&agent);
    return p != nullptr && p->Batches();
  }

  void prepare(Agent& agent, Markets) override {
    nb::gil_scoped_acquire gil;
    if (!run_batch_.is_valid()) {
      nb::module_ m = nb::module_::import_("pams_cpp.agents.model_call");
      as_calls_ = m.attr("_as_calls");
      run_batch_ = m.attr("run_batch");
    }
    if (!calls_.is_valid()) {
      calls_ = nb::list();
      names_ = nb::list();
    }
    nb::object calls = PythonCallsOf(agent)->PrepareModelCalls(as_calls_);
    const size_t begin = nb::len(calls_);
    nb::str name(agent.name().c_str());
    for (nb::handle call : calls) {
      if (PyList_Append(calls_.ptr(), call.ptr()) != 0 ||
          PyList_Append(names_.ptr(), name.ptr()) != 0) {
        throw nb::python_error();
      }
    }
    entries_.push_back(Entry{&agent, begin, nb::len(calls_)});
    time_ = agent.simulator().time();
  }

  void call_models() override {
    nb::gil_scoped_acquire gil;
    if (!calls_.is_valid() || nb::len(calls_) == 0) return;
    try {
      outputs_ = run_batch_(calls_, names_);
    } catch (nb::python_error& e) {
      StopWithPythonError(run_, e,
                          "in the batched model calls of step " + std::to_string(time_));
    }
    if (nb::len(outputs_) != nb::len(calls_)) {
      throw SimulationError("run_batch returned " + std::to_string(nb::len(outputs_)) +
                            " outputs for " + std::to_string(nb::len(calls_)) + " calls");
    }
  }

  void submit(Agent& agent, Markets, std::vector<Action>* actions) override {
    nb::gil_scoped_acquire gil;
    // The agents come in prepare()'s order.
    while (next_ < entries_.size() && entries_[next_].agent != &agent) ++next_;
    if (next_ == entries_.size()) {
      throw SimulationError("agent " + agent.name() + " has no prepared model calls");
    }
    const Entry& e = entries_[next_++];
    nb::list outputs;
    for (size_t i = e.begin; i < e.end; ++i) outputs.append(nb::handle(outputs_)[i]);
    PythonCallsOf(agent)->SubmitWithModelOutputs(outputs, actions);
  }

  void clear() override {
    entries_.clear();
    next_ = 0;
    if (!calls_.is_valid() && !outputs_.is_valid()) return;
    nb::gil_scoped_acquire gil;
    calls_.reset();
    names_.reset();
    outputs_.reset();
  }

 private:
  struct Entry {
    Agent* agent;
    size_t begin, end;  // its calls in calls_
  };
  PythonRun* run_;
  nb::object as_calls_;   // pams_cpp.agents.model_call._as_calls
  nb::object run_batch_;  // pams_cpp.agents.model_call.run_batch
  nb::object calls_;      // list: the round's ModelCalls, agent after agent
  nb::object names_;      // list: the name of each call's agent
  nb::object outputs_;    // run_batch's list of outputs
  std::vector<Entry> entries_;
  size_t next_ = 0;
  int64_t time_ = 0;
};

}  // namespace

void RegisterPythonAgent(ClassRegistry* registry, PythonRun* run,
                         std::shared_ptr<PythonAgentClass> cls) {
  const Make make = MakerFor(cls->base);
  if (make == nullptr) {
    throw ConfigError("", "class " + cls->name + " derives from " + cls->base +
                              ", which pams_cpp cannot run Python subclasses of");
  }
  const std::string name = cls->name;
  registry->add_agent(name, [make, cls, run](AgentInit init) {
    return make(std::move(init), cls, run);
  });
}

std::unique_ptr<ModelBatcher> MakePythonModelBatcher(PythonRun* run) {
  return std::make_unique<PythonModelBatcher>(run);
}

std::unique_ptr<Agent> MakeHandBuiltAgent(AgentInit init, std::shared_ptr<PythonAgentClass> cls,
                                          PythonRun* run, nb::handle self) {
  const MakeBorrowed make = HandBuiltMakerFor(cls->base);
  if (make == nullptr) {
    throw nb::type_error(("class " + cls->name + " derives from " + cls->base +
                          ", which pams_cpp cannot build agents of")
                             .c_str());
  }
  return make(std::move(init), std::move(cls), run, self);
}

PythonAgentCalls* PythonCallsOf(Agent& agent) { return dynamic_cast<PythonAgentCalls*>(&agent); }

}  // namespace pams::python
