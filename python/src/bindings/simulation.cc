// _core.Simulator, _core.Session and _core.Agent: the simulation's objects
// as Python reads them (pams_cpp.simulator.Simulator gives them PAMS's
// attribute names). They belong to their runner; Python holds references
// kept alive with it.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>
#include <unordered_set>

#include "bindings/bindings.h"
#include "interop/arguments.h"
#include "interop/python_agents.h"
#include "interop/values.h"
#include "pams/agents/agent.h"
#include "pams/config/settings.h"
#include "pams/events/event.h"
#include "pams/market/market.h"
#include "pams/random/random.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

void BindSimulation(nb::module_& m) {
  nb::class_<Session>(
      m, "Session", nb::dynamic_attr(),
      "A session: a run of steps with its own rules (PAMS's ``pams.Session``):\n"
      "how many steps, whether agents place orders, whether orders execute, how\n"
      "many orders per step.\n\n"
      "A runner builds the sessions of the config's ``\"simulation\"``\n"
      "``\"sessions\"``; a program driving the simulation by hand builds one as\n"
      "PAMS does and calls setup(settings). Its rules are attributes that may\n"
      "be changed, as PAMS's.\n\n"
      "Args:\n"
      "    session_id (int): the session's id (its index in the simulation).\n"
      "    prng (random.Random): the session's own generator.\n"
      "    session_start_time (int): the step the session starts at.\n"
      "    simulator (Simulator): the pams_cpp Simulator the session belongs to.\n"
      "    name (str): the session's name.\n"
      "    logger (Logger | None): where its logs go (None: the simulator's).\n\n"
      "Raises:\n"
      "    TypeError: simulator is not a pams_cpp Simulator or prng not a\n"
      "        random.Random.")
      .def_prop_ro("session_id", &Session::session_id,
                   "int: the session's id, its index among the simulation's sessions.")
      .def_prop_ro("name", [](const Session& s) { return s.name(); },
                   "str: the session's name (the config's sessionName).")
      .def_prop_ro("session_start_time", &Session::session_start_time,
                   "int: the step the session starts at (the steps of the sessions\n"
                   "before it).")
      .def_prop_ro("iteration_steps", &Session::iteration_steps)
      .def_prop_ro("max_normal_orders", &Session::max_normal_orders)
      .def_prop_ro("max_high_frequency_orders", &Session::max_high_frequency_orders)
      .def_prop_ro("with_order_placement", &Session::with_order_placement)
      .def_prop_ro("with_order_execution", &Session::with_order_execution)
      .def_prop_ro("with_print", &Session::with_print)
      .def_prop_ro("high_frequency_submission_rate",
                   &Session::high_frequency_submission_rate)
      .def_prop_ro("prng",
                   [](nb::handle self) { return OwnedBy(&nb::cast<Session&>(self).prng(), self); })
      // Reads a session's config (PAMS's Session.setup; the runner calls it).
      .def(
          "setup",
          // *args, **kwargs as PAMS's signature (the stub shows what
          // pams_cpp.Session.setup, which wraps this, accepts).
          [](Session& s, nb::handle settings, nb::args, nb::kwargs) {
            RequireSettings(settings, "Session.setup");
            const Json json = ToJson(settings, s.name());
            s.setup(Settings(json, s.name()));
          },
          nb::arg("settings").none(), nb::arg("args"), nb::arg("kwargs"),
          "Reads the session's config: iterationSteps, withOrderPlacement,\n"
          "withOrderExecution, withPrint (required), maxNormalOrders,\n"
          "maxHighFrequencyOrders, highFrequencySubmitRate (optional).\n\n"
          "Args:\n    settings (Dict[str, Any]): the session's object in the config.\n"
          "    *args: not used (PAMS's signature).\n    **kwargs: not used.\n\n"
          "Raises:\n    ValueError: a required key is missing or a value has the wrong type.");

  // The fundamental price processes (PAMS's Fundamentals), with PAMS's
  // method names.
  nb::class_<Fundamentals>(
      m, "Fundamentals", nb::dynamic_attr(),
      "The fundamental prices of the markets (PAMS's ``pams.Fundamentals``):\n"
      "one geometric Brownian motion per market, correlated where\n"
      "set_correlation says, drawn in chunks as the simulation needs them.\n\n"
      "A runner's simulator holds one (``simulator.fundamentals``); one built by\n"
      "hand draws as PAMS's does, numpy's generator seeded from\n"
      "``prng.randint(0, 2**31)``.\n\n"
      "Args:\n    prng (random.Random): the generator the draws are seeded from.\n\n"
      "Raises:\n    TypeError: prng is not a random.Random.\n\n"
      "Note:\n    The draws are numpy's (Generator over PCG64, then a Cholesky\n"
      "    factor of the correlations) computed in C++: the same doubles as PAMS\n"
      "    on the reference BLAS/LAPACK.")
      .def("add_market", &Fundamentals::add_market, nb::arg("market_id"), nb::arg("initial"),
           nb::arg("drift"), nb::arg("volatility"), nb::arg("start_at") = 0)
      .def("remove_market", &Fundamentals::remove_market, nb::arg("market_id"))
      .def("set_correlation", &Fundamentals::set_correlation, nb::arg("market_id1"),
           nb::arg("market_id2"), nb::arg("corr"), nb::arg("time") = 0)
      .def("remove_correlation", &Fundamentals::remove_correlation, nb::arg("market_id1"),
           nb::arg("market_id2"), nb::arg("time") = 0)
      .def("change_volatility", &Fundamentals::change_volatility, nb::arg("market_id"),
           nb::arg("volatility"), nb::arg("time") = 0)
      .def("change_drift", &Fundamentals::change_drift, nb::arg("market_id"), nb::arg("drift"),
           nb::arg("time") = 0)
      .def("get_fundamental_price", &Fundamentals::get_fundamental_price, nb::arg("market_id"),
           nb::arg("time"))
      .def("get_fundamental_prices",
           [](Fundamentals& f, int market_id, const std::vector<int64_t>& times) {
             std::vector<double> out;
             for (int64_t t : times) out.push_back(f.get_fundamental_price(market_id, t));
             return out;
           },
           nb::arg("market_id"), nb::arg("times"));

  nb::class_<Simulator>(m, "Simulator", nb::dynamic_attr())
      .def_prop_ro("markets",
                   [](nb::handle self) {
                     const Simulator& sim = nb::cast<const Simulator&>(self);
                     nb::list out;
                     for (const auto& market : sim.market_objects()) {
                       out.append(OwnedBy(market.get(), self));
                     }
                     return out;
                   })
      .def_prop_ro("agents",
                   [](nb::handle self) {
                     const Simulator& sim = nb::cast<const Simulator&>(self);
                     nb::list out;
                     for (const auto& agent : sim.agents()) {
                       out.append(OwnedBy(agent.get(), self));
                     }
                     return out;
                   })
      // The distinct classes of the agents: a Python agent's type, else a
      // built-in agent's class name (what the runner's method checks need,
      // without an object per agent: a hand-driven loop's first step made
      // one for each of CI2002's 100 agents, a quarter of the runner's time).
      .def_prop_ro("agent_classes",
                   [](Simulator& sim) {
                     nb::list out;
                     std::unordered_set<std::string> names;
                     std::unordered_set<PyObject*> types;
                     for (const auto& agent : sim.agents()) {
                       PythonAgentCalls* p = PythonCallsOf(*agent);
                       if (p != nullptr && p->self().is_valid()) {
                         PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(p->self().ptr()));
                         if (types.insert(type).second) out.append(nb::handle(type));
                       } else if (names.insert(std::string(agent->class_name())).second) {
                         out.append(nb::str(std::string(agent->class_name()).c_str()));
                       }
                     }
                     return out;
                   })
      .def_prop_ro("events",
                   [](nb::handle self) {
                     const Simulator& sim = nb::cast<const Simulator&>(self);
                     nb::list out;
                     for (const auto& event : sim.events()) out.append(OwnedBy(event.get(), self));
                     return out;
                   })
      // (markets, agents, sessions, events): what the simulator holds so far.
      .def_prop_ro("sizes",
                   [](const Simulator& sim) {
                     return nb::make_tuple(sim.market_objects().size(), sim.agents().size(),
                                           sim.sessions().size(), sim.events().size());
                   })
      .def_prop_ro("sessions",
                   [](nb::handle self) {
                     const Simulator& sim = nb::cast<const Simulator&>(self);
                     nb::list out;
                     for (const auto& session : sim.sessions()) {
                       out.append(OwnedBy(session.get(), self));
                     }
                     return out;
                   })
      .def_prop_ro("current_session",
                   [](nb::handle self) -> nb::object {
                     const Session* s = nb::cast<const Simulator&>(self).current_session();
                     return s != nullptr ? OwnedBy(s, self) : nb::none();
                   })
      .def_prop_ro("fundamentals",
                   [](nb::handle self) {
                     return OwnedBy(&nb::cast<Simulator&>(self).fundamentals(), self);
                   })
      .def_prop_ro("time", &Simulator::time)
      .def_prop_ro("total_steps", &Simulator::total_steps)
      .def_prop_ro("prng", [](nb::handle self) {
        return OwnedBy(&nb::cast<Simulator&>(self).prng(), self);
      })
      // The markets of a config group, by name; empty when there is none.
      .def("market_group",
           [](nb::handle self, const std::string& group) {
             const Simulator& sim = nb::cast<const Simulator&>(self);
             nb::list out;
             if (const auto* members = sim.find_market_group(group)) {
               for (const Market* market : *members) {
                 out.append(OwnedBy(market, self));
               }
             }
             return out;
           });
}

}  // namespace pams::python
