// The steps of a runner as Python calls them (PAMS's SequentialRunner's
// _generate_markets, ..., _collect_orders_from_normal_agents,
// _handle_orders, _iterate_market_updates): each runs the engine runner's
// public step (include/pams/runners/runner.h), the very code its run()
// runs, so that a program driving a simulation step by step gets run()'s
// results. What crosses to Python is PAMS's: lists of the Order and Cancel
// objects agents returned (the objects Python agents returned, new ones for
// the engine's agents), and PAMS's exceptions (AssertionError for orders in
// a session that takes none, ValueError for another agent's orders,
// NotImplementedError for what is neither an Order nor a Cancel).
//
// Tests of PAMS replace a built-in agent class's submit_orders at run time
// (unittest.mock.patch): a step given the Python runner calls what its
// _ask() returns for each agent the engine asks, and uses what that returns
// where it returns a list.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <optional>
#include <unordered_map>
#include <string>
#include <utility>
#include <vector>

#include "bindings/bindings.h"
#include "interop/arguments.h"
#include "interop/attr_names.h"
#include "interop/hand_built.h"
#include "interop/order_slots.h"
#include "interop/python_agents.h"
#include "interop/python_run.h"
#include "interop/values.h"
#include "pams/agents/agent.h"
#include "pams/errors.h"
#include "pams/runners/runner.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

// Runs a step: the engine's errors as PAMS's exceptions, a Python error a
// Python method raised meanwhile as itself.
template <typename F>
auto Step(nb::handle core, F&& f) -> decltype(f()) {
  PythonRun& run = PythonRunOf(core);
  if (!run.owner.is_valid()) run.owner = core;
  Runner& runner = EngineOfRunnerCore(core);
  runner.set_collect_sequentially(true);
  struct Restore {
    Runner& runner;
    ~Restore() {
      runner.set_collect_sequentially(false);
      runner.set_submit_orders_dispatch({});
      runner.set_keep_high_frequency_batches(false);
    }
  } restore{runner};
  auto raise_pending = [&] {
    if (run.pending.has_error()) run.pending.Raise();
  };
  try {
    if constexpr (std::is_void_v<decltype(f())>) {
      f();
      raise_pending();
    } else {
      auto result = f();
      raise_pending();
      return result;
    }
  } catch (const InvalidOrderError& e) {
    raise_pending();
    Raise(e.reason() == InvalidOrderError::Reason::kNotAccepted ? PyExc_AssertionError
                                                                 : PyExc_ValueError,
          e.what());
  } catch (const SimulationError&) {
    raise_pending();
    throw;
  }
}

// A Python error raised inside the engine: kept to be raised from the step
// (the engine turns exceptions into SimulationErrors on its way out).
[[noreturn]] void Stop(PythonRun& run, nb::python_error& e) {
  run.pending.Keep(e);
  throw SimulationError(e.what());
}

// Whether a method of a class was replaced at run time: for each (class,
// name, original) of `checks`, whether the class's own dict holds something
// else under the name now.
bool AnyMethodReplaced(nb::handle checks) {
  if (!PyList_Check(checks.ptr())) {
    throw nb::type_error("_any_method_replaced takes a list of (class, name, original)");
  }
  for (nb::handle check : checks) {
    if (!PyTuple_Check(check.ptr()) || PyTuple_GET_SIZE(check.ptr()) != 3 ||
        !PyType_Check(PyTuple_GET_ITEM(check.ptr(), 0))) {
      throw nb::type_error("_any_method_replaced takes (class, name, original) tuples");
    }
    PyObject* dict = reinterpret_cast<PyTypeObject*>(PyTuple_GET_ITEM(check.ptr(), 0))->tp_dict;
    PyObject* now =
        dict != nullptr ? PyDict_GetItemWithError(dict, PyTuple_GET_ITEM(check.ptr(), 1)) : nullptr;
    if (now == nullptr && PyErr_Occurred()) throw nb::python_error();
    // A missing name counts as replaced unless it was missing before.
    if (now != PyTuple_GET_ITEM(check.ptr(), 2) &&
        !(now == nullptr && PyTuple_GET_ITEM(check.ptr(), 2) == Py_None)) {
      return true;
    }
  }
  return false;
}

