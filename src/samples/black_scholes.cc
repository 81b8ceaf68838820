// BlackScholes: the black_scholes sample's black_scholes.py, with CPython's
// order of floating-point operations.

#include "pams/samples/black_scholes.h"

#include <cmath>
#include <stdexcept>

namespace pams {

double BlackScholes::compute(int64_t n_samples, int64_t n_steps) {
  if (n_samples < 1) throw std::invalid_argument("n_samples have to be positive");
  if (n_steps < 1) throw std::invalid_argument("n_steps have to be positive");
  const double r = risk_free_rate_;
  const double sigma = volatility_;
  const double dt = maturity_time_ / static_cast<double>(n_steps);
  const double sqrt_dt = std::sqrt(dt);
  double total = 0.0;
  for (int64_t i = 0; i < n_samples; ++i) {
    double price = initial_price_;
    for (int64_t k = 0; k < n_steps; ++k) {
      price += price * r * dt + price * prng_->gauss(0.0, 1.0) * sigma * sqrt_dt;
    }
    const double payoff = price - strike_price_;
    total += 0.0 > payoff ? 0.0 : payoff;  // Python's max(payoff, 0.0)
  }
  return std::exp(-r * maturity_time_) * (total / static_cast<double>(n_samples));
}

namespace {

double NormalCdf(double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; }

}  // namespace

double BlackScholes::theoretical_price() const {
  const double sigma_sqrt_t = volatility_ * std::sqrt(maturity_time_);
  const double d1 = (std::log(initial_price_ / strike_price_) +
                     (risk_free_rate_ + std::pow(volatility_, 2.0) / 2) * maturity_time_) /
                    sigma_sqrt_t;
  const double d2 = d1 - sigma_sqrt_t;
  return initial_price_ * NormalCdf(d1) -
         strike_price_ * std::exp(-risk_free_rate_ * maturity_time_) * NormalCdf(d2);
}

}  // namespace pams
