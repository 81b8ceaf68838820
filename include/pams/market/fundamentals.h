// Fundamentals: the fundamental price paths of the (non-index) markets,
// generated exactly as PAMS does: geometric Brownian motion with per-market
// drift and volatility, correlated through the Cholesky factor of the
// covariance matrix, drawn from numpy's default_rng in chunks of 100 steps.
//
// A chunk is generated when a price beyond the generated range is asked for;
// changing a price, a drift, a volatility or a correlation regenerates every
// market's path after the change (as PAMS does). Only the thread that runs the
// simulation calls this class; markets copy the prices they need into their
// own histories when they advance, so agents never trigger a generation.

#ifndef PAMS_MARKET_FUNDAMENTALS_H_
#define PAMS_MARKET_FUNDAMENTALS_H_

#include <cstdint>
#include <span>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pams/export.h"
#include "pams/random/numpy_random.h"
#include "pams/random/random.h"

namespace pams {

class PAMS_EXPORT Fundamentals {
 public:
  // Seeds numpy's generator from one randint(0, 2**31) of prng, as PAMS.
  explicit Fundamentals(Random prng);
  Fundamentals(const Fundamentals&) = delete;
  Fundamentals& operator=(const Fundamentals&) = delete;

  // REQUIRES (else SimulationError): market_id not added yet, volatility >= 0,
  // initial > 0, start_at >= 0.
  void add_market(int market_id, double initial, double drift,
                  double volatility, int64_t start_at = 0);
  void remove_market(int market_id);
  // REQUIRES: -1 < corr < 1, distinct registered markets.
  void set_correlation(int market_id1, int market_id2, double corr,
                       int64_t time = 0);
  void remove_correlation(int market_id1, int market_id2, int64_t time = 0);
  void change_volatility(int market_id, double volatility, int64_t time = 0);
  void change_drift(int market_id, double drift, int64_t time = 0);

  bool has_market(int market_id) const;
  double volatility(int market_id) const;
  double drift(int market_id) const;

  // The price at `time`, generating chunks as needed. Throws
  // std::out_of_range when the market's prices hold no such step (a
  // negative one, or prices a program set shorter: set_prices).
  double get_fundamental_price(int market_id, int64_t time);
  // Sets the price at `time` and regenerates every path after it (what
  // PAMS's Market.change_fundamental_price does to the Fundamentals).
  // REQUIRES: time has been generated.
  void set_price_and_regenerate(int market_id, int64_t time, double price);

  int64_t generated_until() const { return generated_until_; }

  // --- PAMS's attributes, for programs that read or change them (the
  // Python package). ---
  // The markets in the order they were added.
  const std::vector<int>& market_ids() const { return market_ids_; }
  // REQUIRES (else SimulationError): the market was added.
  double initial(int market_id) const { return path(market_id).initial; }
  int64_t start_at(int market_id) const { return path(market_id).start_at; }
  // The prices generated so far (from step 0).
  const std::vector<double>& prices(int market_id) const {
    return path(market_id).prices;
  }
  // (id1, id2, corr) in the order they were set.
  const std::vector<std::tuple<int, int, double>>& correlations() const {
    return correlations_;
  }
  // Set one market's entry of PAMS's dicts as a program assigning them does
  // (fundamentals.drifts[id] = x, prices[id] = [...], ...): nothing is
  // drawn again until generated_until moves; the next prices drawn use the
  // new values, and go on from prices[generated_until()].
  // REQUIRES (else SimulationError): the market was added.
  void set_drift(int market_id, double drift) { path(market_id).drift = drift; }
  void set_volatility(int market_id, double volatility) {
    path(market_id).volatility = volatility;
  }
  void set_initial(int market_id, double initial) { path(market_id).initial = initial; }
  void set_start_at(int market_id, int64_t start_at) { path(market_id).start_at = start_at; }
  void set_prices(int market_id, std::vector<double> prices) {
    path(market_id).prices = std::move(prices);
  }
  // Sets or removes one entry of the correlations as PAMS's dict does
  // (correlation[(id1, id2)] = corr): unchecked, and nothing regenerates
  // until generated_until is moved. A pair of one market with itself makes
  // the next generation fail.
  void set_correlation_entry(int market_id1, int market_id2, double corr);
  // Returns false when there is no such entry.
  bool erase_correlation_entry(int market_id1, int market_id2);
  // Everything after `time` is generated again when next asked for, from
  // the prices at `time` (a time past a market's prices makes the next
  // generation throw std::out_of_range, as PAMS's list raises IndexError).
  // REQUIRES: time >= 0.
  void set_generated_until(int64_t time) { generated_until_ = time; }
  // Generates the next chunk (PAMS's _generate_next). Throws
  // SimulationError when the correlations make no covariance matrix (not
  // positive definite, or a market correlated with itself), and
  // std::out_of_range when a market's prices (set_prices) end before
  // generated_until().
  void generate_next() { GenerateNext(); }
  static constexpr int64_t chunk_size() { return kChunkSize; }
  Random& prng() { return prng_; }
  NumpyRandom& np_prng() { return np_prng_; }

 private:
  struct Path {
    double drift = 0.0;
    double volatility = 0.0;
    double initial = 0.0;
    int64_t start_at = 0;
    std::vector<double> prices;
  };

  Path& path(int market_id);
  const Path& path(int market_id) const;
  void GenerateNext();

  Random prng_;
  NumpyRandom np_prng_;
  // By market id: a map, so that memory follows the markets added, not the
  // largest id (ids of markets built by hand go up to 10^8).
  std::unordered_map<int, Path> paths_;
  std::vector<int> market_ids_;  // in the order they were added
  // (id1, id2, corr) in the order they were set, as PAMS's dict.
  std::vector<std::tuple<int, int, double>> correlations_;
  int64_t generated_until_ = 0;
  static constexpr int64_t kChunkSize = 100;
};

// The lower Cholesky factor of the symmetric positive definite n x n matrix
// a (row-major, only the lower triangle read), computed exactly as reference
// LAPACK's dpotrf('L') (recursive, no fused multiply-add), which is what
// scipy.linalg.cholesky gives with Debian's reference LAPACK. Returns false
// when a is not positive definite.
PAMS_EXPORT bool CholeskyLower(std::span<double> a, int n);

}  // namespace pams

#endif  // PAMS_MARKET_FUNDAMENTALS_H_
