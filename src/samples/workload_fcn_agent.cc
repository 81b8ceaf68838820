// WorkloadFCNAgent: the parallel_main sample's workload_fcn_agent.py.

#include "pams/samples/workload_fcn_agent.h"

#include <openssl/evp.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/market/market.h"

namespace pams {

double BlackScholesMonteCarlo(Random& prng, int64_t n_samples, int64_t n_steps,
                              double initial_price, double strike_price,
                              double risk_free_rate, double volatility,
                              double maturity_time) {
  if (n_samples < 1) throw std::invalid_argument("n_samples have to be positive");
  if (n_steps < 1) throw std::invalid_argument("n_steps have to be positive");
  const double dt = maturity_time / static_cast<double>(n_steps);
  const double sqrt_dt = std::sqrt(dt);
  double total = 0.0;
  for (int64_t i = 0; i < n_samples; ++i) {
    double price = initial_price;
    for (int64_t k = 0; k < n_steps; ++k) {
      price += price * risk_free_rate * dt +
               price * prng.gauss(0.0, 1.0) * volatility * sqrt_dt;
    }
    const double payoff = price - strike_price;
    total += 0.0 > payoff ? 0.0 : payoff;  // Python's max(payoff, 0.0)
  }
  // Python: math.exp(...) * total / n_samples, left to right.
  return std::exp(-risk_free_rate * maturity_time) * total / static_cast<double>(n_samples);
}

Random RandomFromStringSeed(std::string_view text) {
  // CPython (random.seed, version 2): a = int.from_bytes(b + sha512(b)),
  // big-endian, whose 32-bit words, least significant first, are the key.
  std::string bytes(text);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &digest_size, EVP_sha512(), nullptr) != 1) {
    throw SimulationError("SHA-512 of a random seed failed (OpenSSL)");
  }
  bytes.append(reinterpret_cast<const char*>(digest), digest_size);
  std::vector<uint32_t> words;
  for (size_t end = bytes.size(); end > 0;) {
    const size_t begin = end >= 4 ? end - 4 : 0;
    uint32_t word = 0;
    for (size_t i = begin; i < end; ++i) {
      word = (word << 8) | static_cast<unsigned char>(bytes[i]);
    }
    words.push_back(word);
    end = begin;
  }
  return Random::FromSeedWords(words);
}

void WorkloadFCNAgent::setup(const Settings& settings,
                             std::span<const int> accessible_market_ids) {
  FCNAgent::setup(settings, accessible_market_ids);
  order_rate_ = kDefaultOrderRate;
  if (auto rate = settings.find("orderRate")) {
    order_rate_ = rate->json_random(prng());
    if (!(0.0 <= order_rate_ && order_rate_ <= 1.0)) {
      rate->fail("orderRate have to be between 0.0 and 1.0");
    }
  }
  bs_workload_ = false;
  if (auto w = settings.find("bsWorkload")) {
    if (!w->json().is_boolean()) w->fail("bsWorkload have to be bool, got " + w->json().dump());
    bs_workload_ = w->as_bool();
  }
  auto read_positive = [&](const char* key) -> int64_t {
    if (!settings.has(key)) {
      settings.fail(std::string(key) + " is required for WorkloadFCNAgent if bsWorkload is true");
    }
    const Settings value = settings[key];
    if (!value.json().is_number_integer() || value.as_int() < 1) {
      value.fail(std::string(key) + " have to be a positive int, got " + value.json().dump());
    }
    return value.as_int();
  };
  bs_n_samples_ = 0;
  bs_n_steps_ = 0;
  if (bs_workload_ || settings.has("bsNumSamples")) bs_n_samples_ = read_positive("bsNumSamples");
  if (bs_workload_ || settings.has("bsNumSteps")) bs_n_steps_ = read_positive("bsNumSteps");
  if (settings.has("bsLoadShutdown")) {
    settings["bsLoadShutdown"].fail(
        "is a key of samples/black_scholes's WorkloadFCNAgent, which pams run names "
        "BlackScholesWorkloadFCNAgent; WorkloadFCNAgent is parallel_main's, which has no "
        "bsLoadShutdown");
  }
}

double WorkloadFCNAgent::compute_workload(const Market& market) const {
  Random prng = RandomFromStringSeed(std::to_string(agent_id()) + ":" +
                                     std::to_string(market.market_id()) + ":" +
                                     std::to_string(market.get_time()));
  return BlackScholesMonteCarlo(prng, bs_n_samples_, bs_n_steps_);
}

void WorkloadFCNAgent::submit_orders(Markets markets, std::vector<Action>* orders) {
  // FCNAgent.submit_orders with the sample's submit_orders_by_market.
  for (const Market* market : markets) {
    if (!is_market_accessible(market->market_id())) continue;
    if (bs_workload_) {
      // The price is thrown away, as in the sample; volatile keeps the work.
      volatile double price = compute_workload(*market);
      static_cast<void>(price);
    }
    if (order_rate_ < 1.0 && prng().random() > order_rate_) continue;
    submit_orders_by_market(*market, orders);
  }
}

}  // namespace pams
