// FCNAgent: PAMS's FCN (fundamental, chartist, noise) agent after Chiarella &
// Iori (2002). Each call it forms an expected log return from a weighted
// fundamental term, a chart (trend) term and a noise term, and places one
// limit order around the expected future price, either at p(1 -/+ margin)
// ("fixed") or at p + N(0, 1) * margin ("normal").
//
// Config keys (besides those of Agent): fundamentalWeight, chartWeight,
// noiseWeight, noiseScale, timeWindowSize, orderMargin (JsonRandom specs),
// marginType ("fixed", default, or "normal"), meanReversionTime (JsonRandom,
// default timeWindowSize). Threading: see Agent.

#ifndef PAMS_AGENTS_FCN_AGENT_H_
#define PAMS_AGENTS_FCN_AGENT_H_

#include <cstdint>
#include <vector>

#include "pams/agents/agent.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT FCNAgent : public Agent {
 public:
  enum class MarginType { kFixed = 0, kNormal = 1 };

  explicit FCNAgent(AgentInit init) : Agent(std::move(init)) {}

  void setup(const Settings& settings,
             std::span<const int> accessible_market_ids) override;
  void submit_orders(Markets markets, std::vector<Action>* orders) override;
  // FCNAgent's own submit_orders (a subclass's may be slower: the
  // workload samples).
  bool has_cheap_submit_orders() const override;

  // The orders for one market (nothing if it is not accessible).
  void submit_orders_by_market(const Market& market,
                               std::vector<Action>* orders);

  double fundamental_weight() const { return fundamental_weight_; }
  double chart_weight() const { return chart_weight_; }
  double noise_weight() const { return noise_weight_; }
  double noise_scale() const { return noise_scale_; }
  int64_t time_window_size() const { return time_window_size_; }
  double order_margin() const { return order_margin_; }
  MarginType margin_type() const { return margin_type_; }
  int64_t mean_reversion_time() const { return mean_reversion_time_; }
  bool is_chart_following() const { return is_chart_following_; }

 protected:
  // Subclasses (e.g. contrarian agents) may flip the chart term.
  void set_chart_following(bool following) { is_chart_following_ = following; }

 private:
  double fundamental_weight_ = 0.0;
  double chart_weight_ = 0.0;
  double noise_weight_ = 0.0;
  double noise_scale_ = 0.0;
  int64_t time_window_size_ = 0;
  double order_margin_ = 0.0;
  MarginType margin_type_ = MarginType::kFixed;
  int64_t mean_reversion_time_ = 0;
  bool is_chart_following_ = true;
};

// MarketShareFCNAgent: an FCNAgent that trades in one of its markets per call,
// chosen with probability proportional to the market's executed volume over
// the agent's time window (plus 1e-10).
class PAMS_EXPORT MarketShareFCNAgent : public FCNAgent {
 public:
  explicit MarketShareFCNAgent(AgentInit init) : FCNAgent(std::move(init)) {}

  void submit_orders(Markets markets, std::vector<Action>* orders) override;
  // Executed volume of `market` over steps max(0, t - timeWindowSize)..t.
  int64_t get_sum_trade_volume(const Market& market) const;

 private:
  std::vector<const Market*> candidates_;  // scratch, reused
  std::vector<double> weights_;            // scratch, reused
};

}  // namespace pams

#endif  // PAMS_AGENTS_FCN_AGENT_H_
