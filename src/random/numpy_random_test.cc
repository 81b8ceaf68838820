// Tests for NumpyRandom against testdata/vectors.json, which real numpy 1.24
// drew (a script outside this repository wrote it): seeding state, raw outputs, and
// standard_normal bit for bit, including two 100,000-draw streams that reach
// the ziggurat's rare tail and wedge branches.

#include "pams/random/numpy_random.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pams/random/random.h"
#include "random_test_util.h"

namespace pams {
namespace {

using nlohmann::json;
using testing::Bits;
using testing::HexField;
using testing::PythonFloatHex;

const json& Vectors() {
  static const json* vectors =
      new json(testing::LoadTestData("vectors.json"));
  return *vectors;
}

unsigned __int128 ParseHex128(const std::string& text) {
  EXPECT_EQ(text.substr(0, 2), "0x");
  unsigned __int128 v = 0;
  for (char c : text.substr(2)) {
    const int digit = c <= '9' ? c - '0' : c - 'a' + 10;
    v = (v << 4) | static_cast<unsigned>(digit);
  }
  return v;
}

NumpyRandom Fresh(const json& entry) {
  return NumpyRandom(std::stoull(entry.at("seed").get<std::string>()));
}

void ExpectNormals(NumpyRandom* rng, const json& values) {
  for (const json& v : values) {
    EXPECT_EQ(Bits(rng->standard_normal()), Bits(HexField(v)));
  }
}

TEST(NumpyRandomTest, StateAfterSeeding) {
  for (const json& e : Vectors().at("numpy")) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    const json& s = e.at("pcg64_state_after_seeding");
    const NumpyRandom rng = Fresh(e);
    EXPECT_TRUE(rng.getstate().state ==
                ParseHex128(s.at("state").get<std::string>()));
    EXPECT_TRUE(rng.getstate().increment ==
                ParseHex128(s.at("inc").get<std::string>()));
    const std::vector<uint32_t> words =
        e.at("entropy_le32").get<std::vector<uint32_t>>();
    EXPECT_EQ(NumpyRandom::FromSeedWords(words).getstate(), rng.getstate());
  }
}

TEST(NumpyRandomTest, SeedWordsIgnoreHighZeroWords) {
  const uint32_t padded[] = {42, 0, 0, 0, 0, 0};
  EXPECT_EQ(NumpyRandom::FromSeedWords(padded).getstate(),
            NumpyRandom(42).getstate());
  EXPECT_EQ(NumpyRandom::FromSeedWords({}).getstate(),
            NumpyRandom(0).getstate());
  // More than four words reach SeedSequence's third mixing phase; the state
  // must differ from any shorter seed.
  const uint32_t long_seed[] = {1, 2, 3, 4, 5};
  const uint32_t short_seed[] = {1, 2, 3, 4};
  EXPECT_NE(NumpyRandom::FromSeedWords(long_seed).getstate(),
            NumpyRandom::FromSeedWords(short_seed).getstate());
}

TEST(NumpyRandomTest, RandomRaw) {
  for (const json& e : Vectors().at("numpy")) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    NumpyRandom rng = Fresh(e);
    for (const json& v : e.at("pcg64_random_raw_5_hex")) {
      EXPECT_TRUE(rng.next64() ==
                  static_cast<uint64_t>(ParseHex128(v.get<std::string>())));
    }
  }
}

TEST(NumpyRandomTest, GeneratorRandom) {
  for (const json& e : Vectors().at("numpy")) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    NumpyRandom rng = Fresh(e);
    for (const json& v : e.at("generator_random_5")) {
      EXPECT_EQ(Bits(rng.next_double()), Bits(HexField(v)));
    }
  }
}

TEST(NumpyRandomTest, StandardNormal) {
  for (const json& e : Vectors().at("numpy")) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    NumpyRandom rng = Fresh(e);
    ExpectNormals(&rng, e.at("standard_normal_20"));
    // size=(2, 5) continues the same stream, row-major, with no buffering.
    for (const json& row : e.at("standard_normal_2x5_after_the_20")) {
      ExpectNormals(&rng, row);
    }
    NumpyRandom fresh = Fresh(e);
    std::vector<double> block(10);
    fresh.standard_normal(block);
    size_t i = 0;
    for (const json& row : e.at("standard_normal_2x5_fresh")) {
      for (const json& v : row) EXPECT_EQ(Bits(block[i++]), Bits(HexField(v)));
    }
    EXPECT_EQ(i, block.size());
  }
}

