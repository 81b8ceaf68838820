// Random: CPython's random.Random, reproduced bit for bit. The MT19937 core
// follows CPython's _randommodule.c, the methods follow Lib/random.py (3.11);
// (CPython's sources are the specification).

#include "pams/random/random.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace pams {

namespace {

constexpr int kN = Random::kStateWords;
constexpr int kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfu;
constexpr uint32_t kUpperMask = 0x80000000u;
constexpr uint32_t kLowerMask = 0x7fffffffu;

// math.tau, written as the exact double CPython uses.
constexpr double kTwoPi = 0x1.921fb54442d18p+2;

// One step of the MT19937 recurrence. Selecting MATRIX_A by mask instead of a
// branch keeps the twist loop free of unpredictable jumps.
inline uint32_t MixBits(uint32_t u, uint32_t v, uint32_t far) {
  const uint32_t y = (u & kUpperMask) | (v & kLowerMask);
  return far ^ (y >> 1) ^ (kMatrixA & (0u - (y & 1u)));
}

// |seed| as CPython's init_by_array key: 32-bit words, least significant
// first, exactly ceil(bit_length / 32) of them, and [0] for zero. High zero
// words would change the key length, and with it the whole stream.
std::span<const uint32_t> NormalizeKey(std::span<const uint32_t> words) {
  static constexpr uint32_t kZero[1] = {0};
  size_t n = words.size();
  while (n > 0 && words[n - 1] == 0) --n;
  if (n == 0) return kZero;
  return words.first(n);
}

// init_genrand(19650218), where every seeding starts: the same 624 words
// each time, so computed once, at compile time.
constexpr std::array<uint32_t, kN> GenrandState(uint32_t s) {
  std::array<uint32_t, kN> mt{};
  mt[0] = s;
  for (int i = 1; i < kN; ++i) {
    mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + static_cast<uint32_t>(i);
  }
  return mt;
}
constexpr std::array<uint32_t, kN> kGenrand19650218 = GenrandState(19650218u);

}  // namespace

Random::Random(uint64_t seed) { this->seed(seed); }

Random Random::FromSeedWords(std::span<const uint32_t> words) {
  Random r;
  r.seed_words(words);
  return r;
}

Random Random::FromDecimalSeed(std::string_view text) {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '-') digits.remove_prefix(1);
  if (digits.empty()) {
    throw std::invalid_argument("Random::FromDecimalSeed: not a decimal integer: \"" +
                                std::string(text) + "\"");
  }
  for (char c : digits) {
    if (c < '0' || c > '9') {
      throw std::invalid_argument(
          "Random::FromDecimalSeed: not a decimal integer: \"" +
          std::string(text) + "\"");
    }
  }
  // Base 10^9 chunks keep the schoolbook multiply-add short: words =
  // words * 10^chunk_len + chunk, with the words least significant first.
  std::vector<uint32_t> words;
  size_t pos = 0;
  while (pos < digits.size()) {
    const size_t len = std::min<size_t>(9, digits.size() - pos);
    uint64_t scale = 1;
    uint64_t carry = 0;
    for (size_t i = 0; i < len; ++i) {
      scale *= 10;
      carry = carry * 10 + static_cast<uint64_t>(digits[pos + i] - '0');
    }
    pos += len;
    for (uint32_t& w : words) {
      const uint64_t t = static_cast<uint64_t>(w) * scale + carry;
      w = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) words.push_back(static_cast<uint32_t>(carry));
  }
  return FromSeedWords(words);
}

void Random::seed(uint64_t seed) {
  const uint32_t words[2] = {static_cast<uint32_t>(seed),
                             static_cast<uint32_t>(seed >> 32)};
  seed_words(words);
}

void Random::seed_words(std::span<const uint32_t> words) {
  mt_ = kGenrand19650218;
  InitByArray(NormalizeKey(words));
  has_gauss_next_ = false;
  gauss_next_ = 0.0;
  ++resets_;
}

void Random::InitByArray(std::span<const uint32_t> key) {
  // CPython's loops, with the previous word kept in a register and the key
  // read through a local pointer: mt_ is written every step, and the
  // compiler could otherwise assume the key aliases it and reload both.
  uint32_t* mt = mt_.data();
  const uint32_t* words = key.data();
  const size_t length = key.size();
  size_t i = 1;
  size_t j = 0;
  uint32_t previous = mt[0];
  for (size_t k = std::max<size_t>(kN, length); k > 0; --k) {
    // Non-linear: the key words and their positions are added (mod 2^32).
    previous = (mt[i] ^ ((previous ^ (previous >> 30)) * 1664525u)) + words[j] +
               static_cast<uint32_t>(j);
    mt[i] = previous;
    ++i;
    ++j;
    if (i >= kN) {
      mt[0] = previous;  // mt[kN - 1]
      i = 1;
    }
    if (j >= length) j = 0;
  }
  for (int k = kN - 1; k > 0; --k) {
    previous = (mt[i] ^ ((previous ^ (previous >> 30)) * 1566083941u)) -
               static_cast<uint32_t>(i);
    mt[i] = previous;
    ++i;
    if (i >= kN) {
      mt[0] = previous;
      i = 1;
    }
  }
  mt[0] = 0x80000000u;  // MSB is 1, assuring a non-zero initial array.
  index_ = kN;
}

