// Tests of arguments.h: Python arguments of objects built by hand,
// converted for the engine or refused with a message naming them.

#include "interop/arguments.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "interop/testing/embedded_python.h"

namespace pams::python {
namespace {

using testing::Eval;
using testing::RaisedBy;

TEST(ArgumentsTest, IntArgTakesWhatAListIndexTakes) {
  EXPECT_EQ(IntArg(Eval("7"), "x"), 7);
  EXPECT_EQ(IntArg(Eval("True"), "x"), 1);
  EXPECT_EQ(IntArg(Eval("-2**63"), "x"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(RaisedBy([] { IntArg(Eval("1.5"), "Market._set_time: time"); }),
            "TypeError: Market._set_time: time must be an int, got 1.5 (float)");
  EXPECT_EQ(RaisedBy([] { IntArg(Eval("None"), "t"); }),
            "TypeError: t must be an int, got None (NoneType)");
  EXPECT_EQ(RaisedBy([] { IntArg(Eval("2**63"), "t"); }),
            "OverflowError: t must be an int of 64 bits (-2**63 to 2**63 - 1), got "
            "9223372036854775808 (int)");
}

TEST(ArgumentsTest, TimeArgClampsWhatPamsComparesAndIndexesWith) {
  EXPECT_FALSE(TimeArg(Eval("None"), "t").has_value());
  EXPECT_EQ(TimeArg(Eval("-3"), "t"), -3);
  // A step past 64 bits is in the future; one below is no index.
  EXPECT_EQ(TimeArg(Eval("10**30"), "t"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(TimeArg(Eval("-10**30"), "t"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(RaisedBy([] { TimeArg(Eval("'x'"), "t"); }),
            "TypeError: t must be an int or None, got 'x' (str)");
}

TEST(ArgumentsTest, IdsAndStepsHaveTheirRanges) {
  EXPECT_EQ(IdArg(Eval("99999999"), "id"), 99999999);
  EXPECT_EQ(RaisedBy([] { IdArg(Eval("-1"), "id"); }),
            "ValueError: id must be an id in [0, 10**8), got -1 (int)");
  EXPECT_EQ(RaisedBy([] { IdArg(Eval("10**8"), "id"); }),
            "ValueError: id must be an id in [0, 10**8), got 100000000 (int)");
  EXPECT_EQ(StepArg(Eval("-1"), "t", -1), -1);
  EXPECT_EQ(RaisedBy([] { StepArg(Eval("2**62"), "t", 0); }),
            "ValueError: t must be a step in [0, 10**8], got 4611686018427387904 (int)");
}

TEST(ArgumentsTest, NumbersAreIntsFloatsAndWhatConvertsLikeThem) {
  EXPECT_EQ(NumberArg(Eval("3"), "p"), 3.0);
  EXPECT_EQ(NumberArg(Eval("2.5"), "p"), 2.5);
  EXPECT_TRUE(std::isnan(NumberArg(Eval("float('nan')"), "p")));
  EXPECT_EQ(RaisedBy([] { NumberArg(Eval("'300'"), "Fundamentals.add_market: initial"); }),
            "TypeError: Fundamentals.add_market: initial must be a number, got '300' (str)");
  EXPECT_EQ(RaisedBy([] { NumberArg(Eval("[1]"), "p"); }),
            "TypeError: p must be a number, got [1] (list)");
  EXPECT_EQ(RaisedBy([] { NumberArg(Eval("10**400"), "p"); }).substr(0, 60),
            "OverflowError: p must be a number a float can hold, got 1000");
  EXPECT_EQ(RaisedBy([] { NotNanArg(Eval("float('nan')"), "p"); }),
            "ValueError: p must be a number (not NaN), got nan (float)");
}

TEST(ArgumentsTest, TruthIsPythonsAndDescribeCutsLongValues) {
  EXPECT_TRUE(TruthArg(Eval("[0]"), "b"));
  EXPECT_FALSE(TruthArg(Eval("0"), "b"));
  EXPECT_EQ(Describe(Eval("'a' * 100")), "'" + std::string(56, 'a') + "... (str)");
}

}  // namespace
}  // namespace pams::python
