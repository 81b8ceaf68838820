// Tests for Fundamentals and CholeskyLower.
//
// Reference values, written here as hex-float literals:
//  * CholeskyLower: scipy.linalg.cholesky(a, lower=True) from Debian's
//    /usr/bin/python3 (numpy 1.24.2, scipy 1.10.1) run with
//    LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack
//    (reference BLAS/LAPACK).
//  * Fundamentals paths: pams.fundamentals.Fundamentals (PAMS 0.3.0) in that
//    same environment with NPY_DISABLE_CPU_FEATURES="AVX512F AVX512CD
//    AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL". Each scenario asks for
//    every market's price at steps 0..249 (market by market within a step),
//    then does what PAMS's Market.change_fundamental_price does at step 120
//    (prices[id][120] = price(id, 120) * scale; _generated_until = 120) and
//    asks for steps 121..249 again. The values at kSteps are stored.

#include "pams/market/fundamentals.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "pams/errors.h"
#include "pams/random/random.h"

namespace pams {
namespace {

uint64_t Bits(double x) { return std::bit_cast<uint64_t>(x); }

// --- CholeskyLower ---

struct CholeskyCase {
  int n;
  std::vector<double> a;  // row-major input
  std::vector<double> l;  // scipy's lower factor, upper triangle zero
};

const CholeskyCase kCholeskyCases[] = {
    // n = 1: a = [[0.0004]]
    {1,
     {
         0x1.a36e2eb1c432dp-12,
     },
     {
         0x1.47ae147ae147bp-6,
     }},
    // n = 2: a = [[0.0001, 0.00004], [0.00004, 0.0004]]
    {2,
     {
         0x1.a36e2eb1c432dp-14, 0x1.4f8b588e368f1p-15,
         0x1.4f8b588e368f1p-15, 0x1.a36e2eb1c432dp-12,
     },
     {
         0x1.47ae147ae147bp-7, 0x0.0p+0,
         0x1.0624dd2f1a9fcp-8, 0x1.410f3cac9dc59p-6,
     }},
    // n = 3: a = [[1, 0.3, -0.2], [0.3, 2, 0.5], [-0.2, 0.5, 1.5]]
    {3,
     {
         0x1.0000000000000p+0, 0x1.3333333333333p-2, -0x1.999999999999ap-3,
         0x1.3333333333333p-2, 0x1.0000000000000p+1, 0x1.0000000000000p-1,
         -0x1.999999999999ap-3, 0x1.0000000000000p-1, 0x1.8000000000000p+0,
     },
     {
         0x1.0000000000000p+0, 0x0.0p+0, 0x0.0p+0,
         0x1.3333333333333p-2, 0x1.61cc8dd1f5796p+0, 0x0.0p+0,
         -0x1.999999999999ap-3, 0x1.9eed3713b8aeap-2, 0x1.236a109fc38f9p+0,
     }},
    // n = 4: a = [[4.1, 0.7, 0.3, -0.9], [0.7, 3.3, 0.1, 0.4], [0.3, 0.1, 2.2,
    // 0.6], [-0.9, 0.4, 0.6, 5.0]]
    {4,
     {
         0x1.0666666666666p+2, 0x1.6666666666666p-1, 0x1.3333333333333p-2, -0x1.ccccccccccccdp-1,
         0x1.6666666666666p-1, 0x1.a666666666666p+1, 0x1.999999999999ap-4, 0x1.999999999999ap-2,
         0x1.3333333333333p-2, 0x1.999999999999ap-4, 0x1.199999999999ap+1, 0x1.3333333333333p-1,
         -0x1.ccccccccccccdp-1, 0x1.999999999999ap-2, 0x1.3333333333333p-1, 0x1.4000000000000p+2,
     },
     {
         0x1.032e249cc6171p+1, 0x0.0p+0, 0x0.0p+0, 0x0.0p+0,
         0x1.620095e8dc9c7p-2, 0x1.c88c64763e6f8p+0, 0x0.0p+0, 0x0.0p+0,
         0x1.2f6e3759e1aabp-3, 0x1.c0254b0dfb52ep-6, 0x1.79bed14d21fadp+0, 0x0.0p+0,
         -0x1.c7255306d2801p-2, 0x1.3de7413deb153p-2, 0x1.c830862dd4c8dp-2, 0x1.0fc205dd1382dp+1,
     }},
    // n = 5: a = vol * corr * vol.reshape(-1, 1) as PAMS builds it, vol = [0.01,
    // 0.02, 0.03, 0.005, 0.015], corr = [[1, .5, .2, 0, -.3], [.5, 1, .3, .1,
    // 0], [.2, .3, 1, 0, .4], [0, .1, 0, 1, .1], [-.3, 0, .4, .1, 1]]
    {5,
     {
         0x1.a36e2eb1c432dp-14, 0x1.a36e2eb1c432dp-14, 0x1.f75104d551d69p-15, 0x0.0p+0, -0x1.797cc39ffd60ep-15,
         0x1.a36e2eb1c432dp-14, 0x1.a36e2eb1c432dp-12, 0x1.797cc39ffd60ep-13, 0x1.4f8b588e368f1p-17, 0x0.0p+0,
         0x1.f75104d551d69p-15, 0x1.797cc39ffd60ep-13, 0x1.d7dbf487fcb92p-11, 0x0.0p+0, 0x1.797cc39ffd60ep-13,
         0x0.0p+0, 0x1.4f8b588e368f1p-17, 0x0.0p+0, 0x1.a36e2eb1c432dp-16, 0x1.f75104d551d69p-18,
         -0x1.797cc39ffd60ep-15, 0x0.0p+0, 0x1.797cc39ffd60ep-13, 0x1.f75104d551d69p-18, 0x1.d7dbf487fcb92p-13,
     },
     {
         0x1.47ae147ae147bp-7, 0x0.0p+0, 0x0.0p+0, 0x0.0p+0, 0x0.0p+0,
         0x1.47ae147ae147bp-7, 0x1.1bc779ef0d4e8p-6, 0x0.0p+0, 0x0.0p+0, 0x0.0p+0,
         0x1.89374bc6a7efap-8, 0x1.c60bf64b487d9p-8, 0x1.d405498c1cea5p-6, 0x0.0p+0, 0x0.0p+0,
         0x0.0p+0, 0x1.2eb2a4323053cp-11, -0x1.25a8f6ee80931p-13, 0x1.455bd6935527bp-8, 0x0.0p+0,
         -0x1.26e978d4fdf3bp-8, 0x1.5488f8b8765e2p-9, 0x1.b19b7c9c29d92p-8, 0x1.6dbcc5d370d49p-10, 0x1.945c26d39c477p-7,
     }},
};

TEST(CholeskyLowerTest, MatchesReferenceLapackBitForBit) {
  for (const CholeskyCase& c : kCholeskyCases) {
    ASSERT_EQ(c.a.size(), static_cast<size_t>(c.n * c.n));
    std::vector<double> a = c.a;
    ASSERT_TRUE(CholeskyLower(a, c.n)) << "n = " << c.n;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(Bits(a[i]), Bits(c.l[i]))
          << "n = " << c.n << ", element " << i / c.n << "," << i % c.n
          << ": got " << a[i] << ", want " << c.l[i];
    }
  }
}

TEST(CholeskyLowerTest, ReadsOnlyTheLowerTriangle) {
  // Garbage above the diagonal changes nothing (and is cleared).
  const CholeskyCase& c = kCholeskyCases[3];  // n = 4
  std::vector<double> a = c.a;
  for (int i = 0; i < c.n; ++i) {
    for (int j = i + 1; j < c.n; ++j) a[i * c.n + j] = 1e300;
  }
  ASSERT_TRUE(CholeskyLower(a, c.n));
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(Bits(a[i]), Bits(c.l[i]));
}

TEST(CholeskyLowerTest, FailsOnMatricesThatAreNotPositiveDefinite) {
  // scipy: "3-th leading minor of the array is not positive definite".
  std::vector<double> a = {1.0, 0.99, 0.99, 0.99, 1.0, -0.99, 0.99, -0.99, 1.0};
  EXPECT_FALSE(CholeskyLower(a, 3));
  std::vector<double> zero = {0.0};
  EXPECT_FALSE(CholeskyLower(zero, 1));
  std::vector<double> negative = {4.0, 0.0, 0.0, -1.0};
  EXPECT_FALSE(CholeskyLower(negative, 2));
  std::vector<double> nan = {std::numeric_limits<double>::quiet_NaN()};
  EXPECT_FALSE(CholeskyLower(nan, 1));
  std::vector<double> singular = {1.0, 1.0, 1.0, 1.0};
  EXPECT_FALSE(CholeskyLower(singular, 2));
  std::vector<double> empty;
  EXPECT_TRUE(CholeskyLower(empty, 0));
}

// --- Fundamentals paths ---

const int64_t kSteps[] = {0, 1, 2, 99, 100, 101, 120, 121, 150, 151, 199, 249};
constexpr size_t kNumSteps = sizeof(kSteps) / sizeof(kSteps[0]);

struct PathValues {
  // [market][k]: the price at kSteps[k] before and after the change.
  std::vector<std::vector<double>> before;
  std::vector<std::vector<double>> after;
};

// A seed 42: change market 0 x 0.9 at 120
const PathValues kPathsA42 = {
    {
        {0x1.2c00000000000p+8, 0x1.2d1ed66d5e0fep+8, 0x1.2ecf9a57b525fp+8,
         0x1.1e4e268f4ab04p+8, 0x1.1cb8158ab6295p+8, 0x1.18ef6b83fab07p+8,
         0x1.2686caff3bb0ep+8, 0x1.2659f60b75592p+8, 0x1.3d4c64e3e86d3p+8,
         0x1.3a80b72824f7bp+8, 0x1.44851729e68e6p+8, 0x1.38a20a3d92f05p+8},
        {0x1.f400000000000p+8, 0x1.f7536b8cc73ffp+8, 0x1.f2c0cbb297aa8p+8,
         0x1.d5a1abd2e3997p+8, 0x1.d214edc6daae4p+8, 0x1.d3338006fe345p+8,
         0x1.d4be566103f3fp+8, 0x1.d3d1e31ce4d2ap+8, 0x1.d1573210d8c89p+8,
         0x1.c701de983ed8bp+8, 0x1.c0e21e2046fe9p+8, 0x1.750a35ada79a8p+8},
        {0x1.9000000000000p+6, 0x1.90667382f6431p+6, 0x1.90cd0143866e9p+6,
         0x1.b9a0639a68747p+6, 0x1.ba118083ca14bp+6, 0x1.ba82ba65d90b8p+6,
         0x1.c2ffad774e8dcp+6, 0x1.c37330e71b719p+6, 0x1.d0bbd392945c7p+6,
         0x1.d132db97f77c3p+6, 0x1.e812a2207b937p+6, 0x1.008c646037e0dp+7},
    },
    {
        {0x1.2c00000000000p+8, 0x1.2d1ed66d5e0fep+8, 0x1.2ecf9a57b525fp+8,
         0x1.1e4e268f4ab04p+8, 0x1.1cb8158ab6295p+8, 0x1.18ef6b83fab07p+8,
         0x1.0912e9e5b5b8dp+8, 0x1.086b18ae71082p+8, 0x1.0ff12cea14894p+8,
         0x1.11eaf93418c5cp+8, 0x1.113c3254d262ap+8, 0x1.0db163eccabbbp+8},
        {0x1.f400000000000p+8, 0x1.f7536b8cc73ffp+8, 0x1.f2c0cbb297aa8p+8,
         0x1.d5a1abd2e3997p+8, 0x1.d214edc6daae4p+8, 0x1.d3338006fe345p+8,
         0x1.d4be566103f3fp+8, 0x1.d4c01321aba84p+8, 0x1.0519b3d69a5fep+9,
         0x1.07b685d5a962dp+9, 0x1.4b79d6b3a259ap+9, 0x1.1f4be0469d419p+9},
        {0x1.9000000000000p+6, 0x1.90667382f6431p+6, 0x1.90cd0143866e9p+6,
         0x1.b9a0639a68747p+6, 0x1.ba118083ca14bp+6, 0x1.ba82ba65d90b8p+6,
         0x1.c2ffad774e8dcp+6, 0x1.c37330e71b718p+6, 0x1.d0bbd392945c6p+6,
         0x1.d132db97f77c1p+6, 0x1.e812a2207b937p+6, 0x1.008c646037e0cp+7},
    }};

// A seed 7: change market 1 x 1.1 at 120
const PathValues kPathsA7 = {
    {
        {0x1.2c00000000000p+8, 0x1.2cb0350536bc3p+8, 0x1.26eb733bd1936p+8,
         0x1.4167fd3afa95ap+8, 0x1.423f65e820327p+8, 0x1.401ef99342915p+8,
         0x1.3eb00e6695b96p+8, 0x1.3c8d76d6afa29p+8, 0x1.2efef6d407a99p+8,
         0x1.2e89c8a382650p+8, 0x1.39f7c86b63500p+8, 0x1.374e9211caa6bp+8},
        {0x1.f400000000000p+8, 0x1.fb95556ff3e3ap+8, 0x1.f795cf91bf17dp+8,
         0x1.17769a6de9427p+9, 0x1.151abb07e6c3ep+9, 0x1.136719ed96b34p+9,
         0x1.293dbc3bb0c93p+9, 0x1.27ece72ef50dep+9, 0x1.1bc134804c802p+9,
         0x1.1576ecf0c8661p+9, 0x1.057c5409b1b5ap+9, 0x1.098fbd3b90cf6p+9},
        {0x1.9000000000000p+6, 0x1.90667382f6431p+6, 0x1.90cd0143866e9p+6,
         0x1.b9a0639a68747p+6, 0x1.ba118083ca14bp+6, 0x1.ba82ba65d90b8p+6,
         0x1.c2ffad774e8dcp+6, 0x1.c37330e71b719p+6, 0x1.d0bbd392945c7p+6,
         0x1.d132db97f77c3p+6, 0x1.e812a2207b937p+6, 0x1.008c646037e0dp+7},
    },
    {
        {0x1.2c00000000000p+8, 0x1.2cb0350536bc3p+8, 0x1.26eb733bd1936p+8,
         0x1.4167fd3afa95ap+8, 0x1.423f65e820327p+8, 0x1.401ef99342915p+8,
         0x1.3eb00e6695b96p+8, 0x1.400be6b46afe5p+8, 0x1.40e37c01c201ap+8,
         0x1.4099296e288bep+8, 0x1.49f0187842cabp+8, 0x1.4a8bf3283c658p+8},
        {0x1.f400000000000p+8, 0x1.fb95556ff3e3ap+8, 0x1.f795cf91bf17dp+8,
         0x1.17769a6de9427p+9, 0x1.151abb07e6c3ep+9, 0x1.136719ed96b34p+9,
         0x1.46f71bdb4276fp+9, 0x1.4cc3a29e7c035p+9, 0x1.65ac6263219b5p+9,
         0x1.67a7547e2f0b4p+9, 0x1.8caab89ef23e2p+9, 0x1.721a7764c8505p+9},
        {0x1.9000000000000p+6, 0x1.90667382f6431p+6, 0x1.90cd0143866e9p+6,
         0x1.b9a0639a68747p+6, 0x1.ba118083ca14bp+6, 0x1.ba82ba65d90b8p+6,
         0x1.c2ffad774e8dcp+6, 0x1.c37330e71b718p+6, 0x1.d0bbd392945c6p+6,
         0x1.d132db97f77c1p+6, 0x1.e812a2207b937p+6, 0x1.008c646037e0cp+7},
    }};

// B seed 2024: change market 3 x 0.5 at 120
const PathValues kPathsB2024 = {
    {
        {0x1.f400000000000p+9, 0x1.f3c8ed9443a47p+9, 0x1.e6eebb16838b2p+9,
         0x1.dc329212a5d5ep+9, 0x1.dd02e01145db9p+9, 0x1.db9ff17a80073p+9,
         0x1.b8b5cb1ba5adcp+9, 0x1.b2960f2d1a385p+9, 0x1.975d410fd2db3p+9,
         0x1.8dff3eec5824fp+9, 0x1.60125fc597f21p+9, 0x1.7d2913e0b6ee7p+9},
        {0x1.9000000000000p+5, 0x1.9000000000000p+5, 0x1.9000000000000p+5,
         0x1.9000000000000p+5, 0x1.9000000000000p+5, 0x1.9000000000000p+5,
         0x1.9000000000000p+5, 0x1.9000000000000p+5, 0x1.9000000000000p+5,
         0x1.9000000000000p+5, 0x1.9000000000000p+5, 0x1.9000000000000p+5},
        {0x1.9000000000000p+7, 0x1.9000000000000p+7, 0x1.9000000000000p+7,
         0x1.9000000000000p+7, 0x1.9000000000000p+7, 0x1.9000000000000p+7,
         0x1.9000000000000p+7, 0x1.9000000000000p+7, 0x1.9000000000000p+7,
         0x1.849265ed6b746p+7, 0x1.0a17b5bdb8315p+7, 0x1.17ad0de2428c6p+7},
        {0x1.4000000000000p+6, 0x1.4143633e1194ap+6, 0x1.40a34166be7a8p+6,
         0x1.44f95364d76d8p+6, 0x1.456b4778af926p+6, 0x1.431c5fb25a574p+6,
         0x1.42ba665183ecbp+6, 0x1.4174d2c340252p+6, 0x1.389c7abff91a6p+6,
         0x1.3ab401147342fp+6, 0x1.37b2d9a96961cp+6, 0x1.40f6235f9173ap+6},
    },
    {
        {0x1.f400000000000p+9, 0x1.f3c8ed9443a47p+9, 0x1.e6eebb16838b2p+9,
         0x1.dc329212a5d5ep+9, 0x1.dd02e01145db9p+9, 0x1.db9ff17a80073p+9,
         0x1.b8b5cb1ba5adcp+9, 0x1.c12fac5e5eba3p+9, 0x1.cb871a8b90127p+9,
         0x1.d5ed194692fb4p+9, 0x1.10ff6c70c2225p+10, 0x1.2ded94a2460abp+10},
        {0x1.9000000000000p+5, 0x1.9000000000000p+5, 0x1.9000000000000p+5,
         0x1.9000000000000p+5, 0x1.9000000000000p+5, 0x1.9000000000000p+5,
         0x1.9000000000000p+5, 0x1.9000000000000p+5, 0x1.9000000000000p+5,
         0x1.9000000000000p+5, 0x1.9000000000000p+5, 0x1.9000000000000p+5},
        {0x1.9000000000000p+7, 0x1.9000000000000p+7, 0x1.9000000000000p+7,
         0x1.9000000000000p+7, 0x1.9000000000000p+7, 0x1.9000000000000p+7,
         0x1.9000000000000p+7, 0x1.9000000000000p+7, 0x1.9000000000000p+7,
         0x1.8c17d03d0531fp+7, 0x1.7839f99ac70f4p+7, 0x1.6ef06af8fc83ap+7},
        {0x1.4000000000000p+6, 0x1.4143633e1194ap+6, 0x1.40a34166be7a8p+6,
         0x1.44f95364d76d8p+6, 0x1.456b4778af926p+6, 0x1.431c5fb25a574p+6,
         0x1.42ba665183ecbp+5, 0x1.427b994232f52p+5, 0x1.394b8e3569b2bp+5,
         0x1.36f45e48203a7p+5, 0x1.38695f5d9bc74p+5, 0x1.361cdda6f2a49p+5},
    }};

void RunScenario(Fundamentals& f, int n_markets, int change_id, double scale,
                 const PathValues& want) {
  ASSERT_EQ(want.before.size(), static_cast<size_t>(n_markets));
  for (int64_t t = 0; t < 250; ++t) {
    for (int m = 0; m < n_markets; ++m) f.get_fundamental_price(m, t);
  }
  for (int m = 0; m < n_markets; ++m) {
    for (size_t k = 0; k < kNumSteps; ++k) {
      const double got = f.get_fundamental_price(m, kSteps[k]);
      EXPECT_EQ(Bits(got), Bits(want.before[m][k]))
          << "before: market " << m << " step " << kSteps[k] << ": got "
          << got << ", want " << want.before[m][k];
    }
  }
  const double changed = f.get_fundamental_price(change_id, 120) * scale;
  f.set_price_and_regenerate(change_id, 120, changed);
  EXPECT_EQ(f.generated_until(), 120);
  for (int64_t t = 121; t < 250; ++t) {
    for (int m = 0; m < n_markets; ++m) f.get_fundamental_price(m, t);
  }
  for (int m = 0; m < n_markets; ++m) {
    for (size_t k = 0; k < kNumSteps; ++k) {
      const double got = f.get_fundamental_price(m, kSteps[k]);
      EXPECT_EQ(Bits(got), Bits(want.after[m][k]))
          << "after: market " << m << " step " << kSteps[k] << ": got " << got
          << ", want " << want.after[m][k];
    }
  }
}

// Three markets: 0 and 1 correlated (0.8), 2 without volatility but with a
// drift.
void SetUpA(Fundamentals& f) {
  f.add_market(0, 300.0, 0.0, 0.01);
  f.add_market(1, 500.0, 0.0001, 0.02);
  f.add_market(2, 100.0, 0.001, 0.0);
  f.set_correlation(0, 1, 0.8);
}

TEST(FundamentalsTest, CorrelatedPathsSeed42) {
  Fundamentals f(Random(42));
  SetUpA(f);
  RunScenario(f, 3, /*change_id=*/0, 0.9, kPathsA42);
}

TEST(FundamentalsTest, CorrelatedPathsSeed7) {
  Fundamentals f(Random(7));
  SetUpA(f);
  RunScenario(f, 3, /*change_id=*/1, 1.1, kPathsA7);
}

// Four markets, one starting at step 150 (a 150-step first chunk, then it
// joins the correlated ones), one constant, correlations set in reverse id
// order.
TEST(FundamentalsTest, LateStartAndReverseCorrelationsSeed2024) {
  Fundamentals f(Random(2024));
  f.add_market(0, 1000.0, -0.0002, 0.015);
  f.add_market(1, 50.0, 0.0, 0.0);
  f.add_market(2, 200.0, 0.0005, 0.03, /*start_at=*/150);
  f.add_market(3, 80.0, 0.0, 0.005);
  f.set_correlation(3, 0, -0.4);
  f.set_correlation(2, 0, 0.3);
  RunScenario(f, 4, /*change_id=*/3, 0.5, kPathsB2024);
}

TEST(FundamentalsTest, GeneratesInChunksOfOneHundred) {
  Fundamentals f(Random(1));
  f.add_market(0, 100.0, 0.0, 0.01);
  EXPECT_EQ(f.generated_until(), 0);
  EXPECT_EQ(f.get_fundamental_price(0, 0), 100.0);
  EXPECT_EQ(f.generated_until(), 100);
  f.get_fundamental_price(0, 99);
  EXPECT_EQ(f.generated_until(), 100);
  f.get_fundamental_price(0, 100);
  EXPECT_EQ(f.generated_until(), 200);
  f.get_fundamental_price(0, 450);
  EXPECT_EQ(f.generated_until(), 500);
}

TEST(FundamentalsTest, ConstantWithoutVolatilityOrDrift) {
  Fundamentals f(Random(3));
  f.add_market(0, 123.25, 0.0, 0.0);
  for (int64_t t : {0, 1, 50, 99, 100, 399}) {
    EXPECT_EQ(f.get_fundamental_price(0, t), 123.25);
  }
}

TEST(FundamentalsTest, AccessorsAndChanges) {
  Fundamentals f(Random(3));
  f.add_market(0, 100.0, 0.001, 0.02);
  f.add_market(2, 50.0, 0.0, 0.0);  // ids need not be contiguous
  EXPECT_TRUE(f.has_market(0));
  EXPECT_FALSE(f.has_market(1));
  EXPECT_TRUE(f.has_market(2));
  EXPECT_FALSE(f.has_market(-1));
  EXPECT_FALSE(f.has_market(3));
  EXPECT_EQ(f.volatility(0), 0.02);
  EXPECT_EQ(f.drift(0), 0.001);
  f.get_fundamental_price(0, 150);
  EXPECT_EQ(f.generated_until(), 200);
  f.change_volatility(0, 0.05, 120);
  EXPECT_EQ(f.volatility(0), 0.05);
  EXPECT_EQ(f.generated_until(), 120);
  f.change_drift(0, -0.001, 130);
  EXPECT_EQ(f.drift(0), -0.001);
  EXPECT_EQ(f.generated_until(), 130);
  f.set_correlation(0, 2, 0.5, 140);
  EXPECT_EQ(f.generated_until(), 140);
  f.set_correlation(2, 0, 0.6, 141);  // updates the same pair
  f.remove_correlation(0, 2, 142);
  EXPECT_EQ(f.generated_until(), 142);
  EXPECT_THROW(f.remove_correlation(0, 2), SimulationError);  // gone
  f.remove_market(2);
  EXPECT_FALSE(f.has_market(2));
  EXPECT_THROW(f.get_fundamental_price(2, 0), SimulationError);
  EXPECT_THROW(f.volatility(1), SimulationError);
  EXPECT_THROW(f.drift(7), SimulationError);
}

TEST(FundamentalsTest, RejectsInvalidArguments) {
  Fundamentals f(Random(3));
  f.add_market(0, 100.0, 0.0, 0.01);
  f.add_market(1, 100.0, 0.0, 0.01);
  EXPECT_THROW(f.add_market(0, 100.0, 0.0, 0.01), SimulationError);
  EXPECT_THROW(f.add_market(2, 100.0, 0.0, -0.01), SimulationError);
  EXPECT_THROW(f.add_market(2, 0.0, 0.0, 0.01), SimulationError);
  EXPECT_THROW(f.add_market(2, -5.0, 0.0, 0.01), SimulationError);
  EXPECT_THROW(f.add_market(2, 100.0, 0.0, 0.01, -1), SimulationError);
  EXPECT_THROW(f.add_market(-1, 100.0, 0.0, 0.01), SimulationError);
  EXPECT_FALSE(f.has_market(2));
  EXPECT_THROW(f.set_correlation(0, 1, 1.0), SimulationError);
  EXPECT_THROW(f.set_correlation(0, 1, -1.0), SimulationError);
  EXPECT_THROW(f.set_correlation(0, 1, std::nan("")), SimulationError);
  EXPECT_THROW(f.set_correlation(0, 0, 0.5), SimulationError);
  EXPECT_THROW(f.remove_correlation(1, 1), SimulationError);
  EXPECT_THROW(f.change_volatility(0, -1.0), SimulationError);
  EXPECT_THROW(f.change_volatility(5, 0.1), SimulationError);
  // Only generated steps can be changed.
  EXPECT_THROW(f.set_price_and_regenerate(0, 5, 10.0), SimulationError);
  f.get_fundamental_price(0, 5);
  EXPECT_THROW(f.set_price_and_regenerate(0, -1, 10.0), SimulationError);
  f.set_price_and_regenerate(0, 5, 10.0);
  EXPECT_EQ(f.get_fundamental_price(0, 5), 10.0);
}

TEST(FundamentalsTest, ImpossibleCorrelationsFailWhenGenerating) {
  Fundamentals f(Random(3));
  for (int m = 0; m < 3; ++m) f.add_market(m, 100.0, 0.0, 0.01);
  f.set_correlation(0, 1, 0.99);
  f.set_correlation(1, 2, 0.99);
  f.set_correlation(0, 2, -0.99);
  EXPECT_THROW(f.get_fundamental_price(0, 1), SimulationError);
}

// Ids of markets built by hand go up to 10^8: the paths take memory per
// market added, not per id.
TEST(FundamentalsTest, LargeIdsTakeNoMoreRoomThanSmallOnes) {
  Fundamentals f(Random(3));
  f.add_market(99'999'999, 100.0, 0.0, 0.0);
  EXPECT_TRUE(f.has_market(99'999'999));
  EXPECT_FALSE(f.has_market(5));
  EXPECT_EQ(f.get_fundamental_price(99'999'999, 3), 100.0);
  f.remove_market(99'999'999);
  EXPECT_FALSE(f.has_market(99'999'999));
  EXPECT_TRUE(f.market_ids().empty());
}

// PAMS's dicts set by a program: nothing is drawn again until
// generated_until moves, and the next draw goes on from the prices set.
TEST(FundamentalsTest, ValuesSetTakeEffectAtTheNextDraw) {
  Fundamentals f(Random(3));
  f.add_market(0, 100.0, 0.0, 0.0);
  EXPECT_EQ(f.get_fundamental_price(0, 50), 100.0);
  f.set_drift(0, 0.5);
  EXPECT_EQ(f.get_fundamental_price(0, 50), 100.0);  // drawn already
  f.set_prices(0, std::vector<double>(101, 2.0));
  f.set_generated_until(100);
  EXPECT_EQ(f.get_fundamental_price(0, 100), 2.0);
  EXPECT_DOUBLE_EQ(f.get_fundamental_price(0, 101), 2.0 * std::exp(0.5));
  f.set_initial(0, 7.0);
  EXPECT_EQ(f.initial(0), 7.0);
  f.set_start_at(0, 3);
  EXPECT_EQ(f.start_at(0), 3);
}

// Prices a program cut short: the step asked for, or the one the next
// draw goes on from, is missing (PAMS's IndexError).
TEST(FundamentalsTest, PricesCutShortAreOutOfRange) {
  Fundamentals f(Random(3));
  f.add_market(0, 100.0, 0.0, 0.01);
  f.get_fundamental_price(0, 10);
  f.set_prices(0, {1.0, 2.0});
  EXPECT_THROW(f.get_fundamental_price(0, 50), std::out_of_range);
  EXPECT_THROW(f.get_fundamental_price(0, -1), std::out_of_range);
  f.set_generated_until(150);
  EXPECT_THROW(f.get_fundamental_price(0, 160), std::out_of_range);
}

}  // namespace
}  // namespace pams