// GCC builds AVX2 and AVX-512 clones of the two loops below and picks one at
// load time. Clang refuses to clone a member function that an inline
// function used before its definition; clang builds (the fuzzer's, the
// sanitizers') do without the clones, and so do ThreadSanitizer builds,
// whose statically linked tests run the clones' resolver before TSan is
// initialized.
#if defined(__clang__) || defined(__SANITIZE_THREAD__)
#define PAMS_SIMD_CLONES
#else
#define PAMS_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

// Integer-only, so every instruction set gives the same bits; the AVX2 and
// AVX-512 clones twist 8 or 16 words at once.
PAMS_SIMD_CLONES
void Random::Twist() {
  // The reference loop indexes (k + M) mod N; splitting it into the three
  // ranges where that index does not wrap removes the modulo.
  uint32_t* mt = mt_.data();
  int k = 0;
  for (; k < kN - kM; ++k) mt[k] = MixBits(mt[k], mt[k + 1], mt[k + kM]);
  for (; k < kN - 1; ++k) {
    mt[k] = MixBits(mt[k], mt[k + 1], mt[k + (kM - kN)]);
  }
  mt[kN - 1] = MixBits(mt[kN - 1], mt[0], mt[kM - 1]);
  index_ = 0;
  ++twists_;
}

// Cloned like Twist: the tempering pass vectorizes 8 or 16 wide.
PAMS_SIMD_CLONES
void Random::skip_randbelow_descending(uint64_t m64) {
  if (m64 > 0xffffffffu) {
    throw std::invalid_argument("Random::skip_randbelow_descending: m >= 2^32");
  }
  uint32_t m = static_cast<uint32_t>(m64);
  if (m == 0) return;
  // Each output is tempered in a vectorizable pass over the block; the
  // scan then carries only m: an output is accepted, and m steps down, when
  // it is below m after dropping the bits randbelow(m) drops.
  int shift = 32 - BitLength(m);
  uint32_t low = uint32_t{1} << (31 - shift);  // m's bit length holds while m >= low
  constexpr uint32_t kBlock = 64;
  uint32_t words[kBlock];
  for (;;) {
    if (index_ >= kN) Twist();
    const uint32_t len = std::min<uint32_t>(kBlock, kN - index_);
    const uint32_t* src = mt_.data() + index_;
    for (uint32_t t = 0; t < len; ++t) words[t] = Temper(src[t]);
    for (uint32_t t = 0; t < len; ++t) {
      if (m < low) {
        ++shift;
        low >>= 1;
      }
      m -= (words[t] >> shift) < m;
      if (m == 0) {
        index_ += t + 1;
        return;
      }
    }
    index_ += len;
  }
}

uint64_t Random::getrandbits(int k) {
  if (k < 0 || k > 64) {
    throw std::invalid_argument("Random::getrandbits: k must be in [0, 64], got " +
                                std::to_string(k));
  }
  if (k == 0) return 0;  // Python 3.9+: no output consumed.
  if (k <= 32) return genrand_uint32() >> (32 - k);
  // Least significant word first; only the last word is partial.
  const uint64_t lo = genrand_uint32();
  const uint64_t hi = genrand_uint32() >> (64 - k);
  return lo | (hi << 32);
}

int64_t Random::randint(int64_t a, int64_t b) {
  if (a > b) {
    throw std::invalid_argument("Random::randint: empty range [" +
                                std::to_string(a) + ", " + std::to_string(b) +
                                "]");
  }
  const uint64_t width =
      static_cast<uint64_t>(b) - static_cast<uint64_t>(a) + 1;
  if (width == 0) {
    // b - a + 1 == 2^64 needs a 65-bit _randbelow, which this port lacks.
    throw std::invalid_argument(
        "Random::randint: range of 2^64 values is not supported");
  }
  // Wrapping unsigned addition gives a + r without signed overflow.
  return static_cast<int64_t>(static_cast<uint64_t>(a) + randbelow(width));
}

