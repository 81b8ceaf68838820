// WorkloadFCNAgent: the agent of PAMS development branch's parallel_main
// sample (Plham's ParallelMain): an FCNAgent with an artificial CPU
// workload, for measuring parallel runners. Asked about an accessible
// market, it first (if bsWorkload) prices a European call option by
// BlackScholesMonteCarlo with a generator of its own, seeded as CPython's
// random.Random("<agent_id>:<market_id>:<time>"), and discards the price;
// then, with probability orderRate (one random() of its prng, none when
// orderRate is 1.0), it places FCNAgent's orders for that market. The
// workload draws nothing from the agent's prng, so it changes no result:
// with orderRate 1.0 the agent is an FCNAgent.
//
// Config keys (besides FCNAgent's): orderRate (JsonRandom in [0, 1],
// default 0.1), bsWorkload (bool, default false), bsNumSamples and
// bsNumSteps (positive ints, required when bsWorkload is true).
//
// A built-in class since PAMS's development branch, replaceable as its
// sample's class (class_registry.h). Threading: see Agent.

#ifndef PAMS_SAMPLES_WORKLOAD_FCN_AGENT_H_
#define PAMS_SAMPLES_WORKLOAD_FCN_AGENT_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "pams/agents/fcn_agent.h"
#include "pams/export.h"
#include "pams/random/random.h"

namespace pams {

// The sample's black_scholes_monte_carlo (Plham's plham.util.BlackScholes):
// the discounted mean payoff of n_samples Euler paths of n_steps steps of
// a call with the given parameters, one gauss() of prng per step. Throws
// std::invalid_argument unless n_samples and n_steps are >= 1.
PAMS_EXPORT double BlackScholesMonteCarlo(Random& prng, int64_t n_samples, int64_t n_steps,
                                          double initial_price = 100.0,
                                          double strike_price = 100.0,
                                          double risk_free_rate = 0.1,
                                          double volatility = 0.3,
                                          double maturity_time = 3.0);

// CPython's random.Random(text) for a str seed (version 2: the UTF-8 bytes
// followed by their SHA-512, read as one big-endian integer).
PAMS_EXPORT Random RandomFromStringSeed(std::string_view text);

class PAMS_EXPORT WorkloadFCNAgent : public FCNAgent {
 public:
  static constexpr double kDefaultOrderRate = 0.1;

  explicit WorkloadFCNAgent(AgentInit init) : FCNAgent(std::move(init)) {}

  void setup(const Settings& settings,
             std::span<const int> accessible_market_ids) override;
  void submit_orders(Markets markets, std::vector<Action>* orders) override;

  // The workload for `market` at its current time; returns the price.
  double compute_workload(const Market& market) const;

  double order_rate() const { return order_rate_; }
  bool bs_workload() const { return bs_workload_; }
  int64_t bs_n_samples() const { return bs_n_samples_; }
  int64_t bs_n_steps() const { return bs_n_steps_; }

 private:
  double order_rate_ = kDefaultOrderRate;
  bool bs_workload_ = false;
  int64_t bs_n_samples_ = 0;
  int64_t bs_n_steps_ = 0;
};

}  // namespace pams

#endif  // PAMS_SAMPLES_WORKLOAD_FCN_AGENT_H_
