// The classes of the samples of PAMS's development branch, for their Python
// faces (samples/*/ of the repository): _core.DarkPoolMarket, the sample
// agents' parameters, WorkloadFCNAgent's workload and the option pricers on
// a _core.Generator.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>

#include "bindings/bindings.h"
#include "interop/values.h"
#include "pams/agents/agent.h"
#include "pams/market/market.h"
#include "pams/random/random.h"
#include "pams/samples/black_scholes.h"
#include "pams/samples/black_scholes_workload_fcn_agent.h"
#include "pams/samples/cancel_fcn_agent.h"
#include "pams/samples/dark_pool_fcn_agent.h"
#include "pams/samples/dark_pool_market.h"
#include "pams/samples/invest_div_fcn_agent.h"
#include "pams/samples/workload_fcn_agent.h"

namespace pams::python {

namespace {

// The Python parameters of a sample agent, by PAMS's attribute names.
nb::dict SampleParameters(const Agent& a) {
  nb::dict out;
  if (const auto* d = dynamic_cast<const DarkPoolFCNAgent*>(&a)) {
    out["dark_pool_chance"] = d->dark_pool_chance();
  } else if (const auto* i = dynamic_cast<const InvestDivFCNAgent*>(&a)) {
    out["leverage_ratio"] = i->leverage_ratio();
    out["diversity_ratio"] = i->diversity_ratio();
  } else if (const auto* c = dynamic_cast<const CancelFCNAgent*>(&a)) {
    out["cancel_rate"] = c->cancel_rate();
  } else if (const auto* w = dynamic_cast<const WorkloadFCNAgent*>(&a)) {
    out["order_rate"] = w->order_rate();
    out["bs_workload"] = w->bs_workload();
    out["bs_n_samples"] = w->bs_n_samples();
    out["bs_n_steps"] = w->bs_n_steps();
  } else if (const auto* b = dynamic_cast<const BlackScholesWorkloadFCNAgent*>(&a)) {
    out["bs_workload"] = b->bs_workload();
    out["bs_load_shutdown"] = b->bs_load_shutdown();
    out["bs_n_samples"] = b->bs_n_samples();
    out["bs_n_steps"] = b->bs_n_steps();
    out["order_rate"] = b->order_rate();
    out["bs_sum"] = b->bs_sum();
  } else {
    throw nb::attribute_error(("agent " + a.name() + " is not of a sample's class").c_str());
  }
  return out;
}

// The engine class of a sample agent ("CancelFCNAgent", ...), or None.
nb::object SampleClass(const Agent& a) {
  if (dynamic_cast<const DarkPoolFCNAgent*>(&a)) return nb::str("DarkPoolFCNAgent");
  if (dynamic_cast<const InvestDivFCNAgent*>(&a)) return nb::str("InvestDivFCNAgent");
  if (dynamic_cast<const CancelFCNAgent*>(&a)) return nb::str("CancelFCNAgent");
  if (dynamic_cast<const WorkloadFCNAgent*>(&a)) return nb::str("WorkloadFCNAgent");
  if (dynamic_cast<const BlackScholesWorkloadFCNAgent*>(&a)) {
    return nb::str("BlackScholesWorkloadFCNAgent");
  }
  return nb::none();
}

}  // namespace

void BindSamples(nb::module_& m) {
  nb::class_<DarkPoolMarket, Market> dark_pool(m, "DarkPoolMarket");
  // A built-in class: class_register leaves it to the engine.
  dark_pool.attr("_engine_base") = "DarkPoolMarket";
  dark_pool
      .def_prop_ro("lit_market",
                   [](nb::handle self) {
                     nb::object owner = nb::getattr(self, "_owner", nb::none());
                     const Market& lit = nb::cast<const DarkPoolMarket&>(self).lit_market();
                     return OwnedBy(const_cast<Market*>(&lit),
                                    owner.is_none() ? nb::handle() : owner);
                   })
      .def("get_lit_mid_price", &DarkPoolMarket::get_lit_mid_price);

  m.def("_sample_agent_parameters", &SampleParameters, nb::arg("agent"));
  m.def("_sample_agent_class", &SampleClass, nb::arg("agent"));
  m.def("_sample_agent_is_workload_on",
        [](const Agent& a, int64_t time) {
          const auto* b = dynamic_cast<const BlackScholesWorkloadFCNAgent*>(&a);
          if (b == nullptr) throw nb::attribute_error("not a black_scholes WorkloadFCNAgent");
          return b->is_workload_on(time);
        },
        nb::arg("agent"), nb::arg("time"));
  m.def("_compute_workload",
        [](const Agent& a, const Market& market) {
          const auto* w = dynamic_cast<const WorkloadFCNAgent*>(&a);
          if (w == nullptr) throw nb::attribute_error("not a parallel_main WorkloadFCNAgent");
          return w->compute_workload(market);
        },
        nb::arg("agent"), nb::arg("market"));
  m.def("_black_scholes_compute",
        [](Random& prng, double initial_price, double strike_price, double risk_free_rate,
           double volatility, double maturity_time, int64_t n_samples, int64_t n_steps) {
          BlackScholes bs(&prng, initial_price, strike_price, risk_free_rate, volatility,
                          maturity_time);
          if (n_samples < 1) throw nb::value_error("n_samples have to be positive");
          if (n_steps < 1) throw nb::value_error("n_steps have to be positive");
          return bs.compute(n_samples, n_steps);
        });
  m.def("_black_scholes_theoretical_price",
        [](double initial_price, double strike_price, double risk_free_rate, double volatility,
           double maturity_time) {
          Random unused(0);
          return BlackScholes(&unused, initial_price, strike_price, risk_free_rate, volatility,
                              maturity_time)
              .theoretical_price();
        });
  m.def("_black_scholes_monte_carlo",
        [](Random& prng, int64_t n_samples, int64_t n_steps, double initial_price,
           double strike_price, double risk_free_rate, double volatility, double maturity_time) {
          if (n_samples < 1) throw nb::value_error("n_samples have to be positive");
          if (n_steps < 1) throw nb::value_error("n_steps have to be positive");
          return BlackScholesMonteCarlo(prng, n_samples, n_steps, initial_price, strike_price,
                                        risk_free_rate, volatility, maturity_time);
        });
}

}  // namespace pams::python
