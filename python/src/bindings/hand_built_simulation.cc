// The binding of SimulationContext (interop/hand_built.h), the simulation of
// objects built by hand, and pams_cpp.Simulator's methods over it (_add_*, _trigger_event_*,
// _update_times_on_markets, ...), the engine's code for each.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bindings/binding_helpers.h"
#include "bindings/bindings.h"
#include "interop/arguments.h"
#include "interop/attr_names.h"
#include "interop/hand_built.h"
#include "interop/python_agents.h"
#include "interop/python_events.h"
#include "interop/python_markets.h"
#include "interop/python_run.h"
#include "interop/values.h"
#include "pams/agents/agent.h"
#include "pams/agents/arbitrage_agent.h"
#include "pams/errors.h"
#include "pams/events/event.h"
#include "pams/market/fundamentals.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/market/order_book.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

int ContextTraverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  // The instance dict (dynamic attributes) holds the Python simulator.
  PyObject** dict = _PyObject_GetDictPtr(self);
  if (dict != nullptr) Py_VISIT(*dict);
  return nb::inst_ptr<SimulationContext>(self)->Traverse(visit, arg);
}

int ContextClear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<SimulationContext>(self)->Clear();
  PyObject** dict = _PyObject_GetDictPtr(self);
  if (dict != nullptr) Py_CLEAR(*dict);
  return 0;
}

PyType_Slot context_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(&ContextTraverse)},
                               {Py_tp_clear, reinterpret_cast<void*>(&ContextClear)},
                               {0, nullptr}};

// Moves `markets` (a range of Market* or of the simulator's Held<Market>)
// with the engine's `update`, raising PAMS's exceptions: before anything
// moves, those of an index market whose components give no index (see
// CheckComponents; cheap, as a hand-driven loop moves the markets every
// step); after the engine failed, PAMS's KeyError for a market the
// Fundamentals do not know (its self.fundamentals.prices[market_id]), else
// the engine's error.
template <typename Markets, typename F>
void MoveMarkets(SimulationContext& c, const Markets& markets, const char* method, F&& update) {
  for (const auto& m : markets) {
    if (const auto* index = dynamic_cast<const IndexMarket*>(&*m)) {
      CheckComponents(*index, method);
    }
  }
  try {
    c.Engine(update);
  } catch (const SimulationError&) {
    for (const auto& m : markets) {
      if (dynamic_cast<const IndexMarket*>(&*m) == nullptr &&
          !c.simulator().fundamentals().has_market(m->market_id())) {
        PyErr_SetObject(PyExc_KeyError, nb::int_(m->market_id()).ptr());
        throw nb::python_error();
      }
    }
    throw;
  }
}

// PAMS's Simulator._update_times_on_markets(markets).
void UpdateTimesOnMarkets(SimulationContext& c, nb::handle markets) {
  constexpr const char* kMethod = "Simulator._update_times_on_markets";
  Simulator& sim = c.simulator();
  bool all_in_step =
      markets.is(c.run().markets) && nb::len(markets) == sim.market_objects().size();
  for (const auto& m : sim.market_objects()) {
    all_in_step = all_in_step && m->get_time() == sim.time();
  }
  if (all_in_step) {
    // The simulator's own list (what a loop driven by hand passes every
    // step): every market, as the runner moves them.
    MoveMarkets(c, sim.market_objects(), kMethod, [&] { c.simulator().update_times_on_markets(); });
    return;
  }
  if (markets.is_none() || !nb::hasattr(markets, "__iter__")) {
    RaiseArgument(PyExc_TypeError, "Simulator._update_times_on_markets: markets",
                  "a list of Markets", markets);
  }
  std::vector<Market*> list;
  for (nb::handle market : markets) list.push_back(&MarketArg(market));
  MoveMarkets(c, list, kMethod, [&] { c.simulator().update_times_on_markets(list); });
}

// PAMS's Simulator._trigger_event_before_step_for_market(market) (before)
// and _trigger_event_after_step_for_market(market).
void TriggerStepForMarket(SimulationContext& c, nb::handle market, bool before) {
  Market& m = MarketArg(market, before ? "Simulator._trigger_event_before_step_for_market: market"
                                       : "Simulator._trigger_event_after_step_for_market: market");
  c.Engine([&] {
    if (before) {
      c.simulator().trigger_before_step_for_market(m);
    } else {
      c.simulator().trigger_after_step_for_market(m);
    }
  });
}