// The version tags of the checks' classes (see PythonRun::ask_versions),
// or nothing where a class has none: CPython gives one at a class's first
// attribute lookup through it, which a lookup here makes.
std::optional<std::vector<std::pair<PyTypeObject*, unsigned int>>> VersionsOf(
    nb::handle checks) {
  std::vector<std::pair<PyTypeObject*, unsigned int>> out;
  for (nb::handle check : checks) {
    auto* type = reinterpret_cast<PyTypeObject*>(PyTuple_GET_ITEM(check.ptr(), 0));
    if (!PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG)) {
      PyObject* found = PyObject_GetAttr(reinterpret_cast<PyObject*>(type),
                                         PyTuple_GET_ITEM(check.ptr(), 1));
      if (found == nullptr) PyErr_Clear();
      Py_XDECREF(found);
    }
    if (!PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG) || type->tp_version_tag == 0) {
      return std::nullopt;
    }
    out.emplace_back(type, type->tp_version_tag);
  }
  return out;
}

bool VersionsUnchanged(const std::vector<std::pair<PyTypeObject*, unsigned int>>& versions) {
  for (const auto& [type, tag] : versions) {
    if (!PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG) || type->tp_version_tag != tag) {
      return false;
    }
  }
  return true;
}

// What a step asks instead of a built-in agent's own code: `runner`'s
// _ask() (sequential.py), whose usual answer, None, is found here without
// a Python call (a hand-driven loop makes two steps a step). The method
// checks are those runner._method_checks builds for the simulation's
// objects, kept until objects are added; Python makes the call itself
// where a method was replaced. runner None: nothing to ask.
nb::object AskOf(PythonRun& run, const Simulator& simulator, nb::handle runner) {
  if (runner.is_none()) return nb::none();
  const std::array<size_t, 5> counts = ObjectCounts(simulator);
  if (!run.ask_checks.is_valid() || run.ask_counts != counts) {
    run.ask_checks = runner.attr("_method_checks")(
        nb::make_tuple(counts[0], counts[1], counts[2], counts[3], counts[4]));
    run.ask_counts = counts;
    run.ask_versions.reset();
  } else if (run.ask_versions && VersionsUnchanged(*run.ask_versions)) {
    return nb::none();
  }
  if (!AnyMethodReplaced(run.ask_checks)) {
    run.ask_versions = VersionsOf(run.ask_checks);
    return nb::none();
  }
  run.ask_versions.reset();
  return runner.attr("_ask")();
}

// Installs the dispatch for `ask` (see the file's comment): what ask
// returns for an agent, checked in PAMS's order (none: the agent has
// nothing to say; orders in a session that takes none; another agent's
// orders; objects that are neither Orders nor Cancels), then mirrored.
void InstallAsk(Runner& runner, PythonRun& run, nb::handle python_runner, Session& session,
                nb::handle owner) {
  nb::object keep = AskOf(run, runner.simulator(), python_runner);
  if (keep.is_none()) return;
  runner.set_submit_orders_dispatch(
      [&run, keep, &session, owner](Agent* agent, std::vector<Action>* actions) -> bool {
        nb::gil_scoped_acquire gil;
        try {
          nb::object result = keep(OwnedBy(agent, owner));
          if (result.is_none()) return false;
          std::vector<nb::handle> objects;
          for (nb::handle a : result) objects.push_back(a);
          if (objects.empty()) return true;
          if (!session.with_order_placement()) {
            Raise(PyExc_AssertionError, "currently order is not accepted");
          }
          for (nb::handle a : objects) {
            nb::object id = nb::getattr(a, Attrs().agent_id, nb::none());
            if (id.is_none() || !id.equal(nb::int_(agent->agent_id()))) {
              Raise(PyExc_ValueError,
                    "spoofing order is not allowed. please check agent_id in order");
            }
          }
          for (size_t i = 0; i < objects.size(); ++i) {
            nb::handle a = objects[i];
            if (!nb::isinstance(a, run.classes.order) && !nb::isinstance(a, run.classes.cancel)) {
              Raise(PyExc_NotImplementedError,
                    std::string("submit_orders must return Order and Cancel objects, got ") +
                        nb::str(nb::repr(a)).c_str());
            }
            actions->push_back(
                ToAction(run.classes, a, std::span<const nb::handle>(objects.data(), i)));
          }
          for (nb::handle a : objects) run.mirror.Expect(agent->agent_id(), a);
          return true;
        } catch (nb::python_error& e) {
          Stop(run, e);
        }
      });
}

