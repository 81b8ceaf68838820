#include "pams/random/lazy_sample.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace pams {
namespace {

// A lazy sample, stopped after k results and finished, must give the first k
// results of sample_all and leave the generator in the same state.
void ExpectSameAsSampleAll(size_t n, size_t k, uint64_t seed) {
  std::vector<int> population(n);
  std::iota(population.begin(), population.end(), 0);
  Random full(seed);
  Random lazy(seed);
  for (int round = 0; round < 3; ++round) {
    std::vector<int> expected;
    full.sample_all<int>(population, &expected);
    LazySample<int> sample;
    sample.start(&lazy, population);
    for (size_t i = 0; i < k && sample.has_next(); ++i) {
      ASSERT_EQ(sample.next(), expected[i]) << "n=" << n << " k=" << k << " i=" << i;
    }
    sample.finish();
    EXPECT_FALSE(sample.has_next());
    ASSERT_EQ(full.getstate(), lazy.getstate()) << "n=" << n << " k=" << k;
  }
}

TEST(LazySampleTest, MatchesSampleAllForEveryPrefix) {
  for (size_t n : {0, 1, 2, 3, 7, 64, 100, 1000}) {
    for (size_t k : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, n / 2, n}) {
      ExpectSameAsSampleAll(n, k, 42 + n + k);
    }
  }
}

TEST(LazySampleTest, ManyPicksSwitchToAPoolCopy) {
  ExpectSameAsSampleAll(5000, 12, 7);     // just past the override list
  ExpectSameAsSampleAll(5000, 4000, 8);   // most of the population
}

TEST(LazySampleTest, SkipMatchesRandbelowAcrossTwists) {
  for (uint64_t m : {1u, 2u, 3u, 31u, 32u, 33u, 1000u, 70000u}) {
    Random a(m), b(m);
    for (uint64_t k = m; k > 0; --k) a.randbelow(k);
    b.skip_randbelow_descending(m);
    EXPECT_EQ(a.getstate(), b.getstate()) << m;
    EXPECT_EQ(a.random(), b.random());
  }
}

}  // namespace
}  // namespace pams