// The context of a pams_cpp.simulator.Simulator (its _context).
SimulationContext& ContextOfSimulator(nb::handle simulator) {
  return nb::cast<SimulationContext&>(simulator.attr(Attrs().context));
}

void BindContext(nb::module_& m) {
  nb::class_<SimulationContext>(m, "SimulationContext", nb::dynamic_attr(),
                                nb::type_slots(context_slots))
      .def(
          "__init__",
          [](SimulationContext* self, const std::vector<uint32_t>& mt, uint32_t index,
             std::optional<double> gauss) {
            new (self) SimulationContext(ToRandomState(mt, index, gauss));
          },
          nb::arg("mt"), nb::arg("index"), nb::arg("gauss_next").none())
      .def_prop_ro("simulator",
                   [](nb::handle self) {
                     return OwnedBy(&nb::cast<SimulationContext&>(self).simulator(), self);
                   })
      .def_prop_ro("owns_simulation", &SimulationContext::owns_simulation)
      // The simulator's generator after the Fundamentals drew their seed,
      // as (words, index, gauss_next), for the random.Random it came from.
      .def("prng_state",
           [](SimulationContext& c) {
             const Random::State s = c.simulator().prng().getstate();
             return nb::make_tuple(std::vector<uint32_t>(s.mt.begin(), s.mt.end()), s.index,
                                   s.has_gauss_next ? nb::object(nb::float_(s.gauss_next))
                                                    : nb::none());
           })
      // What the engine hands Python code: the simulator's markets (a
      // list) and the Python Simulator.
      .def("set_python_objects",
           [](SimulationContext& c, nb::object markets, nb::object simulator) {
             c.run().markets = std::move(markets);
             c.run().markets_counts = ObjectCounts(c.simulator());
             c.run().simulator_object = std::move(simulator);
           },
           nb::arg("markets"), nb::arg("simulator"))
      .def(
          "new_market",
          [](nb::handle self, nb::handle cls, int market_id, const std::vector<uint32_t>& mt,
             uint32_t index, std::optional<double> gauss, const std::string& name,
             nb::handle logger) {
            SimulationContext& c = nb::cast<SimulationContext&>(self);
            auto info = std::make_shared<PythonMarketClass>();
            info->name = nb::cast<std::string>(cls.attr("__name__"));
            const bool index_market =
                PyObject_IsSubclass(cls.ptr(), nb::type<IndexMarket>().ptr()) == 1;
            info->base = index_market ? "IndexMarket" : "Market";
            info->cls = nb::borrow(cls);
            nb::handle builtin = index_market ? nb::type<IndexMarket>() : nb::type<Market>();
            info->setup = !cls.attr("setup").is(builtin.attr("setup"));
            MarketInit init{.market_id = market_id, .prng = Random()};
            init.prng.setstate(ToRandomState(mt, index, gauss));
            init.simulator = &c.simulator();
            init.name = name;
            init.logger = c.MarketLoggerFor(logger);
            init.class_name = info->name;
            nb::object market = NewHandBuiltMarket(std::move(init), info, &c.run());
            c.NoteMarket(nb::inst_ptr<Market>(market));
            market.attr("_context") = nb::borrow(self);
            return market;
          },
          nb::arg("cls"), nb::arg("market_id"), nb::arg("mt"), nb::arg("index"),
          nb::arg("gauss_next").none(), nb::arg("name"), nb::arg("logger").none())
      .def(
          "new_agent",
          [](nb::handle self, nb::handle agent, const PythonAgentClass& cls, int agent_id,
             const std::vector<uint32_t>& mt, uint32_t index, std::optional<double> gauss,
             const std::string& name) {
            SimulationContext& c = nb::cast<SimulationContext&>(self);
            AgentInit init{.agent_id = agent_id, .prng = Random()};
            init.prng.setstate(ToRandomState(mt, index, gauss));
            init.simulator = &c.simulator().view();
            init.name = name;
            init.class_name = cls.name;
            std::unique_ptr<Agent> engine = MakeHandBuiltAgent(
                std::move(init), std::make_shared<PythonAgentClass>(cls), &c.run(), agent);
            if (auto* part = dynamic_cast<PythonPart*>(engine.get())) {
              part->KeepWhileAlive(c.shared(), {});
            }
            nb::object out = nb::inst_take_ownership(nb::type<Agent>(), engine.release());
            out.attr("_context") = nb::borrow(self);
            return out;
          },
          nb::arg("agent"), nb::arg("cls"), nb::arg("agent_id"), nb::arg("mt"), nb::arg("index"),
          nb::arg("gauss_next").none(), nb::arg("name"))
      .def(
          "new_event",
          [](nb::handle self, nb::handle event, const PythonEventClass& cls, int event_id,
             const std::vector<uint32_t>& mt, uint32_t index, std::optional<double> gauss,
             nb::handle session_object, const std::string& name) {
            Session& session = nb::cast<Session&>(session_object);
            SimulationContext& c = nb::cast<SimulationContext&>(self);
            EventInit init{.event_id = event_id, .prng = Random()};
            init.prng.setstate(ToRandomState(mt, index, gauss));
            init.session = &session;
            init.simulator = &c.simulator();
            init.name = name;
            init.class_name = cls.name;
            std::unique_ptr<Event> engine = MakeHandBuiltEvent(
                std::move(init), std::make_shared<PythonEventClass>(cls), &c.run(), event);
            if (auto* part = dynamic_cast<PythonPart*>(engine.get())) {
              part->KeepWhileAlive(c.shared(), {});
            }
            nb::object out = nb::inst_take_ownership(nb::type<Event>(), engine.release());
            out.attr("_context") = nb::borrow(self);
            // The engine event refers to its session: it lives as long (the
            // Python event's own `session` attribute may be set to another).
            out.attr("_session_object") = session_object;
            return out;
          },
          nb::arg("event"), nb::arg("cls"), nb::arg("event_id"), nb::arg("mt"), nb::arg("index"),
          nb::arg("gauss_next").none(), nb::arg("session"), nb::arg("name"))
      .def(
          "new_session",
          [](nb::handle self, nb::handle cls, int session_id, const std::vector<uint32_t>& mt,
             uint32_t index, std::optional<double> gauss, int64_t start,
             const std::string& name) {
            SimulationContext& c = nb::cast<SimulationContext&>(self);
            Random prng;
            prng.setstate(ToRandomState(mt, index, gauss));
            nb::object out = nb::inst_take_ownership(
                cls, new Session(session_id, std::move(prng), start, &c.simulator(), name));
            out.attr("_context") = nb::borrow(self);
            return out;
          },
          nb::arg("cls"), nb::arg("session_id"), nb::arg("mt"), nb::arg("index"),
          nb::arg("gauss_next").none(), nb::arg("session_start_time"), nb::arg("name"))
      // --- PAMS's Simulator._add_* (the Python side checks PAMS's rules
      // first and keeps the objects alive).
      .def(
          "add_market",
          [](SimulationContext& c, nb::handle market, const std::string& group) {
            c.simulator().add_market_borrowed(&MarketArg(market), group);
          },
          nb::arg("market"), nb::arg("group"))
      .def(
          "add_agent",
          [](SimulationContext& c, nb::handle agent, const std::string& group) {
            c.simulator().add_agent_borrowed(&EngineOf<Agent>(agent, "an Agent"), group);
          },
          nb::arg("agent"), nb::arg("group"))
      .def(
          "add_session",
          [](SimulationContext& c, Session& session) {
            c.simulator().add_session_borrowed(&session);
          },
          nb::arg("session"))
      .def(
          "add_event_hook",
          [](SimulationContext& c, nb::handle hook) {
            Event& e = EngineOf<Event>(hook.attr("event"), "an event");
            // The hook is read (and refused) before anything is added: the
            // simulator must not keep an event whose hook it refused.
            EventHook engine = ToEngineHook(hook, &e);
            bool known = false;
            for (const auto& added : c.simulator().events()) known = known || added.get() == &e;
            if (!known) c.simulator().add_event_borrowed(&e);
            c.simulator().add_event_hook(std::move(engine));
          },
          nb::arg("hook").none())
      .def("event_hook_count",
           [](const SimulationContext& c) { return c.simulator().event_hooks().size(); })
      // (markets, agents, sessions, events, event hooks): what the simulator
      // holds so far, in one call, for the Python lists made from them
      // (read at every Simulator.markets: a hand-driven loop reads it each
      // step).
      .def("objects_key",
           [](const SimulationContext& c) {
             const std::array<size_t, 5> n = ObjectCounts(c.simulator());
             return nb::make_tuple(n[0], n[1], n[2], n[3], n[4]);
           })
      // Engine hooks as (event, hook_type, is_before, time, specific_class
      // ("Market", "IndexMarket" or None), specific_instance market or None).
      .def(
          "event_hook",
          [](nb::handle self, size_t i) {
            SimulationContext& c = nb::cast<SimulationContext&>(self);
            const auto& hooks = c.simulator().event_hooks();
            if (i >= hooks.size()) throw nb::index_error();
            const EventHook& h = hooks[i];
            static const char* const kTypes[] = {"order", "cancel", "execution", "session",
                                                 "market"};
            nb::object time = h.time ? nb::cast(*h.time) : nb::none();
            nb::object cls = nb::none();
            if (h.specific_class == &IsMarketOfClass<IndexMarket>) {
              cls = nb::str("IndexMarket");
            } else if (h.specific_class != nullptr) {
              cls = nb::str("Market");
            }
            nb::object instance =
                h.specific_instance != nullptr ? c.run().MarketObject(*h.specific_instance)
                                               : nb::none();
            return nb::make_tuple(OwnedBy(h.event, self), kTypes[static_cast<int>(h.hook_type)],
                                  h.is_before, time, cls, instance);
          },
          nb::arg("index"))
      .def(
          "set_current_session",
          [](SimulationContext& c, nb::handle session) {
            c.simulator().set_current_session(session.is_none() ? nullptr
                                                                : &nb::cast<Session&>(session));
          },
          nb::arg("session").none())
      // --- PAMS's Simulator._update_times_on_markets & co.
      .def("update_times_on_markets", &UpdateTimesOnMarkets, nb::arg("markets"))
      .def(
          "update_time_on_market",
          [](SimulationContext& c, nb::handle market) {
            Market* m = &MarketArg(market, "Simulator._update_time_on_market: market");
            MoveMarkets(c, std::span<Market* const>(&m, 1), "Simulator._update_time_on_market",
                        [&] { c.simulator().update_time_on_market(*m); });
          },
          nb::arg("market").none())
      .def(
          "update_agents_for_execution",
          [](SimulationContext& c, nb::handle logs) {
            std::vector<ExecutionLog> engine;
            for (nb::handle log : logs) engine.push_back(EngineExecutionLog(log));
            for (const ExecutionLog& log : engine) {
              for (int id : {log.buy_agent_id, log.sell_agent_id}) {
                if (c.simulator().find_agent(id) == nullptr) {
                  PyErr_SetObject(PyExc_KeyError, nb::int_(id).ptr());
                  throw nb::python_error();
                }
              }
            }
            c.Engine([&] { c.simulator().update_agents_for_execution(engine); });
          },
          nb::arg("execution_logs").none())
      // --- PAMS's Simulator._trigger_event_*.
      .def(
          "trigger_before_order",
          [](SimulationContext& c, nb::handle order) {
            Order engine = OrderFields(order);
            if (c.simulator().find_market(engine.market_id) == nullptr) {
              PyErr_SetObject(PyExc_KeyError, nb::int_(engine.market_id).ptr());
              throw nb::python_error();
            }
            c.Engine([&] { c.simulator().trigger_before_order(engine); });
            WriteBack(c.run(), engine, order);
          },
          nb::arg("order").none())
      .def(
          "trigger_after_order",
          [](SimulationContext& c, nb::handle log) {
            const OrderLog engine = EngineOrderLog(log);
            c.Engine([&] { c.simulator().trigger_after_order(engine); });
          },
          nb::arg("order_log").none())
      .def(
          "trigger_before_cancel",
          [](SimulationContext& c, nb::handle cancel) {
            Cancel engine;
            engine.order = OrderFields(cancel.attr("order"));
            if (c.simulator().find_market(engine.order.market_id) == nullptr) {
              PyErr_SetObject(PyExc_KeyError, nb::int_(engine.order.market_id).ptr());
              throw nb::python_error();
            }
            c.Engine([&] { c.simulator().trigger_before_cancel(engine); });
          },
          nb::arg("cancel").none())
      .def(
          "trigger_after_cancel",
          [](SimulationContext& c, nb::handle log) {
            const CancelLog engine = EngineCancelLog(log);
            c.Engine([&] { c.simulator().trigger_after_cancel(engine); });
          },
          nb::arg("cancel_log").none())
      .def(
          "trigger_after_execution",
          [](SimulationContext& c, nb::handle log) {
            const ExecutionLog engine = EngineExecutionLog(log);
            c.Engine([&] { c.simulator().trigger_after_execution(engine); });
          },
          nb::arg("execution_log").none())
      .def(
          "trigger_session",
          [](SimulationContext& c, Session& session, bool before) {
            c.Engine([&] {
              if (before) {
                c.simulator().trigger_before_session(session);
              } else {
                c.simulator().trigger_after_session(session);
              }
            });
          },
          nb::arg("session"), nb::arg("before"))
      .def("trigger_step_for_market", &TriggerStepForMarket, nb::arg("market"),
           nb::arg("before"));
}

}  // namespace

