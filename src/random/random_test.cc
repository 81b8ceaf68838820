// Tests for Random against testdata/vectors.json, which real CPython 3.11
// drew (a script outside this repository wrote it): every list is compared bit
// for bit.

#include "pams/random/random.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "random_test_util.h"

namespace pams {
namespace {

using nlohmann::json;
using testing::Bits;
using testing::HexField;
using testing::Sha256Hex;

const json& Vectors() {
  static const json* vectors =
      new json(testing::LoadTestData("vectors.json"));
  return *vectors;
}

// A fresh generator for one `random[]` entry, seeded from its decimal text.
Random Fresh(const json& entry) {
  return Random::FromDecimalSeed(entry.at("seed").get<std::string>());
}

// hex(v) in Python: lowercase, no leading zeros.
std::string PythonHex(unsigned __int128 v) {
  if (v == 0) return "0x0";
  std::string digits;
  while (v != 0) {
    digits.insert(digits.begin(), "0123456789abcdef"[static_cast<int>(v & 15)]);
    v >>= 4;
  }
  return "0x" + digits;
}

// ','.join(str(v) for v in values)
template <typename T>
std::string Join(const std::vector<T>& values) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(values[i]);
  }
  return s;
}

class RandomVectorTest : public ::testing::Test {
 protected:
  const json& entries() { return Vectors().at("random"); }
};

TEST(RandomTest, SeedingRoutesAgree) {
  for (const json& e : Vectors().at("random")) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    const std::vector<uint32_t> key =
        e.at("init_by_array_key_le32").get<std::vector<uint32_t>>();
    const Random from_text = Fresh(e);
    const Random from_words = Random::FromSeedWords(key);
    EXPECT_EQ(from_text.getstate(), from_words.getstate());
    if (key.size() <= 2) {
      uint64_t seed = key[0];
      if (key.size() == 2) seed |= static_cast<uint64_t>(key[1]) << 32;
      EXPECT_EQ(Random(seed).getstate(), from_text.getstate());
      Random reseeded(12345);
      reseeded.gauss(0.0, 1.0);  // Fills the cache, which seed() must clear.
      reseeded.seed(seed);
      EXPECT_EQ(reseeded.getstate(), from_text.getstate());
    }
  }
}

TEST(RandomTest, SeedWordsIgnoreHighZeroWords) {
  const uint32_t padded[] = {42, 0, 0};
  EXPECT_EQ(Random::FromSeedWords(padded).getstate(), Random(42).getstate());
  EXPECT_EQ(Random::FromSeedWords({}).getstate(), Random(0).getstate());
  const uint32_t two_pow_32[] = {0, 1};
  EXPECT_EQ(Random::FromSeedWords(two_pow_32).getstate(),
            Random(uint64_t{1} << 32).getstate());
  EXPECT_EQ(Random::FromDecimalSeed("4294967296").getstate(),
            Random(uint64_t{1} << 32).getstate());
  EXPECT_EQ(Random::FromDecimalSeed("18446744073709551615").getstate(),
            Random(UINT64_MAX).getstate());
  EXPECT_EQ(Random::FromDecimalSeed("000042").getstate(),
            Random(42).getstate());
}

TEST(RandomTest, NegativeSeedDrawsLikeItsAbsoluteValue) {
  EXPECT_EQ(Random::FromDecimalSeed("-42").getstate(), Random(42).getstate());
  EXPECT_EQ(Random::FromDecimalSeed("-0").getstate(), Random(0).getstate());
  EXPECT_EQ(
      Random::FromDecimalSeed("-123456789012345678901234567890").getstate(),
      Random::FromDecimalSeed("123456789012345678901234567890").getstate());
}

TEST(RandomTest, BadDecimalSeedThrows) {
  for (const char* text : {"", "-", "12a", " 1", "1 ", "+1", "0x10", "1.0",
                           "--1"}) {
    SCOPED_TRACE(text);
    EXPECT_THROW(Random::FromDecimalSeed(text), std::invalid_argument);
  }
}

TEST_F(RandomVectorTest, Random20) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& v : e.at("random_20")) {
      EXPECT_EQ(Bits(r.random()), Bits(HexField(v)));
    }
  }
}

