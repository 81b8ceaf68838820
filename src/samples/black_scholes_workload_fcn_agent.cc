// BlackScholesWorkloadFCNAgent: the black_scholes sample's
// workload_fcn_agent.py.

#include "pams/samples/black_scholes_workload_fcn_agent.h"

#include <string>

#include "pams/config/settings.h"
#include "pams/market/market.h"
#include "pams/samples/black_scholes.h"
#include "pams/util/state.h"

namespace pams {

namespace {

int64_t ReadPositiveInt(const Settings& settings, const char* key, const char* cls) {
  if (!settings.has(key)) {
    settings.fail(std::string(key) + " is required for " + cls + " if bsWorkload is true");
  }
  const Settings value = settings[key];
  if (!value.json().is_number_integer() || value.as_int() < 1) {
    value.fail(std::string(key) + " have to be a positive int, got " + value.json().dump());
  }
  return value.as_int();
}

}  // namespace

void BlackScholesWorkloadFCNAgent::setup(const Settings& settings,
                                         std::span<const int> accessible_market_ids) {
  FCNAgent::setup(settings, accessible_market_ids);
  bs_workload_ = false;
  if (auto w = settings.find("bsWorkload")) {
    if (!w->json().is_boolean()) w->fail("bsWorkload have to be bool, got " + w->json().dump());
    bs_workload_ = w->as_bool();
  }
  bs_load_shutdown_ = -1;
  if (auto s = settings.find("bsLoadShutdown")) {
    if (!s->json().is_number_integer()) {
      s->fail("bsLoadShutdown have to be int, got " + s->json().dump());
    }
    bs_load_shutdown_ = s->as_int();
  }
  bs_n_samples_ = 0;
  bs_n_steps_ = 0;
  if (bs_workload_ || settings.has("bsNumSamples")) {
    bs_n_samples_ = ReadPositiveInt(settings, "bsNumSamples", "WorkloadFCNAgent");
  }
  if (bs_workload_ || settings.has("bsNumSteps")) {
    bs_n_steps_ = ReadPositiveInt(settings, "bsNumSteps", "WorkloadFCNAgent");
  }
  order_rate_ = kDefaultOrderRate;
  if (auto rate = settings.find("orderRate")) {
    order_rate_ = rate->json_random(prng());
    if (!(0.0 <= order_rate_ && order_rate_ <= 1.0)) {
      rate->fail("orderRate have to be between 0.0 and 1.0");
    }
  }
  bs_sum_ = 0.0;
}

void BlackScholesWorkloadFCNAgent::submit_orders(Markets markets,
                                                 std::vector<Action>* orders) {
  const Market* first = nullptr;
  for (const Market* m : markets) {
    if (is_market_accessible(m->market_id())) {
      first = m;
      break;
    }
  }
  if (first == nullptr) return;
  if (is_workload_on(first->get_time())) {
    BlackScholes black_scholes(&prng(), kInitialPrice, kStrikePrice, kRiskFreeRate,
                               kVolatility, kMaturityTime);
    bs_sum_ += black_scholes.compute(bs_n_samples_, bs_n_steps_);
  }
  if (prng().random() > order_rate_) return;
  FCNAgent::submit_orders(markets, orders);
}

void BlackScholesWorkloadFCNAgent::save_state(StateWriter& out) const {
  FCNAgent::save_state(out);
  out.write(bs_sum_);
}

void BlackScholesWorkloadFCNAgent::load_state(StateReader& in) {
  FCNAgent::load_state(in);
  bs_sum_ = in.read<double>();
}

}  // namespace pams
