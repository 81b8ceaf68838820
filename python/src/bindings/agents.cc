// _core.Agent: an engine agent as pams_cpp's agent classes read and change
// it, with the built-in class's own methods for Python's super() (an agent
// of a Python class: interop/python_agents.h).

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "bindings/bindings.h"
#include "interop/arguments.h"
#include "interop/hand_built.h"
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

namespace {

// The Python side of an agent whose built-in code Python calls (super(),
// an agent built by hand): AttributeError before its setup ran (PAMS's
// agent has none of its parameters then), SimulationError for an agent the
// engine runs itself.
PythonAgentCalls& SetUpCalls(Agent& a, const char* method) {
  PythonAgentCalls* p = PythonCallsOf(a);
  if (p == nullptr) {
    throw SimulationError("agent " + a.name() + " is run by the engine: its orders are the runner's");
  }
  if (!p->base_set_up()) {
    Raise(PyExc_AttributeError, "agent " + a.name() + ": " + method +
                                    " before setup; call its setup(settings, "
                                    "accessible_markets_ids) first (PAMS's agent has no "
                                    "parameters before it either)");
  }
  return *p;
}

// A market the agent may trade in: ValueError naming `method` for any other
// value (PAMS's agent refuses one it has no volume in).
int AccessibleMarket(const Agent& a, Arg<int> id, const char* method) {
  const std::string what = std::string(method) + ": market_id";
  PyObject* v = id.object.ptr();
  if (PyLong_Check(v) || PyIndex_Check(v)) {
    int overflow = 0;
    nb::object index = nb::steal(PyNumber_Index(v));
    if (!index.is_valid()) throw nb::python_error();
    const long long market = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow == 0 && market >= 0 && market < kMaxHandBuiltId &&
        a.is_market_accessible(static_cast<int>(market))) {
      return static_cast<int>(market);
    }
  }
  RaiseArgument(PyExc_ValueError, what.c_str(), "a market the agent may trade in", id.object);
}

// A list of markets for an agent's built-in code: TypeError naming `what`
// for anything else.
std::vector<const Market*> MarketsArg(nb::handle markets, const char* what) {
  if (markets.is_none() || !nb::hasattr(markets, "__iter__")) {
    RaiseArgument(PyExc_TypeError, what, "a list of Markets", markets);
  }
  std::vector<const Market*> out;
  const std::string item = std::string(what) + "'s items";
  for (nb::handle m : markets) out.push_back(&MarketArg(m, item.c_str()));
  return out;
}

}  // namespace