// A list of n items to set (PyList_SET_ITEM).
nb::list NewList(size_t n) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(n));
  if (list == nullptr) throw nb::python_error();
  return nb::steal<nb::list>(list);
}

// The Python objects of the runner's batches (a list of each batch's):
// those the agents returned (the mirror expects them), else new ones for
// the engine's agents' actions. Kept in run.collected, unless an object's
// fields cannot be kept (an object of a subclass) or a cancel names an
// order of the same step by position (whose Python order is another
// object than the one in the lists).
nb::list BatchObjects(Runner& runner, PythonRun& run) {
  CollectedOrders& c = run.collected;
  c.Clear();
  bool keep = true;
  std::span<const Runner::Batch> batches = runner.batches();
  nb::list out = NewList(batches.size());
  for (size_t b = 0; b < batches.size(); ++b) {
    const Runner::Batch& batch = batches[b];
    std::vector<nb::object> objects =
        batch.agent != nullptr ? run.mirror.Take(batch.agent->agent_id(), batch.actions.size())
                               : std::vector<nb::object>{};
    nb::list list = NewList(batch.actions.size());
    c.lists.push_back(list);
    c.starts.push_back(c.objects.size());
    for (size_t i = 0; i < batch.actions.size(); ++i) {
      nb::object a = i < objects.size() ? objects[i] : ToPythonAction(run, batch.actions[i]);
      const Cancel* cancel = std::get_if<Cancel>(&batch.actions[i]);
      keep = keep && AppendFields(a, &c.fields) &&
             (cancel == nullptr || (cancel->same_batch_order < 0 && cancel->other_batch < 0));
      c.objects.push_back(a);
      PyList_SET_ITEM(list.ptr(), static_cast<Py_ssize_t>(i), a.release().ptr());
    }
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(b), list.release().ptr());
  }
  c.starts.push_back(c.objects.size());
  if (keep) {
    c.outer = out;
    c.batches_version = runner.batches_version();
  } else {
    c.Clear();
  }
  return out;
}

// A list or a tuple of iterable's items (iterable itself when it is one).
nb::object Sequence(nb::handle iterable, const char* what) {
  nb::object out = nb::steal(PySequence_Fast(iterable.ptr(), what));
  if (!out.is_valid()) throw nb::python_error();
  return out;
}

// PAMS processes the lists one after the other: an Order object in two of
// them is placed by the first and refused by the second ("the order is
// already submitted"). Refused here before any is processed (the same
// object twice in one list is ToAction's to refuse; a Cancel twice is
// processed twice, as in PAMS).
void RefuseOrdersInTwoLists(const HandedLists& h, const PythonRun& run) {
  std::unordered_map<PyObject*, size_t> list_of;
  for (size_t b = 0; b < h.size(); ++b) {
    for (nb::handle a : h.objects_of(b)) {
      if (!nb::isinstance(a, run.classes.order)) continue;
      auto [it, added] = list_of.emplace(a.ptr(), b);
      if (!added && it->second != b) {
        Raise(PyExc_ValueError,
              "the order is already submitted (the same Order object is in lists " +
                  std::to_string(it->second) + " and " + std::to_string(b) +
                  " of local_orders; make one Order object per order)");
      }
    }
  }
}