TEST_F(RandomVectorTest, Getrandbits32) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& v : e.at("getrandbits32_20")) {
      EXPECT_EQ(r.getrandbits(32), v.get<uint64_t>());
    }
    // genrand_uint32 is the same output.
    Random g = Fresh(e);
    for (const json& v : e.at("getrandbits32_20")) {
      EXPECT_EQ(g.genrand_uint32(), v.get<uint32_t>());
    }
  }
}

TEST_F(RandomVectorTest, Getrandbits64) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& v : e.at("getrandbits64_5_hex")) {
      EXPECT_EQ(PythonHex(r.getrandbits(64)), v.get<std::string>());
    }
  }
}

// getrandbits(100) takes four outputs, low word first, and keeps the top 4
// bits of the last: the same as getrandbits(64), (32), (4) in a row.
TEST_F(RandomVectorTest, Getrandbits100FromSmallerCalls) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& v : e.at("getrandbits100_3_hex")) {
      unsigned __int128 x = r.getrandbits(64);
      x |= static_cast<unsigned __int128>(r.getrandbits(32)) << 64;
      x |= static_cast<unsigned __int128>(r.getrandbits(4)) << 96;
      EXPECT_EQ(PythonHex(x), v.get<std::string>());
    }
  }
}

TEST(RandomTest, GetrandbitsPartialWords) {
  Random a(7), b(7);
  // k = 0 consumes nothing.
  EXPECT_EQ(a.getrandbits(0), 0u);
  EXPECT_EQ(a.getrandbits(5), b.genrand_uint32() >> 27);
  const uint64_t lo = b.genrand_uint32();
  const uint64_t hi = b.genrand_uint32() >> 24;
  EXPECT_EQ(a.getrandbits(40), lo | (hi << 32));
  EXPECT_EQ(a.getstate(), b.getstate());
  EXPECT_THROW(a.getrandbits(-1), std::invalid_argument);
  EXPECT_THROW(a.getrandbits(65), std::invalid_argument);
  EXPECT_EQ(a.getstate(), b.getstate());
}

TEST_F(RandomVectorTest, RandintPams) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& v : e.at("randint_0_2pow31_20")) {
      EXPECT_EQ(r.randint(0, int64_t{1} << 31), v.get<int64_t>());
    }
  }
}

TEST_F(RandomVectorTest, RandintDie) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& v : e.at("randint_1_6_20")) {
      EXPECT_EQ(r.randint(1, 6), v.get<int64_t>());
    }
  }
}

TEST_F(RandomVectorTest, RandintSingleValueConsumes) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    const json& v = e.at("randint_5_5_then_random");
    EXPECT_EQ(r.randint(5, 5), v.at("randint").get<int64_t>());
    EXPECT_EQ(Bits(r.random()), Bits(HexField(v.at("random"))));
  }
}

TEST(RandomTest, RandintEmptyRangeThrowsAndConsumesNothing) {
  Random r(3);
  const Random::State before = r.getstate();
  EXPECT_THROW(r.randint(2, 1), std::invalid_argument);
  EXPECT_THROW(r.randint(INT64_MIN, INT64_MAX), std::invalid_argument);
  EXPECT_EQ(r.getstate(), before);
  // Extreme but valid bounds do not overflow.
  const int64_t x = r.randint(INT64_MAX - 1, INT64_MAX);
  EXPECT_GE(x, INT64_MAX - 1);
  const int64_t y = r.randint(INT64_MIN, INT64_MIN + 3);
  EXPECT_LE(y, INT64_MIN + 3);
}

TEST_F(RandomVectorTest, Gauss) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& v : e.at("gauss_0_1_20")) {
      EXPECT_EQ(Bits(r.gauss(0.0, 1.0)), Bits(HexField(v)));
    }
  }
}

TEST_F(RandomVectorTest, GaussCacheInterleaved) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& step : e.at("gauss_cache_interleaved")) {
      const std::string op = step.at("op").get<std::string>();
      SCOPED_TRACE(op);
      double x;
      if (op == "gauss") {
        x = r.gauss(0.0, 1.0);
      } else if (op == "random") {
        x = r.random();
      } else {
        ASSERT_EQ(op, "gauss(10,3)");
        x = r.gauss(10.0, 3.0);
      }
      EXPECT_EQ(Bits(x), Bits(HexField(step.at("value"))));
    }
  }
}