void BindAgents(nb::module_& m) {
  nb::class_<Agent>(m, "Agent", nb::dynamic_attr())
      .def_prop_ro("agent_id", &Agent::agent_id)
      .def_prop_ro("name", [](const Agent& a) { return a.name(); })
      .def_prop_ro("class_name", [](const Agent& a) { return a.class_name(); })
      .def_prop_ro("cash_amount", &Agent::cash_amount)
      .def("get_cash_amount", &Agent::get_cash_amount)
      .def("set_cash_amount",
           [](Agent& a, Arg<double> cash) {
             a.set_cash_amount(NumberArg(cash.object, "Agent.set_cash_amount: cash_amount"));
           },
           nb::arg("cash_amount").none(),
           nb::sig("def set_cash_amount(self, cash_amount: float) -> None"))
      .def("update_cash_amount",
           [](Agent& a, Arg<double> delta) {
             a.update_cash_amount(NumberArg(delta.object, "Agent.update_cash_amount: delta"));
           },
           nb::arg("delta").none(), nb::sig("def update_cash_amount(self, delta: float) -> None"))
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
      .def("get_asset_volume",
           [](const Agent& a, Arg<int> id) {
             return a.get_asset_volume(AccessibleMarket(a, id, "Agent.get_asset_volume"));
           },
           nb::arg("market_id").none(),
           nb::sig("def get_asset_volume(self, market_id: int) -> int"))
      .def("set_asset_volume",
           [](Agent& a, Arg<int> id, Arg<int64_t> volume) {
             const int market = AccessibleMarket(a, id, "Agent.set_asset_volume");
             a.set_asset_volume(market, IntArg(volume.object, "Agent.set_asset_volume: volume"));
           },
           nb::arg("market_id").none(), nb::arg("volume").none(),
           nb::sig("def set_asset_volume(self, market_id: int, volume: int) -> None"))
      .def("update_asset_volume",
           [](Agent& a, Arg<int> id, Arg<int64_t> delta_arg) {
             const int market = AccessibleMarket(a, id, "Agent.update_asset_volume");
             const int64_t delta = IntArg(delta_arg.object, "Agent.update_asset_volume: delta");
             int64_t volume = 0;
             if (__builtin_add_overflow(a.get_asset_volume(market), delta, &volume)) {
               Raise(PyExc_OverflowError,
                     "Agent.update_asset_volume: the volume would not fit in 64 bits");
             }
             a.update_asset_volume(market, delta);
           },
           nb::arg("market_id").none(), nb::arg("delta").none(),
           nb::sig("def update_asset_volume(self, market_id: int, delta: int) -> None"))
      .def("set_market_accessible",
           [](Agent& a, Arg<int> id) {
             const int market = IdArg(id.object, "Agent.set_market_accessible: market_id");
             if (a.is_market_accessible(market)) {
               Raise(PyExc_ValueError, "market " + std::to_string(market) + " is already accessible");
             }
             a.set_market_accessible(market);
           },
           nb::arg("market_id").none(),
           nb::sig("def set_market_accessible(self, market_id: int) -> None"))
      .def("set_market_inaccessible", &Agent::set_market_inaccessible, nb::arg("market_id"))
      .def("is_market_accessible",
           [](const Agent& a, Arg<int> id) {
             // PAMS: `market_id in asset_volumes`, False for any other value.
             PyObject* v = id.object.ptr();
             if (PyBool_Check(v) || !(PyLong_Check(v) || PyIndex_Check(v))) return false;
             int overflow = 0;
             nb::object index = nb::steal(PyNumber_Index(v));
             if (!index.is_valid()) throw nb::python_error();
             const long long market = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
             return overflow == 0 && market >= 0 && market < kMaxHandBuiltId &&
                    a.is_market_accessible(static_cast<int>(market));
           },
           nb::arg("market_id").none(),
           nb::sig("def is_market_accessible(self, market_id: int) -> bool"))
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
           [](Agent& a, nb::handle settings, nb::handle ids_arg) {
             RequireSettings(settings, "Agent.setup");
             if (ids_arg.is_none() || !nb::hasattr(ids_arg, "__iter__")) {
               RaiseArgument(PyExc_TypeError, "Agent.setup: accessible_markets_ids",
                             "a list of market ids", ids_arg);
             }
             std::vector<int> ids;
             for (nb::handle id : ids_arg) {
               ids.push_back(IdArg(id, "Agent.setup: accessible_markets_ids's items"));
             }
             if (PythonAgentCalls* p = PythonCallsOf(a)) {
               p->BaseSetup(settings, ids);
               return;
             }
             const Json json = ToJson(settings, a.name());
             a.setup(Settings(json, a.name()), ids);
           },
           nb::arg("settings").none(), nb::arg("accessible_markets_ids").none())
      .def("_base_submit_orders",
           [](Agent& a, nb::handle markets) -> nb::list {
             PythonAgentCalls& p = SetUpCalls(a, "submit_orders");
             return p.BaseSubmitOrders(MarketsArg(markets, "Agent.submit_orders: markets"));
           },
           nb::arg("markets").none())
      .def("_base_submit_orders_by_market",
           [](Agent& a, nb::handle market) -> nb::list {
             PythonAgentCalls& p = SetUpCalls(a, "submit_orders_by_market");
             return p.BaseSubmitOrdersByMarket(
                 MarketArg(market, "FCNAgent.submit_orders_by_market: market"));
           },
           nb::arg("market").none())
      // MarketMakerAgent.get_base_price and MarketShareFCNAgent's
      // get_sum_trade_volume (the engine's code).
      .def("_get_base_price",
           [](Agent& a, nb::handle markets_arg) {
             const auto* mm = dynamic_cast<const MarketMakerAgent*>(&a);
             if (mm == nullptr) throw nb::attribute_error("not a MarketMakerAgent");
             if (PythonAgentCalls* p = PythonCallsOf(a); p != nullptr) {
               SetUpCalls(a, "get_base_price");
             }
             const std::vector<const Market*> markets =
                 MarketsArg(markets_arg, "MarketMakerAgent.get_base_price: markets");
             return mm->get_base_price(Markets(markets.data(), markets.size()));
           },
           nb::arg("markets").none())
      .def("_get_sum_trade_volume",
           [](Agent& a, nb::handle market) {
             const auto* ms = dynamic_cast<const MarketShareFCNAgent*>(&a);
             if (ms == nullptr) throw nb::attribute_error("not a MarketShareFCNAgent");
             return ms->get_sum_trade_volume(
                 MarketArg(market, "MarketShareFCNAgent.get_sum_trade_volume: market"));
           },
           nb::arg("market").none())
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
