// FCNAgent and MarketShareFCNAgent: PAMS's fcn_agent.py and
// market_share_fcn_agent.py. Every floating-point operation is written in
// Python's evaluation order so that results are bit-identical.

#include "pams/agents/fcn_agent.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <typeinfo>

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/market/market.h"

namespace pams {

namespace {

int64_t DrawInt(const Settings& s, Random& prng) {
  const double x = s.json_random(prng);
  if (!std::isfinite(x) || std::fabs(x) >= 9.2e18) {
    s.fail("drew " + std::to_string(x) + ", which is not a usable integer");
  }
  return static_cast<int64_t>(x);  // Python's int(): toward zero
}

}  // namespace

void FCNAgent::setup(const Settings& settings,
                     std::span<const int> accessible_market_ids) {
  Agent::setup(settings, accessible_market_ids);
  fundamental_weight_ = settings["fundamentalWeight"].json_random(prng());
  chart_weight_ = settings["chartWeight"].json_random(prng());
  noise_weight_ = settings["noiseWeight"].json_random(prng());
  noise_scale_ = settings["noiseScale"].json_random(prng());
  time_window_size_ = DrawInt(settings["timeWindowSize"], prng());
  order_margin_ = settings["orderMargin"].json_random(prng());
  if (auto margin = settings.find("marginType");
      !margin || margin->json().is_null() ||
      (margin->json().is_string() && margin->as_string() == "fixed")) {
    margin_type_ = MarginType::kFixed;
  } else if (margin->json().is_string() && margin->as_string() == "normal") {
    margin_type_ = MarginType::kNormal;
  } else {
    margin->fail("expected \"fixed\" or \"normal\", got " + margin->json().dump());
  }
  if (auto mrt = settings.find("meanReversionTime")) {
    mean_reversion_time_ = DrawInt(*mrt, prng());
  } else {
    mean_reversion_time_ = time_window_size_;
  }
}

bool FCNAgent::has_cheap_submit_orders() const {
  return typeid(*this) == typeid(FCNAgent) || typeid(*this) == typeid(MarketShareFCNAgent);
}

void FCNAgent::submit_orders(Markets markets, std::vector<Action>* orders) {
  for (const Market* market : markets) submit_orders_by_market(*market, orders);
}

namespace {

[[noreturn]] void Invalid(const Agent& agent, const std::string& what) {
  throw SimulationError("agent " + agent.name() + " (" + agent.class_name() +
                        "): " + what);
}

void CheckFinite(const Agent& agent, double x, const char* what) {
  if (!std::isfinite(x)) {
    Invalid(agent, std::string(what) + " is not finite (" + std::to_string(x) +
                       ")");
  }
}

}  // namespace

void FCNAgent::submit_orders_by_market(const Market& market,
                                       std::vector<Action>* orders) {
  if (!is_market_accessible(market.market_id())) return;
  const int64_t time = market.get_time();
  const int64_t window = std::min(time, time_window_size_);
  if (window < 0) Invalid(*this, "time window size is negative");
  if (fundamental_weight_ < 0.0 || chart_weight_ < 0.0 || noise_weight_ < 0.0) {
    Invalid(*this, "fundamental, chart and noise weights must be >= 0");
  }
  const double market_price = market.get_market_price();
  const double fundamental_scale =
      1.0 / static_cast<double>(std::max<int64_t>(mean_reversion_time_, 1));
  const double fundamental_log_return =
      fundamental_scale * std::log(market.get_fundamental_price() / market_price);
  CheckFinite(*this, fundamental_log_return, "fundamental log return");
  const double chart_scale =
      1.0 / static_cast<double>(std::max<int64_t>(window, 1));
  const double chart_mean_log_return =
      chart_scale * std::log(market_price / market.get_market_price(time - window));
  CheckFinite(*this, chart_mean_log_return, "chart log return");
  const double noise_log_return = noise_scale_ * prng().gauss(0.0, 1.0);
  CheckFinite(*this, noise_log_return, "noise log return");

  const double weight_sum = fundamental_weight_ + chart_weight_ + noise_weight_;
  const double fundamental_term = fundamental_weight_ * fundamental_log_return;
  const double chart_term = chart_weight_ * chart_mean_log_return *
                            (is_chart_following_ ? 1.0 : -1.0);
  const double noise_term = noise_weight_ * noise_log_return;
  const double expected_log_return =
      (1.0 / weight_sum) * (fundamental_term + chart_term + noise_term);
  CheckFinite(*this, expected_log_return, "expected log return");
  const double expected_future_price =
      market_price *
      std::exp(expected_log_return * static_cast<double>(time_window_size_));
  CheckFinite(*this, expected_future_price, "expected future price");

  const int market_id = market.market_id();
  if (margin_type_ == MarginType::kFixed) {
    if (!(0.0 <= order_margin_ && order_margin_ <= 1.0)) {
      Invalid(*this, "orderMargin must be in [0, 1] for fixed margins");
    }
    if (expected_future_price > market_price) {
      orders->push_back(
          Order::Limit({.agent_id = agent_id(),
                        .market_id = market_id,
                        .is_buy = true,
                        .price = expected_future_price * (1 - order_margin_),
                        .volume = 1,
                        .ttl = time_window_size_}));
    }
    if (expected_future_price < market_price) {
      orders->push_back(
          Order::Limit({.agent_id = agent_id(),
                        .market_id = market_id,
                        .is_buy = false,
                        .price = expected_future_price * (1 + order_margin_),
                        .volume = 1,
                        .ttl = time_window_size_}));
    }
  } else {
    if (!(order_margin_ >= 0.0)) {
      Invalid(*this, "orderMargin must be >= 0 for normal margins");
    }
    const double order_price =
        expected_future_price + prng().gauss(0.0, 1.0) * order_margin_;
    if (!(order_price >= 0.0)) Invalid(*this, "order price is negative");
    if (expected_future_price > market_price) {
      orders->push_back(Order::Limit({.agent_id = agent_id(),
                                      .market_id = market_id,
                                      .is_buy = true,
                                      .price = order_price,
                                      .volume = 1,
                                      .ttl = time_window_size_}));
    }
    if (expected_future_price < market_price) {
      orders->push_back(Order::Limit({.agent_id = agent_id(),
                                      .market_id = market_id,
                                      .is_buy = false,
                                      .price = order_price,
                                      .volume = 1,
                                      .ttl = time_window_size_}));
    }
  }
}

int64_t MarketShareFCNAgent::get_sum_trade_volume(const Market& market) const {
  const int64_t t = market.get_time();
  const int64_t start = std::max<int64_t>(0, t - time_window_size());
  return market.get_executed_volume_sum(start, t);
}

void MarketShareFCNAgent::submit_orders(Markets markets,
                                        std::vector<Action>* orders) {
  candidates_.clear();
  weights_.clear();
  for (const Market* m : markets) {
    if (is_market_accessible(m->market_id())) candidates_.push_back(m);
  }
  if (candidates_.empty()) {
    throw AssertionFailure("agent " + name() + " (" + class_name() +
                           "): MarketShareFCNAgent has no accessible market");
  }
  for (const Market* m : candidates_) {
    weights_.push_back(static_cast<double>(get_sum_trade_volume(*m)) + 1e-10);
  }
  const size_t chosen = prng().choices_index(weights_);
  submit_orders_by_market(*candidates_[chosen], orders);
}

}  // namespace pams