TEST_F(RandomVectorTest, SampleFull) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    std::vector<int32_t> out;
    for (const auto& [n_text, digest] : e.at("sample_full").items()) {
      SCOPED_TRACE(n_text);
      const int n = std::stoi(n_text);
      std::vector<int32_t> population(n);
      std::iota(population.begin(), population.end(), 0);
      Random r = Fresh(e);
      r.sample_all(std::span<const int32_t>(population), &out);
      ASSERT_EQ(out.size(), digest.at("len").get<size_t>());
      const std::vector<int32_t> first10 =
          digest.at("first10").get<std::vector<int32_t>>();
      EXPECT_EQ(std::vector<int32_t>(out.begin(),
                                     out.begin() + first10.size()),
                first10);
      EXPECT_EQ(Sha256Hex(Join(out)), digest.at("sha256").get<std::string>());

      // sample_indices(n, n) is the same draw, through CPython's own loop.
      Random s = Fresh(e);
      const std::vector<size_t> idx = s.sample_indices(n, n);
      EXPECT_EQ(Sha256Hex(Join(idx)), digest.at("sha256").get<std::string>());
      EXPECT_EQ(r.getstate(), s.getstate());
    }
  }
}

TEST(RandomTest, SampleAllMatchesPoolLoopAndShufflesInPlace) {
  std::vector<std::string> out;
  for (size_t n : {0u, 1u, 2u, 3u, 21u, 22u, 300u, 4097u}) {
    SCOPED_TRACE(n);
    std::vector<std::string> population(n);
    for (size_t i = 0; i < n; ++i) population[i] = std::to_string(i) + "x";
    Random a(99), b(99), c(99);
    a.sample_all(population, &out);
    const std::vector<size_t> idx = b.sample_indices(n, n);
    ASSERT_EQ(out.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], population[idx[i]]);
    EXPECT_EQ(a.getstate(), b.getstate());
    // population == *out: in place.
    std::vector<std::string> in_place = population;
    c.sample_all(in_place, &in_place);
    EXPECT_EQ(in_place, out);
  }
}

// CPython's pool branch of sample(), written plainly on top of randbelow().
std::vector<int32_t> ReferenceSampleAll(const std::vector<int32_t>& population,
                                        Random* rng) {
  const size_t n = population.size();
  std::vector<int32_t> pool = population;
  std::vector<int32_t> result(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t j = static_cast<size_t>(rng->randbelow(n - i));
    result[i] = pool[j];
    pool[j] = pool[n - i - 1];
  }
  return result;
}

// sample_all draws from chunks of pre-tempered outputs; starting it at every
// offset within an MT block, with sizes that straddle chunk ends, twists and
// power-of-two bounds, checks that it consumes exactly CPython's outputs.
TEST(RandomTest, SampleAllAtEveryStreamOffset) {
  std::vector<int32_t> out;
  for (size_t n : {1u, 2u, 3u, 5u, 31u, 64u, 65u, 129u, 257u, 1000u, 1500u}) {
    std::vector<int32_t> population(n);
    for (size_t i = 0; i < n; ++i) population[i] = static_cast<int32_t>(i * 3);
    for (int offset = 0; offset < Random::kStateWords + 2; offset += 7) {
      SCOPED_TRACE(std::to_string(n) + " after " + std::to_string(offset));
      Random a(1234), b(1234);
      for (int i = 0; i < offset; ++i) {
        a.genrand_uint32();
        b.genrand_uint32();
      }
      a.sample_all(population, &out);
      ASSERT_EQ(out, ReferenceSampleAll(population, &b));
      ASSERT_EQ(a.getstate(), b.getstate());
      // Repeated calls continue the same stream.
      a.sample_all(population, &out);
      ASSERT_EQ(out, ReferenceSampleAll(population, &b));
      ASSERT_EQ(a.getstate(), b.getstate());
    }
  }
  // An empty population draws nothing.
  Random a(5);
  const Random::State before = a.getstate();
  a.sample_all(std::vector<int32_t>{}, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(a.getstate(), before);
}

TEST_F(RandomVectorTest, Shuffle) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    std::vector<int> v(10);
    std::iota(v.begin(), v.end(), 0);
    r.shuffle(&v);
    EXPECT_EQ(v, e.at("shuffle_range10").get<std::vector<int>>());
  }
}

