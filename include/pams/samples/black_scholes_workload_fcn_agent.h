// BlackScholesWorkloadFCNAgent: the WorkloadFCNAgent of PAMS development
// branch's black_scholes sample (plhamJ's WorkloadFCNAgent). Each time it
// is asked (with at least one accessible market) while the workload is on,
// it prices an option with BlackScholes (S 100, K 100, r 0.1, sigma 0.3,
// T 3) drawing from its own prng, adds the price to bs_sum, then places
// FCNAgent's orders with probability orderRate (one random() per call).
// Its draws change the run, as in the sample.
//
// Config keys (besides FCNAgent's): bsWorkload (bool, default false),
// bsLoadShutdown (int, default -1: the workload is on at times before it,
// always when <= 0), bsNumSamples and bsNumSteps (positive ints, required
// when bsWorkload is true), orderRate (JsonRandom in [0, 1], default 0.1).
//
// Its config class name: "BlackScholesWorkloadFCNAgent" (pams run), since
// "WorkloadFCNAgent" is parallel_main's (workload_fcn_agent.h); pams_cpp's
// face samples.black_scholes.workload_fcn_agent.WorkloadFCNAgent makes
// "WorkloadFCNAgent" mean this class in the runner it is registered with,
// as the sample's class_register does in PAMS. Threading: see Agent
// (bs_sum travels with the agent's state under the parallel runners).

#ifndef PAMS_SAMPLES_BLACK_SCHOLES_WORKLOAD_FCN_AGENT_H_
#define PAMS_SAMPLES_BLACK_SCHOLES_WORKLOAD_FCN_AGENT_H_

#include <cstdint>
#include <vector>

#include "pams/agents/fcn_agent.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT BlackScholesWorkloadFCNAgent : public FCNAgent {
 public:
  static constexpr double kDefaultOrderRate = 0.1;
  // The option the workload prices (plhamJ's).
  static constexpr double kInitialPrice = 100.0;
  static constexpr double kStrikePrice = 100.0;
  static constexpr double kRiskFreeRate = 0.1;
  static constexpr double kVolatility = 0.3;
  static constexpr double kMaturityTime = 3.0;

  explicit BlackScholesWorkloadFCNAgent(AgentInit init) : FCNAgent(std::move(init)) {}

  void setup(const Settings& settings,
             std::span<const int> accessible_market_ids) override;
  void submit_orders(Markets markets, std::vector<Action>* orders) override;
  void save_state(StateWriter& out) const override;
  void load_state(StateReader& in) override;

  // Whether the workload runs at `time`.
  bool is_workload_on(int64_t time) const {
    return bs_workload_ && (bs_load_shutdown_ <= 0 || time < bs_load_shutdown_);
  }
  bool bs_workload() const { return bs_workload_; }
  int64_t bs_load_shutdown() const { return bs_load_shutdown_; }
  int64_t bs_n_samples() const { return bs_n_samples_; }
  int64_t bs_n_steps() const { return bs_n_steps_; }
  double order_rate() const { return order_rate_; }
  // The sum of the option prices computed so far.
  double bs_sum() const { return bs_sum_; }

 private:
  bool bs_workload_ = false;
  int64_t bs_load_shutdown_ = -1;
  int64_t bs_n_samples_ = 0;
  int64_t bs_n_steps_ = 0;
  double order_rate_ = kDefaultOrderRate;
  double bs_sum_ = 0.0;
};

}  // namespace pams

#endif  // PAMS_SAMPLES_BLACK_SCHOLES_WORKLOAD_FCN_AGENT_H_
