// IdleSpin: the spin follows the waits a worker sees, within its bounds.

#include "runners/idle_spin.h"

#include <gtest/gtest.h>

namespace pams {
namespace {

TEST(IdleSpinTest, StartsAtTheMinimum) {
  EXPECT_EQ(IdleSpin().seconds(), IdleSpin::kMinSeconds);
}

TEST(IdleSpinTest, CoversTwiceTheWaitsBetweenSteps) {
  IdleSpin spin;
  for (int i = 0; i < 100; ++i) spin.Record(400e-6);
  EXPECT_NEAR(spin.seconds(), 800e-6, 1e-8);
  for (int i = 0; i < 100; ++i) spin.Record(1.5e-3);
  EXPECT_EQ(spin.seconds(), IdleSpin::kMaxSeconds);  // capped
}

TEST(IdleSpinTest, ShortWaitsKeepTheMinimum) {
  IdleSpin spin;
  for (int i = 0; i < 100; ++i) spin.Record(10e-6);
  EXPECT_EQ(spin.seconds(), IdleSpin::kMinSeconds);
}

TEST(IdleSpinTest, WaitsLongerThanTheMaximumAreSleptThrough) {
  IdleSpin spin;
  for (int i = 0; i < 100; ++i) spin.Record(10e-3);
  EXPECT_EQ(spin.seconds(), IdleSpin::kMinSeconds);
  // Back to short gaps, the spin follows within a few waits.
  for (int i = 0; i < 60; ++i) spin.Record(300e-6);
  EXPECT_NEAR(spin.seconds(), 600e-6, 20e-6);
}

}  // namespace
}  // namespace pams
