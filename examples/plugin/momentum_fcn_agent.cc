// MomentumFCNAgent: an FCN agent (pams::FCNAgent, Chiarella & Iori 2002) whose
// chartist judges how strong the trend is before trading on it.
//
// Each call, for each market, the agent measures the mean log return of the
// market price over its time window, r = log(p(t) / p(t - w)) / w with
// w = min(t, timeWindowSize), the same quantity as FCN's chart term. If
// |r| >= momentumThreshold the trend is taken as real and followed (the chart
// term pushes the expected price along the trend, as in FCNAgent); if it is
// weaker it is taken as noise and faded (the chart term's sign is flipped,
// as a contrarian would). Everything else (fundamental and noise terms,
// margins, order sizes and lifetimes) is FCNAgent's.
//
// Config keys, besides FCNAgent's:
//   momentumThreshold: a JsonRandom spec (a number, [min, max], {"expon":
//     [x]}, ...) drawn once per agent in setup(), after FCNAgent's draws;
//     it must be >= 0. Missing: 0, i.e. always follow the trend (plain FCN,
//     with the same random draws).
//
// Parallel runners: submit_orders() changes only is_chart_following, and sets
// it from the markets before every use, so the agent needs no save_state().
//
// Built as a plugin (libmomentum.so) against an installed pams-cpp; see
// README.md.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pams/agents/fcn_agent.h"
#include "pams/config/settings.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"

namespace {

class MomentumFCNAgent : public pams::FCNAgent {
 public:
  using FCNAgent::FCNAgent;

  void setup(const pams::Settings& settings,
             std::span<const int> accessible_market_ids) override {
    FCNAgent::setup(settings, accessible_market_ids);  // FCN's keys and draws
    if (auto threshold = settings.find("momentumThreshold")) {
      momentum_threshold_ = threshold->json_random(prng());
      if (!(momentum_threshold_ >= 0.0)) {
        threshold->fail("must be >= 0, drew " +
                        std::to_string(momentum_threshold_));
      }
    }
  }

  void submit_orders(pams::Markets markets,
                     std::vector<pams::Action>* orders) override {
    for (const pams::Market* market : markets) {
      if (!is_market_accessible(market->market_id())) continue;
      set_chart_following(std::fabs(MeanLogReturn(*market)) >=
                          momentum_threshold_);
      submit_orders_by_market(*market, orders);
    }
  }

  double momentum_threshold() const { return momentum_threshold_; }

 private:
  // log(p(t) / p(t - w)) / w over the agent's window; 0 at t = 0.
  double MeanLogReturn(const pams::Market& market) const {
    const int64_t time = market.get_time();
    const int64_t window = std::min(time, time_window_size());
    if (window <= 0) return 0.0;
    return std::log(market.get_market_price() /
                    market.get_market_price(time - window)) /
           static_cast<double>(window);
  }

  double momentum_threshold_ = 0.0;
};

}  // namespace

// The entry point `pams run --plugin` calls: registers the class under the
// name configs give in "class".
extern "C" void pams_register_classes(pams::ClassRegistry* registry) {
  registry->add_agent<MomentumFCNAgent>("MomentumFCNAgent");
}