TEST_F(RandomVectorTest, Expovariate) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& v : e.at("expovariate_1_10")) {
      EXPECT_EQ(Bits(r.expovariate(1.0)), Bits(HexField(v)));
    }
  }
}

TEST_F(RandomVectorTest, SampleSetBranch) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    EXPECT_EQ(r.sample_indices(10000, 10),
              e.at("sample_range10000_k10_setbranch")
                  .get<std::vector<size_t>>());
    Random s = Fresh(e);
    EXPECT_EQ(s.sample_indices(1000, 50),
              e.at("sample_list1000_k50_setbranch").get<std::vector<size_t>>());
  }
}

TEST_F(RandomVectorTest, SamplePoolBranch) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    EXPECT_EQ(r.sample_indices(277, 50),
              e.at("sample_list277_k50_poolbranch").get<std::vector<size_t>>());
  }
}

TEST(RandomTest, SampleIndicesEdges) {
  Random r(5);
  const Random::State before = r.getstate();
  EXPECT_TRUE(r.sample_indices(0, 0).empty());
  EXPECT_TRUE(r.sample_indices(1000000, 0).empty());
  EXPECT_EQ(r.getstate(), before);  // k == 0 draws nothing.
  EXPECT_THROW(r.sample_indices(3, 4), std::invalid_argument);
  EXPECT_EQ(r.getstate(), before);
  // Distinct indices, in range, in both branches.
  for (auto [n, k] : {std::pair<size_t, size_t>{100000, 1000}, {30, 30}}) {
    std::vector<size_t> s = r.sample_indices(n, k);
    ASSERT_EQ(s.size(), k);
    std::sort(s.begin(), s.end());
    EXPECT_TRUE(std::adjacent_find(s.begin(), s.end()) == s.end());
    EXPECT_LT(s.back(), n);
  }
}

TEST_F(RandomVectorTest, Choice) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& v : e.at("choice_list7_10")) {
      EXPECT_EQ(r.choice_index(7), v.get<size_t>());
    }
  }
}

TEST_F(RandomVectorTest, ChoicesWeighted) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    const json& c = e.at("choices_weighted_k10");
    std::vector<double> weights;
    for (const json& w : c.at("weights")) weights.push_back(HexField(w));
    Random r = Fresh(e);
    for (const json& v : c.at("result")) {
      EXPECT_EQ(r.choices_index(weights), v.get<size_t>());
    }
  }
}

// choices() without weights is floor(random() * n); it needs no method.
TEST_F(RandomVectorTest, ChoicesUnweighted) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& v : e.at("choices_unweighted_range7_k10")) {
      EXPECT_EQ(static_cast<size_t>(std::floor(r.random() * 7.0)),
                v.get<size_t>());
    }
  }
}

TEST(RandomTest, ChoicesIndexBisectsRunningSums) {
  // Picks follow x = random() * total against cum = [1, 3, 6, 6, 10].
  const std::vector<double> weights = {1.0, 2.0, 3.0, 0.0, 4.0};
  const double cum[] = {1.0, 3.0, 6.0, 6.0, 10.0};
  Random r(11), shadow(11);
  for (int i = 0; i < 1000; ++i) {
    const double x = shadow.random() * 10.0;
    size_t expected = 0;
    while (expected < 4 && !(x < cum[expected])) ++expected;
    EXPECT_EQ(r.choices_index(weights), expected);
  }
  // More weights than the inline buffer holds.
  std::vector<double> many(100, 1.0);
  Random big(1), big_shadow(1);
  for (int i = 0; i < 100; ++i) {
    const double x = big_shadow.random() * 100.0;
    EXPECT_EQ(big.choices_index(many), static_cast<size_t>(x));
  }
}

TEST(RandomTest, ChoicesIndexRejectsBadWeightsWithoutDrawing) {
  Random r(1);
  const Random::State before = r.getstate();
  EXPECT_THROW(r.choices_index({}), std::invalid_argument);
  const std::vector<double> zero = {0.0, 0.0};
  EXPECT_THROW(r.choices_index(zero), std::invalid_argument);
  const std::vector<double> negative = {1.0, -2.0};
  EXPECT_THROW(r.choices_index(negative), std::invalid_argument);
  const std::vector<double> inf = {1.0, INFINITY};
  EXPECT_THROW(r.choices_index(inf), std::invalid_argument);
  const std::vector<double> nan = {1.0, NAN};
  EXPECT_THROW(r.choices_index(nan), std::invalid_argument);
  EXPECT_EQ(r.getstate(), before);
}

