// NumpyRandom: numpy's default_rng(seed) (SeedSequence -> PCG64) and the
// float64 ziggurat of Generator.standard_normal, reproduced bit for bit
// (numpy >= 1.21: bit_generator.pyx, _pcg64.pyx, distributions.c).

#include "pams/random/numpy_random.h"

#include <cmath>
#include <vector>

#include "ziggurat_tables.h"

namespace pams {

namespace {

// SeedSequence constants (numpy/random/bit_generator.pyx).
constexpr uint32_t kInitA = 0x43b0d7e5u;
constexpr uint32_t kMultA = 0x931e8875u;
constexpr uint32_t kInitB = 0x8b51f9ddu;
constexpr uint32_t kMultB = 0x58f38dedu;
constexpr uint32_t kMixMultL = 0xca01f9ddu;
constexpr uint32_t kMixMultR = 0x4973f715u;
constexpr int kXShift = 16;
constexpr int kPoolSize = 4;
constexpr int kStateWords = 8;  // generate_state(8) -> two 128-bit numbers.

// The ziggurat's tail start R and its inverse, as numpy's exact doubles;
// 1 / R computed here would not be the same double.
constexpr double kZigR = 0x1.d3bb48209ad33p+1;
constexpr double kZigInvR = 0x1.183aa6c20e8c1p-2;

// SeedSequence's hashmix. The multiplier h is shared by all calls of one
// construction, so it is threaded through by reference.
inline uint32_t HashMix(uint32_t value, uint32_t* h) {
  value ^= *h;
  *h *= kMultA;
  value *= *h;
  value ^= value >> kXShift;
  return value;
}

inline uint32_t Mix(uint32_t x, uint32_t y) {
  uint32_t result = kMixMultL * x - kMixMultR * y;
  result ^= result >> kXShift;
  return result;
}

}  // namespace

NumpyRandom::NumpyRandom(uint64_t seed) {
  const uint32_t words[2] = {static_cast<uint32_t>(seed),
                             static_cast<uint32_t>(seed >> 32)};
  SeedFromWords(words);
}

NumpyRandom NumpyRandom::FromSeedWords(std::span<const uint32_t> words) {
  NumpyRandom r;
  r.SeedFromWords(words);
  return r;
}

void NumpyRandom::SeedFromWords(std::span<const uint32_t> words) {
  // numpy splits an int into exactly as many words as it needs; high zero
  // words would add mixing rounds (phase 3) and change the state.
  size_t n = words.size();
  while (n > 0 && words[n - 1] == 0) --n;
  std::vector<uint32_t> entropy(words.begin(), words.begin() + n);
  if (entropy.empty()) entropy.push_back(0);

  // SeedSequence.mix_entropy.
  uint32_t h = kInitA;
  uint32_t pool[kPoolSize];
  for (size_t i = 0; i < kPoolSize; ++i) {
    pool[i] = HashMix(i < entropy.size() ? entropy[i] : 0u, &h);
  }
  for (int src = 0; src < kPoolSize; ++src) {
    for (int dst = 0; dst < kPoolSize; ++dst) {
      if (src != dst) pool[dst] = Mix(pool[dst], HashMix(pool[src], &h));
    }
  }
  for (size_t src = kPoolSize; src < entropy.size(); ++src) {
    for (int dst = 0; dst < kPoolSize; ++dst) {
      pool[dst] = Mix(pool[dst], HashMix(entropy[src], &h));
    }
  }

  // SeedSequence.generate_state(8, uint32), with its own running multiplier.
  uint32_t out[kStateWords];
  uint32_t hb = kInitB;
  for (int i = 0; i < kStateWords; ++i) {
    uint32_t v = pool[i % kPoolSize];
    v ^= hb;
    hb *= kMultB;
    v *= hb;
    v ^= v >> kXShift;
    out[i] = v;
  }
  // Viewed as uint64 (little-endian pairs), then as two 128-bit numbers with
  // the first uint64 as the high half.
  uint64_t v64[4];
  for (int i = 0; i < 4; ++i) {
    v64[i] = static_cast<uint64_t>(out[2 * i]) |
             (static_cast<uint64_t>(out[2 * i + 1]) << 32);
  }
  const unsigned __int128 initstate =
      (static_cast<unsigned __int128>(v64[0]) << 64) | v64[1];
  const unsigned __int128 initseq =
      (static_cast<unsigned __int128>(v64[2]) << 64) | v64[3];

  // pcg64_srandom_r.
  state_.increment = (initseq << 1) | 1u;
  state_.state = 0;
  state_.state = state_.state * kMultiplier + state_.increment;
  state_.state += initstate;
  state_.state = state_.state * kMultiplier + state_.increment;
}

double NumpyRandom::standard_normal() {
  using ziggurat::kFi;
  using ziggurat::kKi;
  using ziggurat::kWi;
  for (;;) {
    uint64_t r = next64();
    const int idx = static_cast<int>(r & 0xff);
    r >>= 8;
    const bool negative = (r & 1) != 0;
    const uint64_t rabs = (r >> 1) & 0x000fffffffffffffULL;
    // rabs < 2^52 converts exactly; the signed conversion is the faster one.
    double x = static_cast<double>(static_cast<int64_t>(rabs)) * kWi[idx];
    if (negative) x = -x;
    if (rabs < kKi[idx]) return x;  // The rectangle: ~99.3% of draws.
    if (idx == 0) {
      // The tail beyond R (Marsaglia's method). numpy >= 1.21 uses log1p.
      for (;;) {
        const double xx = -kZigInvR * std::log1p(-next_double());
        const double yy = -std::log1p(-next_double());
        if (yy + yy > xx * xx) {
          // numpy takes the tail's sign from bit 8 of rabs, not from the sign
          // bit above; copying that keeps the stream identical.
          return ((rabs >> 8) & 1) ? -(kZigR + xx) : kZigR + xx;
        }
      }
    }
    // The wedge between two rectangles.
    const double u = next_double();
    if ((kFi[idx - 1] - kFi[idx]) * u + kFi[idx] < std::exp(-0.5 * x * x)) {
      return x;
    }
  }
}

}  // namespace pams