void BindHandBuiltSimulation(nb::module_& m) {
  BindContext(m);
  // Simulator's methods that a hand-driven loop calls at every step, made
  // methods of pams_cpp.simulator.Simulator (simulator.py puts them in its
  // class): the Python method around each context call cost that loop
  // about a tenth of its time.
  m.def(
      "_update_times_on_markets",
      [](nb::handle self, nb::handle markets) {
        UpdateTimesOnMarkets(ContextOfSimulator(self), markets);
      },
      nb::is_method(), nb::arg("markets").none(),
      nb::sig("def _update_times_on_markets(self, markets) -> None"),
      "Moves markets to their next step: the markets that are not index markets first, then "
      "the index markets.");
  m.def(
      "_trigger_event_before_step_for_market",
      [](nb::handle self, nb::handle market) {
        TriggerStepForMarket(ContextOfSimulator(self), market, true);
      },
      nb::is_method(), nb::arg("market").none(),
      nb::sig("def _trigger_event_before_step_for_market(self, market) -> None"),
      "Calls the hooks before a market's step.");
  m.def(
      "_trigger_event_after_step_for_market",
      [](nb::handle self, nb::handle market) {
        TriggerStepForMarket(ContextOfSimulator(self), market, false);
      },
      nb::is_method(), nb::arg("market").none(),
      nb::sig("def _trigger_event_after_step_for_market(self, market) -> None"),
      "Calls the hooks after a market's step.");
  m.def("_feed_logger", &FeedLogger, nb::arg("logger"), nb::arg("log"));
  // Log.read_and_write_with_direct_process as a C++ method of
  // pams_cpp.logs.base.Log (base.py puts it in the class): a hand-driven
  // loop writes two market step logs a step, and the Python method around
  // the feed cost it a tenth of its time. A logger whose class runs in the
  // engine and overrides neither write_and_direct_process nor process
  // (base.py's _feeds_directly, kept per class in _FEEDS_DIRECTLY) gets
  // the log fed to its engine logger, as those two would; any other gets
  // write_and_direct_process(log=...).
  m.def(
      "_read_and_write_with_direct_process",
      [](nb::handle self, nb::handle logger) {
        if (logger.is_none()) {
          RaiseArgument(PyExc_TypeError, "Log.read_and_write_with_direct_process: logger",
                        "a Logger", logger);
        }
        // base.py's objects, found once (it imports this module first).
        static const nb::handle base = nb::module_::import_("pams_cpp.logs.base").release();
        static const nb::handle known = nb::object(base.attr("_FEEDS_DIRECTLY")).release();
        nb::handle cls = reinterpret_cast<PyObject*>(Py_TYPE(logger.ptr()));
        PyObject* feeds = PyDict_GetItemWithError(known.ptr(), cls.ptr());
        if (feeds == nullptr) {
          if (PyErr_Occurred()) throw nb::python_error();
          nb::object decided = base.attr("_feeds_directly")(cls);
          if (PyDict_SetItem(known.ptr(), cls.ptr(), decided.ptr()) != 0) throw nb::python_error();
          feeds = decided.ptr();  // the dict holds it
        }
        if (PyObject_IsTrue(feeds) == 1) {
          FeedLogger(nb::cast<Logger&>(logger.attr("_engine")), self);
        } else {
          logger.attr(Attrs().write_and_direct_process)(nb::arg("log") = self);
        }
      },
      nb::is_method(), nb::arg("logger").none(),
      nb::sig("def _read_and_write_with_direct_process(self, logger) -> None"),
      "Hands the log to logger to be processed at once (``logger.write_and_direct_process``)."
      "\n\nArgs:\n    logger (Logger): the logger.");
  m.def("_flush_logger", [](Logger& logger) { logger.flush(); }, nb::arg("logger"));
  nb::handle sim = nb::type<Simulator>();
  // PAMS's markets_group_name2market and agents_group_name2agent: the
  // group an object was added with ("" for none).
  Method(
      sim, "market_group_of",
      [](const Simulator& s, nb::handle market) { return s.market_group(MarketArg(market)); },
      nb::arg("market").none());
  Method(
      sim, "agent_group_of",
      [](const Simulator& s, nb::handle agent) {
        return s.agent_group(EngineOf<Agent>(agent, "an Agent"));
      },
      nb::arg("agent"));
}

}  // namespace pams::python
