// BlackScholes: the Monte Carlo pricer of a European call option of PAMS
// development branch's black_scholes sample (plhamJ's BlackScholes): the
// underlying follows a geometric Brownian motion simulated by the Euler
// method, one gauss() draw of the given generator per time step of each
// path, in CPython's order of operations (bit-identical to the sample's).
// A plain value; one thread at a time (it draws from the generator given).

#ifndef PAMS_SAMPLES_BLACK_SCHOLES_H_
#define PAMS_SAMPLES_BLACK_SCHOLES_H_

#include <cstdint>

#include "pams/export.h"
#include "pams/random/random.h"

namespace pams {

class PAMS_EXPORT BlackScholes {
 public:
  // REQUIRES: prng outlives this object.
  BlackScholes(Random* prng, double initial_price, double strike_price,
               double risk_free_rate, double volatility, double maturity_time)
      : prng_(prng),
        initial_price_(initial_price),
        strike_price_(strike_price),
        risk_free_rate_(risk_free_rate),
        volatility_(volatility),
        maturity_time_(maturity_time) {}

  // The discounted mean payoff of n_samples paths of n_steps steps.
  // Throws std::invalid_argument unless both are >= 1.
  double compute(int64_t n_samples, int64_t n_steps);
  // The Black-Scholes formula's price.
  double theoretical_price() const;

 private:
  Random* prng_;
  double initial_price_;
  double strike_price_;
  double risk_free_rate_;
  double volatility_;
  double maturity_time_;
};

}  // namespace pams

#endif  // PAMS_SAMPLES_BLACK_SCHOLES_H_