// Reads local_orders into h, then h's lists into the runner's batches,
// each object expected by the mirror (the market updates the very object).
void FillBatches(Runner& runner, PythonRun& run, nb::handle local_orders, HandedLists* h) {
  nb::object outer = Sequence(local_orders, "local_orders must be a list of lists of orders");
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(outer.ptr()); ++i) {
    nb::handle list = PySequence_Fast_GET_ITEM(outer.ptr(), i);
    h->lists.push_back(nb::borrow(list));
    h->sequences.push_back(Sequence(list, "each of local_orders must be a list of orders"));
    h->starts.push_back(h->objects.size());
    PyObject* seq = h->sequences.back().ptr();
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); ++k) {
      h->objects.push_back(PySequence_Fast_GET_ITEM(seq, k));
    }
  }
  h->starts.push_back(h->objects.size());
  std::span<Runner::Batch> batches = runner.reset_batches(h->size());
  run.mirror.ForgetAll();
  // A cancel of an order in another list (PAMS processes the lists in
  // shuffled order: the order must come first) names it by position.
  auto find_elsewhere = [&](nb::handle order, size_t own, Cancel* cancel) {
    for (size_t b = 0; b < h->size(); ++b) {
      if (b == own) continue;
      std::span<const nb::handle> objects = h->objects_of(b);
      for (size_t i = 0; i < objects.size(); ++i) {
        if (objects[i].is(order)) {
          cancel->other_batch = static_cast<int32_t>(b);
          cancel->same_batch_order = static_cast<int32_t>(i);
          return true;
        }
      }
    }
    return false;
  };
  // What is neither an Order nor a Cancel first (PAMS raises
  // NotImplementedError for it, whichever list it is in).
  for (nb::handle a : h->objects) {
    if (!nb::isinstance(a, run.classes.order) && !nb::isinstance(a, run.classes.cancel)) {
      Raise(PyExc_NotImplementedError,
            std::string("an order list holds something that is neither an Order nor a "
                        "Cancel: ") +
                nb::str(nb::repr(a)).c_str());
    }
  }
  RefuseOrdersInTwoLists(*h, run);
  for (size_t b = 0; b < h->size(); ++b) {
    std::span<const nb::handle> objects = h->objects_of(b);
    Runner::Batch& batch = batches[b];
    for (size_t i = 0; i < objects.size(); ++i) {
      nb::handle a = objects[i];
      if (nb::isinstance(a, run.classes.cancel)) {
        const OrderSlots& s = Slots();
        nb::object order = GetField(a, s.cancel_order, s.IsPlainCancel(a));
        bool in_own = false;
        for (size_t k = 0; k < i; ++k) in_own = in_own || objects[k].is(order);
        Cancel cancel;
        if (!in_own && nb::isinstance(order, run.classes.order) &&
            GetField(order, s.order_id, s.IsPlainOrder(order)).is_none() &&
            find_elsewhere(order, b, &cancel)) {
          cancel.order = std::get<Order>(ToAction(run.classes, order, {}));
          batch.actions.push_back(cancel);
          if (batch.agent == nullptr) batch.agent = runner.simulator().find_agent(cancel.agent_id());
          continue;
        }
      }
      try {
        batch.actions.push_back(ToAction(run.classes, a, objects.first(i)));
      } catch (const SimulationError& e) {
        // An order submitted before, a cancel of an unknown order: PAMS's
        // market refuses them with a ValueError.
        Raise(PyExc_ValueError, e.what());
      }
      if (batch.agent == nullptr) {
        const int id = ActionAgentId(batch.actions.back());
        batch.agent = runner.simulator().find_agent(id);
        if (batch.agent == nullptr) {
          run.mirror.ForgetAll();
          PyErr_SetObject(PyExc_KeyError, nb::int_(id).ptr());
          throw nb::python_error();
        }
      }
    }
    for (nb::handle a : objects) {
      run.mirror.Expect(ActionAgentId(batch.actions.front()), a);
    }
  }
}

// Whether local_orders is what the last collection returned (the same
// lists of the same objects, each with the same fields), and the runner
// still holds its batches (any step that replaces them changes their
// version; handling them forgets the collection): then they are the
// lists' actions.
bool SameAsCollected(const PythonRun& run, const Runner& runner, nb::handle local_orders) {
  const CollectedOrders& c = run.collected;
  PyObject* outer = local_orders.ptr();
  if (outer != c.outer.ptr() || c.batches_version != runner.batches_version() ||
      !PyList_CheckExact(outer) || static_cast<size_t>(PyList_GET_SIZE(outer)) != c.lists.size()) {
    return false;
  }
  size_t at = 0;
  for (size_t b = 0; b < c.lists.size(); ++b) {
    PyObject* list = PyList_GET_ITEM(outer, static_cast<Py_ssize_t>(b));
    const size_t n = c.starts[b + 1] - c.starts[b];
    if (list != c.lists[b].ptr() || !PyList_CheckExact(list) ||
        static_cast<size_t>(PyList_GET_SIZE(list)) != n) {
      return false;
    }
    for (size_t i = 0; i < n; ++i) {
      PyObject* a = PyList_GET_ITEM(list, static_cast<Py_ssize_t>(i));
      if (a != c.objects[c.starts[b] + i].ptr() || !SameFields(a, c.fields, &at)) return false;
    }
  }
  return true;
}

