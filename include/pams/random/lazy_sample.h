// LazySample: random.sample(population, len(population)) -- PAMS's per-step
// shuffle of all agents -- computed one result at a time, for callers that
// look only at the first few results (the runner asks agents in shuffled
// order until enough of them have placed orders).
//
// next() gives the results in CPython's order; finish() then consumes the
// generator's outputs that the rest of the sample would have drawn, so the
// generator ends exactly where random.sample leaves it. Nothing is copied per
// sample: the CPython pool is the population plus the few slots a pick has
// overwritten. Results are bit-identical to Random::sample_all.
//
// One thread. Between start() and finish() the population must not change and
// the generator must draw nothing else, or the draws would interleave
// differently from random.sample's.

#ifndef PAMS_RANDOM_LAZY_SAMPLE_H_
#define PAMS_RANDOM_LAZY_SAMPLE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "pams/random/random.h"

namespace pams {

template <typename T>
class LazySample {
 public:
  // Starts a sample of the whole population. REQUIRES: the previous sample
  // (if any) was finished.
  void start(Random* prng, std::span<const T> population) {
    prng_ = prng;
    population_ = population;
    taken_ = 0;
    overrides_.clear();
    materialized_ = false;
  }

  size_t size() const { return population_.size(); }
  // Results given so far.
  size_t taken() const { return taken_; }
  bool has_next() const { return taken_ < population_.size(); }

  // The next result. REQUIRES: has_next().
  T next() {
    // CPython: j = _randbelow(n - i); result = pool[j]; pool[j] = pool[n-i-1].
    const size_t remaining = population_.size() - taken_;
    const size_t j = static_cast<size_t>(prng_->randbelow(remaining));
    const T picked = Get(j);
    Set(j, Get(remaining - 1));
    ++taken_;
    return picked;
  }

  // Draws what the remaining picks would draw. After it, has_next() is false.
  void finish() {
    prng_->skip_randbelow_descending(population_.size() - taken_);
    taken_ = population_.size();
  }

 private:
  // pool[p]: the population, except where a pick moved another element in.
  // Few picks are usual and a short list of overrides is cheapest; past
  // kMaxOverrides the pool is copied once, so that many picks stay O(1).
  static constexpr size_t kMaxOverrides = 8;

  T Get(size_t p) const {
    if (materialized_) return pool_[p];
    for (const auto& [pos, value] : overrides_) {
      if (pos == p) return value;
    }
    return population_[p];
  }
  void Set(size_t p, const T& value) {
    if (materialized_) {
      pool_[p] = value;
      return;
    }
    for (auto& [pos, v] : overrides_) {
      if (pos == p) {
        v = value;
        return;
      }
    }
    if (overrides_.size() < kMaxOverrides) {
      overrides_.emplace_back(p, value);
      return;
    }
    pool_.assign(population_.begin(), population_.end());
    for (const auto& [pos, v] : overrides_) pool_[pos] = v;
    pool_[p] = value;
    materialized_ = true;
  }

  Random* prng_ = nullptr;
  std::span<const T> population_;
  size_t taken_ = 0;
  std::vector<std::pair<size_t, T>> overrides_;
  bool materialized_ = false;
  std::vector<T> pool_;
};

}  // namespace pams

#endif  // PAMS_RANDOM_LAZY_SAMPLE_H_
