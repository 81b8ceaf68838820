// Random: a pseudo random number generator that draws exactly the numbers of
// CPython's random.Random (Mersenne Twister MT19937, CPython's seeding and
// CPython's Python-level methods), so that a simulation seeded with N gives the
// same results as PAMS seeded with random.Random(N).
//
// Every method below names the CPython method it reproduces; for the same seed
// and the same sequence of calls, the results are bit-identical to CPython
// 3.9-3.14 (CPython's Modules/_randommodule.c and Lib/random.py describe
// them).
//
// Thread safety: a Random is a plain value. Distinct objects may be used from
// distinct threads; one object must not be used by two threads at once.
// Copying copies the whole state (CPython's getstate/setstate).

#ifndef PAMS_RANDOM_RANDOM_H_
#define PAMS_RANDOM_RANDOM_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT Random {
 public:
  static constexpr int kStateWords = 624;

  // The complete state, as CPython's getstate() exposes it: the 624 MT words,
  // the position in them, and the cached second value of gauss().
  struct State {
    std::array<uint32_t, kStateWords> mt{};
    uint32_t index = kStateWords;
    bool has_gauss_next = false;
    double gauss_next = 0.0;
    bool operator==(const State&) const = default;
  };

  // random.Random(seed) for a non-negative int seed.
  explicit Random(uint64_t seed = 0);

  // random.Random(seed) for a seed of any size: |seed| split into 32-bit
  // words, least significant first (an empty span means 0).
  static Random FromSeedWords(std::span<const uint32_t> words);

  // random.Random(int(text)) for a decimal integer of any length, with an
  // optional leading '-' (a negative seed draws like its absolute value).
  // REQUIRES: text is a valid decimal integer; otherwise std::invalid_argument.
  static Random FromDecimalSeed(std::string_view text);

  // random.seed(seed) for a non-negative int seed. Clears the gauss cache.
  void seed(uint64_t seed);
  void seed_words(std::span<const uint32_t> words);

  // One tempered 32-bit output of MT19937 (the C function genrand_uint32).
  uint32_t genrand_uint32() {
    if (index_ >= kStateWords) Twist();
    return Temper(mt_[index_++]);
  }

  // random.random(): a double in [0, 1) with 53 random bits.
  double random() {
    const uint32_t a = genrand_uint32() >> 5;
    const uint32_t b = genrand_uint32() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }

  // random.getrandbits(k) for 0 <= k <= 64.
  uint64_t getrandbits(int k);

  // random._randbelow(n): uniform in [0, n) by bit rejection.
  // REQUIRES: n >= 1.
  uint64_t randbelow(uint64_t n) {
    const int k = BitLength(n);
    if (k <= 32) {
      const int shift = 32 - k;
      uint64_t r = genrand_uint32() >> shift;
      while (r >= n) r = genrand_uint32() >> shift;
      return r;
    }
    uint64_t r = getrandbits(k);
    while (r >= n) r = getrandbits(k);
    return r;
  }

  // random.randint(a, b): uniform in [a, b].
  // REQUIRES: a <= b and b - a + 1 fits in uint64_t.
  int64_t randint(int64_t a, int64_t b);

  // random.gauss(mu, sigma): Box-Muller with CPython's one-value cache, which
  // ignores mu and sigma.
  double gauss(double mu, double sigma);

  // random.uniform(a, b) = a + (b - a) * random().
  double uniform(double a, double b);

  // random.expovariate(lambd) = -log(1.0 - random()) / lambd.
  double expovariate(double lambd);

  // random.choice(seq) returns seq[choice_index(seq.size())].
  // REQUIRES: n >= 1.
  size_t choice_index(size_t n) { return static_cast<size_t>(randbelow(n)); }

  // random.choices(population, weights)[0] (k = 1): the index picked with the
  // given weights; one random() is drawn. Allocates only for more than 32
  // weights.
  // REQUIRES: weights is not empty; its sum is finite and > 0
  // (otherwise std::invalid_argument, as CPython raises ValueError).
  size_t choices_index(std::span<const double> weights);

  // random.sample(population, len(population)), the way PAMS shuffles: writes
  // the population in sampled order to *out (resized to its size). Allocates
  // nothing when out already has the capacity.
  // population may be *out itself (a shuffle in place); any other overlap
  // with *out is not allowed.
  template <typename T>
  void sample_all(std::span<const T> population, std::vector<T>* out) {
    // CPython's pool branch (always taken when k == n) does, for i = 0..n-1:
    // j = _randbelow(n - i); result[i] = pool[j]; pool[j] = pool[n - i - 1].
    // Here the pool lives reversed in the tail of *out: pool[p] is at
    // a[n - 1 - p], so pool[n - i - 1] is a[i], and one swap both stores the
    // pick at result[i] and moves the last pool element into the hole. The
    // draws are CPython's, and only a reversed copy is needed up front.
    if (population.data() == out->data() &&
        population.size() == out->size()) {
      std::reverse(out->begin(), out->end());
    } else {
      out->assign(population.rbegin(), population.rend());
    }
    T* a = out->data();
    const size_t n = out->size();
    if (n <= 8 || n > 0xffffffffu) {
      // A few elements (the runner's batches of orders) need no blocking;
      // beyond 2^32 elements _randbelow needs two outputs per attempt.
      for (size_t i = 0; i < n; ++i) {
        const size_t j = static_cast<size_t>(randbelow(n - i));
        std::swap(a[i], a[n - 1 - j]);
      }
      return;
    }
    // _randbelow(m) for m < 2^32 rejects 0-50% of the outputs at random.
    // The picks of a block of positions are drawn first, in a loop that
    // carries only m and the pick count from one output to the next (whether
    // an output is accepted decides, without a branch, whether the count and
    // m move); the swaps follow in a second loop. Mixing the two, or
    // branching on acceptance, costs about half again as much: rejections
    // mispredict, and swapping in place chains each step to the last store.
    constexpr uint32_t kBlock = 256;
    uint32_t picks[kBlock];
    uint32_t m = static_cast<uint32_t>(n);  // next draw is _randbelow(m)
    int shift = 32 - BitLength(m);
    uint32_t low = m == 0 ? 0 : uint32_t{1} << (31 - shift);  // bit length holds while m >= low
    size_t i = 0;
    while (m > 0) {
      const uint32_t stop = m > kBlock ? m - kBlock : 0;
      uint32_t k = 0;
      while (m > stop) {
        if (m < low) {  // m lost a bit: _randbelow keeps one bit more
          ++shift;
          low >>= 1;
        }
        const uint32_t v = genrand_uint32() >> shift;
        const uint32_t accept = v < m;
        picks[k] = v;
        k += accept;
        m -= accept;
      }
      for (uint32_t q = 0; q < k; ++q, ++i) {
        const size_t target = n - 1 - picks[q];
        const T picked = a[target];
        a[target] = a[i];
        a[i] = picked;
      }
    }
  }

  // The same for a vector, for which template deduction cannot see the span.
  template <typename T>
  void sample_all(const std::vector<T>& population, std::vector<T>* out) {
    sample_all(std::span<const T>(population), out);
  }

  // Consumes exactly the outputs that randbelow(m), randbelow(m - 1), ...,
  // randbelow(1) would, without computing their results: the rest of a
  // sample() whose remaining picks nobody looks at (see LazySample).
  // REQUIRES: m < 2^32.
  void skip_randbelow_descending(uint64_t m);

  // random.sample(range(n), k) as indices, both of CPython's branches.
  // REQUIRES: k <= n.
  std::vector<size_t> sample_indices(size_t n, size_t k);

  // random.shuffle(x) in place.
  template <typename T>
  void shuffle(std::vector<T>* x) {
    for (size_t i = x->size(); i > 1; --i) {
      const size_t j = static_cast<size_t>(randbelow(i));
      std::swap((*x)[i - 1], (*x)[j]);
    }
  }

  State getstate() const;
  void setstate(const State& state);

  // How the generator moved, without its 624 words (the multi-process
  // runner sends an agent's prng change so): twists() counts the refills
  // of the words so far, resets() the seedings and setstate()s. Between
  // two points with the same resets(), the words moved by exactly the
  // difference of twists().
  uint64_t twists() const { return twists_; }
  uint64_t resets() const { return resets_; }
  uint32_t position() const { return index_; }
  bool has_gauss_next() const { return has_gauss_next_; }
  double gauss_next() const { return gauss_next_; }
  // Refills the words `twists` times, then sets the read position and the
  // gauss cache: the state that a copy of this generator reached after
  // those refills, and reported so. REQUIRES: position <= kStateWords
  // (otherwise std::invalid_argument).
  void advance(uint64_t twists, uint32_t position, bool has_gauss_next, double gauss_next);

  static int BitLength(uint64_t n) {
    return n == 0 ? 0 : 64 - __builtin_clzll(n);
  }

 private:
  // REQUIRES: mt_ holds init_genrand(19650218)'s state.
  void InitByArray(std::span<const uint32_t> key);
  // Refills mt_ with the next 624 words and sets index_ to 0.
  void Twist();

  // MT19937's output tempering.
  static uint32_t Temper(uint32_t y) {
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
  }

  std::array<uint32_t, kStateWords> mt_;
  uint32_t index_ = kStateWords;
  bool has_gauss_next_ = false;
  double gauss_next_ = 0.0;
  uint64_t twists_ = 0;
  uint64_t resets_ = 0;
};

}  // namespace pams

#endif  // PAMS_RANDOM_RANDOM_H_
