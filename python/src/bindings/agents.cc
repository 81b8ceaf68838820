// _core.Agent: an engine agent as pams_cpp's agent classes read and change
// it, with the built-in class's own methods for Python's super() (an agent
// of a Python class: interop/python_agents.h).

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <vector>

#include "bindings/bindings.h"
#include "interop/python_agents.h"
#include "interop/values.h"
#include "pams/agents/agent.h"
#include "pams/agents/fcn_agent.h"
#include "pams/agents/market_maker_agent.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/market/market.h"
#include "pams/simulator/simulator_view.h"

namespace pams::python {

void BindAgents(nb::module_& m) {
  nb::class_<Agent>(m, "Agent", nb::dynamic_attr())
      .def_prop_ro("agent_id", &Agent::agent_id)
      .def_prop_ro("name", [](const Agent& a) { return a.name(); })
      .def_prop_ro("class_name", [](const Agent& a) { return a.class_name(); })
      .def_prop_ro("cash_amount", &Agent::cash_amount)
      .def("get_cash_amount", &Agent::get_cash_amount)
      .def("set_cash_amount", &Agent::set_cash_amount, nb::arg("cash_amount"))
      .def("update_cash_amount", &Agent::update_cash_amount, nb::arg("delta"))
      .def_prop_ro("asset_volumes",
                   [](const Agent& a) {
                     nb::dict out;
                     for (int id : a.accessible_market_ids()) {
                       out[nb::int_(id)] = nb::int_(a.get_asset_volume(id));
                     }
                     return out;
                   })
      .def_prop_ro("accessible_market_ids",
                   [](const Agent& a) { return a.accessible_market_ids(); })
      .def("get_asset_volume", &Agent::get_asset_volume, nb::arg("market_id"))
      .def("set_asset_volume", &Agent::set_asset_volume, nb::arg("market_id"),
           nb::arg("volume"))
      .def("update_asset_volume", &Agent::update_asset_volume, nb::arg("market_id"),
           nb::arg("delta"))
      .def("set_market_accessible", &Agent::set_market_accessible, nb::arg("market_id"))
      .def("set_market_inaccessible", &Agent::set_market_inaccessible, nb::arg("market_id"))
      .def("is_market_accessible", &Agent::is_market_accessible, nb::arg("market_id"))
      .def_prop_ro("is_high_frequency", &Agent::is_high_frequency)
      .def_prop_ro("prng",
                   [](nb::handle self) {
                     return OwnedBy(&nb::cast<Agent&>(self).prng(), self);
                   })
      // The Python object of an agent of a Python class; None for the
      // engine's own classes.
      .def_prop_ro("python_object",
                   [](Agent& a) -> nb::object {
                     PythonAgentCalls* p = PythonCallsOf(a);
                     return p != nullptr && p->self().is_valid() ? nb::borrow(p->self())
                                                                 : nb::none();
                   })
      // The built-in class's own methods (Python's super()).
      .def("_base_setup",
           [](Agent& a, nb::handle settings, const std::vector<int>& ids) {
             if (PythonAgentCalls* p = PythonCallsOf(a)) {
               p->BaseSetup(settings, ids);
               return;
             }
             const Json json = ToJson(settings, a.name());
             a.setup(Settings(json, a.name()), ids);
           },
           nb::arg("settings"), nb::arg("accessible_markets_ids"))
      .def("_base_submit_orders",
           [](Agent& a, const std::vector<const Market*>& markets) -> nb::list {
             if (PythonAgentCalls* p = PythonCallsOf(a)) return p->BaseSubmitOrders(markets);
             throw SimulationError("agent " + a.name() +
                                   " is run by the engine: its orders are the runner's");
           },
           nb::arg("markets"))
      .def("_base_submit_orders_by_market",
           [](Agent& a, const Market& market) -> nb::list {
             if (PythonAgentCalls* p = PythonCallsOf(a)) return p->BaseSubmitOrdersByMarket(market);
             throw SimulationError("agent " + a.name() +
                                   " is run by the engine: its orders are the runner's");
           },
           nb::arg("market"))
      // MarketMakerAgent.get_base_price and MarketShareFCNAgent's
      // get_sum_trade_volume (the engine's code).
      .def("_get_base_price",
           [](const Agent& a, const std::vector<const Market*>& markets) {
             const auto* mm = dynamic_cast<const MarketMakerAgent*>(&a);
             if (mm == nullptr) throw nb::attribute_error("not a MarketMakerAgent");
             return mm->get_base_price(Markets(markets.data(), markets.size()));
           },
           nb::arg("markets"))
      .def("_get_sum_trade_volume",
           [](const Agent& a, const Market& market) {
             const auto* ms = dynamic_cast<const MarketShareFCNAgent*>(&a);
             if (ms == nullptr) throw nb::attribute_error("not a MarketShareFCNAgent");
             return ms->get_sum_trade_volume(market);
           },
           nb::arg("market"))
      // FCNAgent's parameters, as PAMS's attributes (fundamental_weight,
      // chart_weight, noise_weight, noise_scale, time_window_size,
      // order_margin, margin_type, mean_reversion_time, is_chart_following).
      .def_prop_ro("fcn_parameters", [](Agent& a) {
        const auto* f = dynamic_cast<const FCNAgent*>(&a);
        if (f == nullptr) throw nb::attribute_error("not an FCNAgent");
        return nb::make_tuple(f->fundamental_weight(), f->chart_weight(), f->noise_weight(),
                              f->noise_scale(), f->time_window_size(), f->order_margin(),
                              static_cast<int>(f->margin_type()), f->mean_reversion_time(),
                              f->is_chart_following());
      });
}

}  // namespace pams::python