// The python float.hex formatter used by the long-stream digests must agree
// with every hex string in the vectors.
TEST(NumpyRandomTest, PythonFloatHexFormat) {
  EXPECT_EQ(PythonFloatHex(0.0), "0x0.0p+0");
  EXPECT_EQ(PythonFloatHex(-0.0), "-0x0.0p+0");
  EXPECT_EQ(PythonFloatHex(1.0), "0x1.0000000000000p+0");
  EXPECT_EQ(PythonFloatHex(-0.5), "-0x1.0000000000000p-1");
  EXPECT_EQ(PythonFloatHex(1024.0), "0x1.0000000000000p+10");
  EXPECT_EQ(PythonFloatHex(5e-324), "0x0.0000000000001p-1022");
  int checked = 0;
  for (const json& e : Vectors().at("numpy")) {
    for (const char* key : {"standard_normal_20", "generator_random_5"}) {
      for (const json& v : e.at(key)) {
        EXPECT_EQ(PythonFloatHex(HexField(v)), v.at("hex").get<std::string>());
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 75);
}

TEST(NumpyRandomTest, LongStreamDigests) {
  for (const auto& [seed_text, expected] :
       Vectors().at("numpy_long_stream").items()) {
    SCOPED_TRACE(seed_text);
    NumpyRandom rng(std::stoull(seed_text));
    const int n = expected.at("n").get<int>();
    testing::Sha256 sha;
    double x = 0.0;
    for (int i = 0; i < n; ++i) {
      x = rng.standard_normal();
      if (i > 0) sha.Update(",");
      sha.Update(PythonFloatHex(x));
    }
    EXPECT_EQ(Bits(x), Bits(HexField(expected.at("last"))));
    EXPECT_EQ(sha.HexDigest(),
              expected.at("sha256_of_comma_joined_float_hex").get<std::string>());
  }
}

// PAMS's fundamentals: default_rng(numpy_seed).standard_normal(size=(1, 100)),
// with numpy_seed derived through three random.Random generators.
TEST(NumpyRandomTest, PamsSeedChainFirstChunk) {
  for (const json& e : Vectors().at("pams_seed_chain")) {
    SCOPED_TRACE(e.at("seed").get<std::string>());
    Random runner = Random::FromDecimalSeed(e.at("seed").get<std::string>());
    const int64_t simulator_seed = runner.randint(0, int64_t{1} << 31);
    const int64_t fundamentals_seed =
        Random(static_cast<uint64_t>(simulator_seed)).randint(0, int64_t{1} << 31);
    const int64_t numpy_seed = Random(static_cast<uint64_t>(fundamentals_seed))
                                   .randint(0, int64_t{1} << 31);
    ASSERT_EQ(numpy_seed, e.at("numpy_seed").get<int64_t>());
    NumpyRandom rng(static_cast<uint64_t>(numpy_seed));
    std::vector<double> dw(100);
    rng.standard_normal(dw);
    size_t i = 0;
    for (const json& v : e.at("first_chunk_dw_1x100_first5")) {
      EXPECT_EQ(Bits(dw[i++]), Bits(HexField(v)));
    }
  }
}

TEST(NumpyRandomTest, StateRoundTripAndCopy) {
  NumpyRandom a(5);
  for (int i = 0; i < 1000; ++i) a.standard_normal();
  const NumpyRandom::State state = a.getstate();
  NumpyRandom b = a;
  NumpyRandom c(6);
  c.setstate(state);
  EXPECT_EQ(c.getstate(), state);
  for (int i = 0; i < 1000; ++i) {
    const double x = a.standard_normal();
    EXPECT_EQ(Bits(b.standard_normal()), Bits(x));
    EXPECT_EQ(Bits(c.standard_normal()), Bits(x));
  }
}

}  // namespace
}  // namespace pams
