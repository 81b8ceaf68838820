// _core.Simulator, _core.Session and _core.Agent: the simulation's objects
// as Python reads them (pams_cpp.simulator.Simulator gives them PAMS's
// attribute names). They belong to their runner; Python holds references
// kept alive with it.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "pams/agents/agent.h"
#include "pams/market/market.h"
#include "pams/random/random.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

void BindSimulation(nb::module_& m) {
  nb::class_<Session>(m, "Session")
      .def_prop_ro("session_id", &Session::session_id)
      .def_prop_ro("name", [](const Session& s) { return s.name(); })
      .def_prop_ro("session_start_time", &Session::session_start_time)
      .def_prop_ro("iteration_steps", &Session::iteration_steps)
      .def_prop_ro("max_normal_orders", &Session::max_normal_orders)
      .def_prop_ro("max_high_frequency_orders", &Session::max_high_frequency_orders)
      .def_prop_ro("with_order_placement", &Session::with_order_placement)
      .def_prop_ro("with_order_execution", &Session::with_order_execution)
      .def_prop_ro("with_print", &Session::with_print)
      .def_prop_ro("high_frequency_submission_rate",
                   &Session::high_frequency_submission_rate)
      .def_prop_ro("prng", [](Session& s) -> Random& { return s.prng(); },
                   nb::rv_policy::reference_internal);

  nb::class_<Agent>(m, "Agent")
      .def_prop_ro("agent_id", &Agent::agent_id)
      .def_prop_ro("name", [](const Agent& a) { return a.name(); })
      .def_prop_ro("class_name", [](const Agent& a) { return a.class_name(); })
      .def_prop_ro("cash_amount", &Agent::cash_amount)
      .def("get_cash_amount", &Agent::get_cash_amount)
      .def_prop_ro("asset_volumes",
                   [](const Agent& a) {
                     nb::dict out;
                     for (int id : a.accessible_market_ids()) {
                       out[nb::int_(id)] = nb::int_(a.get_asset_volume(id));
                     }
                     return out;
                   })
      .def("get_asset_volume", &Agent::get_asset_volume, nb::arg("market_id"))
      .def("is_market_accessible", &Agent::is_market_accessible, nb::arg("market_id"))
      .def_prop_ro("is_high_frequency", &Agent::is_high_frequency)
      .def_prop_ro("prng", [](Agent& a) -> Random& { return a.prng(); },
                   nb::rv_policy::reference_internal);

  nb::class_<Simulator>(m, "Simulator")
      .def_prop_ro("markets",
                   [](nb::handle self) {
                     const Simulator& sim = nb::cast<const Simulator&>(self);
                     nb::list out;
                     for (const auto& market : sim.market_objects()) {
                       out.append(nb::cast(market.get(), nb::rv_policy::reference_internal,
                                           self));
                     }
                     return out;
                   })
      .def_prop_ro("agents",
                   [](nb::handle self) {
                     const Simulator& sim = nb::cast<const Simulator&>(self);
                     nb::list out;
                     for (const auto& agent : sim.agents()) {
                       out.append(nb::cast(agent.get(), nb::rv_policy::reference_internal,
                                           self));
                     }
                     return out;
                   })
      .def_prop_ro("sessions",
                   [](nb::handle self) {
                     const Simulator& sim = nb::cast<const Simulator&>(self);
                     nb::list out;
                     for (const auto& session : sim.sessions()) {
                       out.append(nb::cast(session.get(), nb::rv_policy::reference_internal,
                                           self));
                     }
                     return out;
                   })
      .def_prop_ro("current_session", &Simulator::current_session,
                   nb::rv_policy::reference_internal)
      .def_prop_ro("time", &Simulator::time)
      .def_prop_ro("prng", [](Simulator& s) -> Random& { return s.prng(); },
                   nb::rv_policy::reference_internal)
      // The markets of a config group, by name; empty when there is none.
      .def("market_group",
           [](nb::handle self, const std::string& group) {
             const Simulator& sim = nb::cast<const Simulator&>(self);
             nb::list out;
             if (const auto* members = sim.find_market_group(group)) {
               for (const Market* market : *members) {
                 out.append(nb::cast(market, nb::rv_policy::reference_internal, self));
               }
             }
             return out;
           });
}

}  // namespace pams::python
