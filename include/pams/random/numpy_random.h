// NumpyRandom: the part of numpy's random.default_rng(seed) that PAMS draws
// from: SeedSequence seeding, the PCG64 bit generator and the float64 ziggurat
// of Generator.standard_normal, reproduced bit for bit (numpy 1.21 and later:
// numpy/random/bit_generator.pyx, _pcg64.pyx and src/distributions/
// distributions.c with ziggurat_constants.h describe them).
//
// Thread safety: a plain value, like Random. One object, one thread at a time.

#ifndef PAMS_RANDOM_NUMPY_RANDOM_H_
#define PAMS_RANDOM_NUMPY_RANDOM_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT NumpyRandom {
 public:
  struct State {
    unsigned __int128 state = 0;
    unsigned __int128 increment = 0;
    bool operator==(const State&) const = default;
  };

  // numpy.random.default_rng(seed) for a non-negative int seed.
  explicit NumpyRandom(uint64_t seed);
  // default_rng(seed) for a seed of any size, split into 32-bit words, least
  // significant first (an empty span means 0).
  static NumpyRandom FromSeedWords(std::span<const uint32_t> words);

  // One raw 64-bit output of PCG64 (bit_generator.random_raw()).
  uint64_t next64() {
    state_.state = state_.state * kMultiplier + state_.increment;
    const uint64_t hi = static_cast<uint64_t>(state_.state >> 64);
    const uint64_t lo = static_cast<uint64_t>(state_.state);
    const uint64_t x = hi ^ lo;
    const unsigned rot = static_cast<unsigned>(hi >> 58);
    return (x >> rot) | (x << ((64 - rot) & 63));
  }

  // Generator.random(): (next64() >> 11) * 2^-53.
  double next_double() {
    return static_cast<double>(next64() >> 11) * (1.0 / 9007199254740992.0);
  }

  // Generator.standard_normal() (one draw).
  double standard_normal();

  // Generator.standard_normal(size=n) into out, in order.
  void standard_normal(std::span<double> out) {
    for (double& x : out) x = standard_normal();
  }

  const State& getstate() const { return state_; }
  void setstate(const State& state) { state_ = state; }

 private:
  static constexpr unsigned __int128 kMultiplier =
      (static_cast<unsigned __int128>(2549297995355413924ULL) << 64) |
      4865540595714422341ULL;

  NumpyRandom() = default;
  void SeedFromWords(std::span<const uint32_t> words);

  State state_;
};

}  // namespace pams

#endif  // PAMS_RANDOM_NUMPY_RANDOM_H_