TEST_F(RandomVectorTest, Uniform) {
  for (const json& e : entries()) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random r = Fresh(e);
    for (const json& v : e.at("uniform_m1.5_2.25_5")) {
      EXPECT_EQ(Bits(r.uniform(-1.5, 2.25)), Bits(HexField(v)));
    }
  }
}

// The seeds PAMS derives: runner -> simulator -> fundamentals -> numpy.
TEST(RandomTest, PamsSeedChain) {
  for (const json& e : Vectors().at("pams_seed_chain")) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random runner = Random::FromDecimalSeed(e.at("seed").get<std::string>());
    const int64_t simulator_seed = runner.randint(0, int64_t{1} << 31);
    EXPECT_EQ(simulator_seed, e.at("simulator_seed").get<int64_t>());
    const int64_t fundamentals_seed =
        Random(static_cast<uint64_t>(simulator_seed)).randint(0, int64_t{1} << 31);
    EXPECT_EQ(fundamentals_seed, e.at("fundamentals_seed").get<int64_t>());
    const int64_t numpy_seed = Random(static_cast<uint64_t>(fundamentals_seed))
                                   .randint(0, int64_t{1} << 31);
    EXPECT_EQ(numpy_seed, e.at("numpy_seed").get<int64_t>());
    for (const json& v : e.at("runner_next_3_randint_0_2pow31")) {
      EXPECT_EQ(runner.randint(0, int64_t{1} << 31), v.get<int64_t>());
    }
  }
}

TEST(RandomTest, StateRoundTrip) {
  Random r(2024);
  for (int i = 0; i < 1000; ++i) r.random();  // Mid-block position.
  r.gauss(0.0, 1.0);                            // Cache full.
  const Random::State state = r.getstate();
  EXPECT_TRUE(state.has_gauss_next);

  std::vector<double> expected;
  for (int i = 0; i < 700; ++i) {  // Crosses a twist.
    expected.push_back(r.gauss(1.0, 2.0));
    expected.push_back(r.random());
  }

  Random restored(1);
  restored.setstate(state);
  EXPECT_EQ(restored.getstate(), state);
  for (size_t i = 0; i < expected.size(); i += 2) {
    EXPECT_EQ(Bits(restored.gauss(1.0, 2.0)), Bits(expected[i]));
    EXPECT_EQ(Bits(restored.random()), Bits(expected[i + 1]));
  }
  EXPECT_EQ(restored.getstate(), r.getstate());

  Random::State bad = state;
  bad.index = Random::kStateWords + 1;
  EXPECT_THROW(restored.setstate(bad), std::invalid_argument);
}

TEST(RandomTest, CopyCopiesTheStream) {
  Random a(77);
  a.gauss(0.0, 1.0);
  Random b = a;  // Includes the cached gauss value.
  for (int i = 0; i < 2000; ++i) {
    EXPECT_EQ(Bits(a.gauss(0.0, 1.0)), Bits(b.gauss(0.0, 1.0)));
    EXPECT_EQ(a.randint(0, 100), b.randint(0, 100));
  }
  Random c(1);
  c = a;
  EXPECT_EQ(c.getstate(), a.getstate());
  EXPECT_EQ(Bits(c.random()), Bits(a.random()));
}

TEST(RandomTest, RandbelowLargeBounds) {
  // n > 2^32 draws getrandbits(k) per attempt, two outputs each.
  Random a(8), b(8);
  const uint64_t n = (uint64_t{1} << 40) + 12345;
  for (int i = 0; i < 100; ++i) {
    uint64_t expected;
    do {
      expected = b.getrandbits(41);
    } while (expected >= n);
    EXPECT_EQ(a.randbelow(n), expected);
  }
  EXPECT_LT(a.randbelow(UINT64_MAX), UINT64_MAX);
  // n = 1 still consumes an output.
  const Random::State before = a.getstate();
  EXPECT_EQ(a.randbelow(1), 0u);
  EXPECT_NE(a.getstate(), before);
}

}  // namespace
}  // namespace pams