// The mirror expects the objects of the lists the last collection
// returned, their batches kept as collected (see SameAsCollected).
void ExpectCollected(Runner& runner, PythonRun& run) {
  const CollectedOrders& c = run.collected;
  std::span<Runner::Batch> batches = runner.batches();
  run.mirror.ForgetAll();
  for (size_t b = 0; b < c.lists.size(); ++b) {
    const int agent_id = ActionAgentId(batches[b].actions.front());
    for (size_t i = c.starts[b]; i < c.starts[b + 1]; ++i) run.mirror.Expect(agent_id, c.objects[i]);
  }
}

// Appends the high-frequency agents' lists of this step (copies of the
// engine's actions) to out.
void AppendHighFrequencyLists(const Runner& runner, const PythonRun& run, nb::list& out) {
  for (const Runner::Batch& b : runner.hf_batches()) {
    nb::list list;
    for (const Action& a : b.actions) list.append(ToPythonAction(run, a));
    out.append(list);
  }
}

// The kind of a pending setup as _runner_pending_setups names it.
const char* PendingSetupKind(Runner::PendingSetupView::Kind kind) {
  using Kind = Runner::PendingSetupView::Kind;
  switch (kind) {
    case Kind::kMarket: return "market";
    case Kind::kAgent: return "agent";
    case Kind::kSession: return "session";
    case Kind::kEvent: return "event";
    case Kind::kEventHooks: return "event_hooks";
    case Kind::kTransactionFee: return "transaction_fee";
  }
  return "";
}

// _runner_collect_orders: the normal agents' lists of this step.
nb::list CollectOrders(nb::handle core, Session& session, nb::handle python_runner) {
  Runner& runner = EngineOfRunnerCore(core);
  PythonRun& run = PythonRunOf(core);
  return Step(core, [&] {
    InstallAsk(runner, run, python_runner, session, core);
    runner.collect_orders(session);
    nb::list out = BatchObjects(runner, run);
    run.mirror.ForgetAll();
    return out;
  });
}

// _runner_handle_orders: processes local_orders, returns PAMS's all_orders.
nb::list HandleOrders(nb::handle core, Session& session, nb::handle local_orders,
                      nb::handle python_runner) {
  Runner& runner = EngineOfRunnerCore(core);
  PythonRun& run = PythonRunOf(core);
  const bool as_collected = SameAsCollected(run, runner, local_orders);
  return Step(core, [&] {
    struct Clear {
      PythonRun& run;
      ~Clear() {
        run.handed.Clear();
        run.collected.Clear();
      }
    } clear{run};
    if (as_collected) {
      ExpectCollected(runner, run);
    } else {
      FillBatches(runner, run, local_orders, &run.handed);
    }
    InstallAsk(runner, run, python_runner, session, core);
    runner.set_keep_high_frequency_batches(true);
    runner.handle_orders(session);
    const std::vector<nb::object>& lists = as_collected ? run.collected.lists : run.handed.lists;
    nb::list out;
    for (uint32_t i : runner.handled_batch_order()) out.append(lists[i]);
    AppendHighFrequencyLists(runner, run, out);
    run.mirror.ForgetAll();
    return out;
  });
}

// A step's session argument. Raises TypeError naming the step for
// anything else.
Session& SessionArg(nb::handle session, const char* step) {
  if (!nb::isinstance<Session>(session)) {
    RaiseArgument(PyExc_TypeError, (std::string(step) + ": session").c_str(),
                  "a Session of the runner's simulator", session);
  }
  return nb::cast<Session&>(session);
}

// A step's local_orders: a list (or another sequence) of lists of Order
// and Cancel objects. Raises TypeError naming the step for anything else
// (PAMS's sample() raises a TypeError for None too).
void CheckLocalOrders(nb::handle local_orders) {
  if (!PySequence_Check(local_orders.ptr()) || PyUnicode_Check(local_orders.ptr()) ||
      PyBytes_Check(local_orders.ptr())) {
    RaiseArgument(PyExc_TypeError, "SequentialRunner._handle_orders: local_orders",
                  "a list of lists of Order and Cancel objects", local_orders);
  }
}