double Random::gauss(double mu, double sigma) {
  double z;
  if (has_gauss_next_) {
    z = gauss_next_;
    has_gauss_next_ = false;
    gauss_next_ = 0.0;  // Keeps equal streams' states equal.
  } else {
    // Two statements fix the order of the draws: u1 feeds the angle.
    const double u1 = random();
    const double u2 = random();
    const double x2pi = u1 * kTwoPi;
    const double g2rad = std::sqrt(-2.0 * std::log(1.0 - u2));
    z = std::cos(x2pi) * g2rad;
    gauss_next_ = std::sin(x2pi) * g2rad;
    has_gauss_next_ = true;
  }
  return mu + z * sigma;
}

double Random::uniform(double a, double b) { return a + (b - a) * random(); }

double Random::expovariate(double lambd) {
  // A real division: multiplying by 1 / lambd rounds differently.
  return -std::log(1.0 - random()) / lambd;
}

size_t Random::choices_index(std::span<const double> weights) {
  const size_t n = weights.size();
  if (n == 0) {
    throw std::invalid_argument("Random::choices_index: weights are empty");
  }
  // CPython bisects the list of running sums. Weights may be negative, which
  // makes the sums unsorted, so a real bisection (not a linear scan) is what
  // reproduces CPython in every case. Small inputs avoid the heap.
  constexpr size_t kInline = 32;
  double inline_cum[kInline];
  std::vector<double> heap_cum;
  double* cum = inline_cum;
  if (n > kInline) {
    heap_cum.resize(n);
    cum = heap_cum.data();
  }
  double sum = weights[0];
  cum[0] = sum;
  for (size_t i = 1; i < n; ++i) {
    sum = sum + weights[i];
    cum[i] = sum;
  }
  const double total = cum[n - 1] + 0.0;
  if (!(total > 0.0) || !std::isfinite(total)) {
    throw std::invalid_argument(
        "Random::choices_index: total of weights must be greater than zero "
        "and finite");
  }
  const double x = random() * total;
  // bisect_right(cum, x, 0, n - 1).
  size_t lo = 0;
  size_t hi = n - 1;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (x < cum[mid]) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

std::vector<size_t> Random::sample_indices(size_t n, size_t k) {
  if (k > n) {
    throw std::invalid_argument("Random::sample_indices: sample larger than "
                                "population (k = " + std::to_string(k) +
                                ", n = " + std::to_string(n) + ")");
  }
  // CPython picks the branch by comparing n with an estimate of a set's size
  // in bytes: 21 + 4^ceil(log(3k) / log(4)). The exponent comes from libm's
  // log exactly as math.log(x, 4) computes it.
  bool use_pool = true;
  if (k > 5) {
    const double e =
        std::ceil(std::log(static_cast<double>(k * 3)) / std::log(4.0));
    // Beyond 4^31 = 2^62 no vector size can exceed the estimate.
    if (e <= 31) {
      const uint64_t setsize = 21 + (uint64_t{1} << (2 * static_cast<int>(e)));
      use_pool = n <= setsize;
    }
  } else {
    use_pool = n <= 21;
  }
  std::vector<size_t> result(k);
  if (use_pool) {
    std::vector<size_t> pool(n);
    for (size_t i = 0; i < n; ++i) pool[i] = i;
    for (size_t i = 0; i < k; ++i) {
      const size_t j = static_cast<size_t>(randbelow(n - i));
      result[i] = pool[j];
      pool[j] = pool[n - i - 1];  // Move the unselected tail into the hole.
    }
  } else {
    std::unordered_set<size_t> selected;
    selected.reserve(k);
    for (size_t i = 0; i < k; ++i) {
      size_t j = static_cast<size_t>(randbelow(n));
      while (selected.contains(j)) j = static_cast<size_t>(randbelow(n));
      selected.insert(j);
      result[i] = j;
    }
  }
  return result;
}

Random::State Random::getstate() const {
  State s;
  s.mt = mt_;
  s.index = index_;
  s.has_gauss_next = has_gauss_next_;
  s.gauss_next = gauss_next_;
  return s;
}

void Random::setstate(const State& state) {
  // CPython accepts a position in [0, N]; anything else would read past mt_.
  if (state.index > static_cast<uint32_t>(kN)) {
    throw std::invalid_argument("Random::setstate: index out of range: " +
                                std::to_string(state.index));
  }
  mt_ = state.mt;
  index_ = state.index;
  has_gauss_next_ = state.has_gauss_next;
  gauss_next_ = state.gauss_next;
  ++resets_;
}

void Random::advance(uint64_t twists, uint32_t position, bool has_gauss_next,
                     double gauss_next) {
  if (position > static_cast<uint32_t>(kN)) {
    throw std::invalid_argument("Random::advance: position out of range: " +
                                std::to_string(position));
  }
  for (uint64_t t = 0; t < twists; ++t) Twist();
  index_ = position;
  has_gauss_next_ = has_gauss_next;
  gauss_next_ = gauss_next;
}

}  // namespace pams