// Whether the steps of a runner (its _core) call the engine directly: what
// sequential.py's _step does besides has nothing to do (take the state of a
// random.Random not bound to the engine, hand the simulator's markets to
// the engine for the objects it holds now).
bool DirectSteps(nb::handle core) {
  PythonRun& run = PythonRunOf(core);
  return run.prng_is_engine && run.markets.is_valid() &&
         run.markets_counts == ObjectCounts(EngineOfRunnerCore(core).simulator());
}

}  // namespace

void BindRunnerSteps(nb::module_& m) {
  // Python's _ask() asks this of every built-in agent class its agents use
  // (the Python loop it replaces cost more than the rest of the step's
  // Python layer).
  m.def("_any_method_replaced", [](nb::handle checks) { return AnyMethodReplaced(checks); });
  m.def("_runner_context", [](nb::handle core) {
    Runner& runner = EngineOfRunnerCore(core);
    return nb::cast(new SimulationContext(&runner.simulator(), &PythonRunOf(core), core),
                    nb::rv_policy::take_ownership);
  });
  // The runner's generator (a random.Random over it draws from it).
  m.def("_runner_generator", [](nb::handle core) {
    return OwnedBy(&EngineOfRunnerCore(core).generator(), core);
  });
  m.def("_runner_generate_markets",
        [](nb::handle core, const std::vector<std::string>& groups) {
          Step(core, [&] { EngineOfRunnerCore(core).generate_markets(groups); });
        });
  m.def("_runner_set_fundamental_correlation", [](nb::handle core) {
    Step(core, [&] { EngineOfRunnerCore(core).set_fundamental_correlation(); });
  });
  m.def("_runner_generate_agents", [](nb::handle core, const std::vector<std::string>& groups) {
    Step(core, [&] { EngineOfRunnerCore(core).generate_agents(groups); });
  });
  m.def("_runner_generate_sessions",
        [](nb::handle core) { Step(core, [&] { EngineOfRunnerCore(core).generate_sessions(); }); });
  // (kind, engine object, settings, accessible market ids) of each pending
  // setup; kind: "market", "agent", "session", "event", "event_hooks" or
  // "transaction_fee".
  m.def("_runner_pending_setups", [](nb::handle core) {
    Runner& runner = EngineOfRunnerCore(core);
    nb::handle owner = core;
    nb::list out;
    for (const Runner::PendingSetupView& p : runner.pending_setups()) {
      using Kind = Runner::PendingSetupView::Kind;
      nb::object object;
      switch (p.kind) {
        case Kind::kMarket:
        case Kind::kTransactionFee:
          object = PythonRunOf(core).MarketObject(*static_cast<Market*>(p.object));
          break;
        case Kind::kAgent:
          object = OwnedBy(static_cast<Agent*>(p.object), owner);
          break;
        case Kind::kSession:
          object = OwnedBy(static_cast<Session*>(p.object), owner);
          break;
        case Kind::kEvent:
        case Kind::kEventHooks:
          object = OwnedBy(static_cast<Event*>(p.object), owner);
          break;
      }
      out.append(nb::make_tuple(PendingSetupKind(p.kind), object,
                                p.settings != nullptr ? ToPython(*p.settings) : nb::none(),
                                nb::cast(p.accessible_market_ids)));
    }
    return out;
  });
  m.def("_runner_run_pending_setups", [](nb::handle core) {
    Step(core, [&] { EngineOfRunnerCore(core).run_pending_setups(); });
  });
  m.def("_runner_collect_orders", &CollectOrders, nb::arg("core"), nb::arg("session"),
        nb::arg("runner").none());
  // Processes local_orders (lists of Order and Cancel objects, one per
  // agent), returns PAMS's all_orders: them in the order processed, then
  // the high-frequency agents' (copies of the engine's).
  m.def("_runner_handle_orders", &HandleOrders, nb::arg("core"), nb::arg("session"),
        nb::arg("local_orders"), nb::arg("runner").none());
  // SequentialRunner's _collect_orders_from_normal_agents and
  // _handle_orders as C++ methods of the Python runner (sequential.py puts
  // them in its class): a hand-driven loop calls both at every step, and
  // the Python method around each step cost it a tenth of its time. A
  // runner whose generator is not the engine's, or whose simulator has
  // not handed its markets yet, takes its Python _step.
  m.def(
      "_collect_orders_from_normal_agents",
      [](nb::handle self, nb::handle session) -> nb::object {
        nb::object core = self.attr(Attrs().core);
        if (!nb::isinstance<Session>(session)) {
          // PAMS asks no agent (and reads no session) when there is none.
          if (EngineOfRunnerCore(core).simulator().normal_frequency_agents().empty()) {
            return nb::list();
          }
          SessionArg(session, "SequentialRunner._collect_orders_from_normal_agents");
        }
        if (!DirectSteps(core)) return self.attr("_collect_orders_by_step")(session);
        return CollectOrders(core, nb::cast<Session&>(session), self);
      },
      nb::is_method(), nb::arg("session").none(),
      nb::sig("def _collect_orders_from_normal_agents(self, session) -> list"),
      "Asks the normal agents, in shuffled order, for orders until "
      "session.max_normal_orders of them returned some; returns their lists.");
  m.def(
      "_handle_orders",
      [](nb::handle self, nb::handle session, nb::handle local_orders) -> nb::object {
        nb::object core = self.attr(Attrs().core);
        CheckLocalOrders(local_orders);
        if (!nb::isinstance<Session>(session)) {
          // PAMS reads the session only for the orders of a list.
          if (PySequence_Size(local_orders.ptr()) == 0) return nb::list();
          SessionArg(session, "SequentialRunner._handle_orders");
        }
        if (!DirectSteps(core)) return self.attr("_handle_orders_by_step")(session, local_orders);
        return HandleOrders(core, nb::cast<Session&>(session), local_orders, self);
      },
      nb::is_method(), nb::arg("session").none(), nb::arg("local_orders").none(),
      nb::sig("def _handle_orders(self, session, local_orders) -> list"),
      "Processes the lists in shuffled order, each followed by the high-frequency agents' "
      "turn when the session's rate draws it; returns the lists processed (high-frequency "
      "agents' last).");
  m.def("_runner_handle_high_frequency_orders",
        [](nb::handle core, Session& session, nb::handle python_runner) {
          Runner& runner = EngineOfRunnerCore(core);
          PythonRun& run = PythonRunOf(core);
          return Step(core, [&] {
            InstallAsk(runner, run, python_runner, session, core);
            runner.set_keep_high_frequency_batches(true);
            runner.handle_high_frequency_orders(session);
            nb::list out;
            AppendHighFrequencyLists(runner, run, out);
            run.mirror.ForgetAll();
            return out;
          });
        }, nb::arg("core"), nb::arg("session"), nb::arg("runner").none());
  m.def("_runner_process_order", [](nb::handle core, Session& session, nb::handle order) {
    Runner& runner = EngineOfRunnerCore(core);
    PythonRun& run = PythonRunOf(core);
    Step(core, [&] {
      if (!nb::isinstance(order, run.classes.order) && !nb::isinstance(order, run.classes.cancel)) {
        throw nb::type_error(("_process_order takes an Order or a Cancel, got " +
                              std::string(nb::str(nb::repr(order)).c_str()))
                                 .c_str());
      }
      Action action;
      try {
        action = ToAction(run.classes, order, {});
      } catch (const SimulationError& e) {
        // An order submitted before, a cancel of an order never placed, a
        // field of the wrong kind: PAMS's market refuses them with a
        // ValueError (as _handle_orders does).
        Raise(PyExc_ValueError, e.what());
      }
      if (!session.with_order_placement()) {
        Raise(PyExc_AssertionError, "currently order is not accepted");
      }
      run.mirror.ExpectNext(ActionAgentId(action), order);
      try {
        runner.process_order(session, action);
      } catch (...) {
        run.mirror.Unexpect(ActionAgentId(action), order);
        throw;
      }
    });
  });
  m.def("_runner_update_markets", [](nb::handle core, Session& session, nb::handle python_runner) {
    Runner& runner = EngineOfRunnerCore(core);
    Step(core, [&] {
      InstallAsk(runner, PythonRunOf(core), python_runner, session, core);
      runner.update_markets(session);
    });
  }, nb::arg("core"), nb::arg("session"), nb::arg("runner").none());
  m.def("_runner_iterate_market_updates", [](nb::handle core, Session& session, nb::handle python_runner) {
    Runner& runner = EngineOfRunnerCore(core);
    Step(core, [&] {
      InstallAsk(runner, PythonRunOf(core), python_runner, session, core);
      runner.iterate_market_updates(session);
    });
  }, nb::arg("core"), nb::arg("session"), nb::arg("runner").none());
}

}  // namespace pams::python
