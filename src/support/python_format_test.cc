// Tests for the Python number formatting of python_format.h.
//
// The expected strings are reference vectors printed by the real interpreter
// (Debian's /usr/bin/python3, CPython 3.11): `print(repr(x))` for
// AppendPythonFloat / PythonFloat and `print(str(int(x)))` for
// AppendPythonIntegralDouble. They are literals here, not computed.

#include "support/python_format.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace pams {
namespace {

struct FloatCase {
  double value;
  const char* repr;
};

// repr(x) for each x, from CPython 3.11.
const FloatCase kFloatCases[] = {
    {0.0, "0.0"},
    {-0.0, "-0.0"},
    {300.0, "300.0"},
    {1e-05, "1e-05"},
    {0.0001, "0.0001"},
    {1e16, "1e+16"},
    {1e15, "1000000000000000.0"},
    {1.5e300, "1.5e+300"},
    {5e-324, "5e-324"},
    {-5e-324, "-5e-324"},
    {2.5e-320, "2.5e-320"},
    {329.16531000000003, "329.16531000000003"},
    {0.1 + 0.2, "0.30000000000000004"},
    {9007199254740992.0, "9007199254740992.0"},   // 2**53
    {9007199254740994.0, "9007199254740994.0"},   // 2**53 + 2
    {9007199254740991.0, "9007199254740991.0"},   // 2**53 - 1
    {-9007199254740992.0, "-9007199254740992.0"},
    {9999999999999998.0, "9999999999999998.0"},
    {1e17, "1e+17"},
    {123456789012345678.0, "1.2345678901234568e+17"},
    {1234567890123456.7, "1234567890123456.8"},
    {1e22, "1e+22"},
    {1e100, "1e+100"},
    {1.7976931348623157e308, "1.7976931348623157e+308"},
    {2.2250738585072014e-308, "2.2250738585072014e-308"},
    {9.999999999999999e-05, "9.999999999999999e-05"},
    {0.00012345, "0.00012345"},
    {-1.5, "-1.5"},
    {-0.001, "-0.001"},
    {-1e-05, "-1e-05"},
    {-300.25, "-300.25"},
    {0.3, "0.3"},
    {1.0 / 3.0, "0.3333333333333333"},
    {2.0 / 3.0, "0.6666666666666666"},
    {0.9999999999999999, "0.9999999999999999"},
    {100.0, "100.0"},
    {0.5, "0.5"},
    {1.0, "1.0"},
    {-1.0, "-1.0"},
    {12345.678, "12345.678"},
    {1234560000000.0, "1234560000000.0"},
    {4.35, "4.35"},
    {299.99999999999994, "299.99999999999994"},
};

TEST(PythonFloatTest, MatchesPythonRepr) {
  for (const FloatCase& c : kFloatCases) {
    EXPECT_EQ(PythonFloat(c.value), c.repr) << "value " << c.repr;
  }
}

TEST(PythonFloatTest, NonFiniteValues) {
  EXPECT_EQ(PythonFloat(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(PythonFloat(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(PythonFloat(std::numeric_limits<double>::quiet_NaN()), "nan");
  // Python prints every NaN as "nan", whatever its sign bit.
  EXPECT_EQ(PythonFloat(-std::numeric_limits<double>::quiet_NaN()), "nan");
}

TEST(PythonFloatTest, AppendKeepsExistingText) {
  std::string out = "price=";
  AppendPythonFloat(300.0, &out);
  out += ",";
  AppendPythonFloat(1e-05, &out);
  EXPECT_EQ(out, "price=300.0,1e-05");
}

TEST(PythonFloatTest, RoundTripsThroughStrtod) {
  // The shortest repr must read back as the same double.
  for (const FloatCase& c : kFloatCases) {
    const std::string s = PythonFloat(c.value);
    const double back = std::strtod(s.c_str(), nullptr);
    EXPECT_EQ(std::signbit(back), std::signbit(c.value)) << s;
    EXPECT_EQ(back, c.value) << s;
  }
}

TEST(PythonIntegralDoubleTest, MatchesPythonStrOfInt) {
  // str(int(x)) from CPython 3.11.
  struct Case {
    double value;
    const char* text;
  } cases[] = {
      {300.0, "300"},
      {0.0, "0"},
      {-0.0, "0"},
      {-5.0, "-5"},
      {1e20, "100000000000000000000"},
      {9007199254740992.0, "9007199254740992"},
      {9223372036854775808.0, "9223372036854775808"},
      {-9223372036854775808.0, "-9223372036854775808"},
      {123456789012345678.0, "123456789012345680"},
      {1e300,
       "1000000000000000052504760255204420248704468581108159154915854115511802"
       "4579889081957863713750804478640437044438328838781769425232353604305756"
       "4479218478670698284838720092657580373783023379478809005936895323497079"
       "9945081119038967640880074652742780142494579258788820056842838115669472"
       "196386865459400540160"},
      {1.7976931348623157e308,
       "1797693134862315708145274237317043567980705675258449965989174768031572"
       "6078002853876058955863276687817154045895351438246423432132688946418276"
       "8467546703537516986049910576551282076245490090389328944075868508455133"
       "9423045832369032229481658085593321233482747978262041447231687381771809"
       "19299881250404026184124858368"},
  };
  for (const Case& c : cases) {
    std::string out;
    AppendPythonIntegralDouble(c.value, &out);
    EXPECT_EQ(out, c.text);
  }
  std::string out = "x";
  AppendPythonIntegralDouble(42.0, &out);
  EXPECT_EQ(out, "x42");
}

TEST(PythonIntTest, MatchesPythonStr) {
  struct Case {
    int64_t value;
    const char* text;
  } cases[] = {
      {0, "0"},
      {1, "1"},
      {-1, "-1"},
      {300, "300"},
      {std::numeric_limits<int64_t>::max(), "9223372036854775807"},
      {std::numeric_limits<int64_t>::min(), "-9223372036854775808"},
  };
  for (const Case& c : cases) {
    std::string out = "[";
    AppendPythonInt(c.value, &out);
    EXPECT_EQ(out, std::string("[") + c.text);
  }
}

TEST(PythonFloatCacheTest, SameTextAsUncached) {
  PythonFloatCache cache;
  for (const FloatCase& c : kFloatCases) {
    std::string cached;
    cache.Append(c.value, &cached);
    EXPECT_EQ(cached, PythonFloat(c.value));
    // The same value again reuses the text.
    std::string again = "#";
    cache.Append(c.value, &again);
    std::string expected = "#";
    expected += PythonFloat(c.value);
    EXPECT_EQ(again, expected);
  }
}

TEST(PythonFloatCacheTest, FirstValueZeroIsFormatted) {
  // The cache starts out holding 0.0 with no text: the first 0.0 must still
  // print "0.0".
  PythonFloatCache cache;
  std::string out;
  cache.Append(0.0, &out);
  EXPECT_EQ(out, "0.0");
}

TEST(PythonFloatCacheTest, DistinguishesZeroSignsAndNaN) {
  PythonFloatCache cache;
  std::string out;
  cache.Append(0.0, &out);
  out += ' ';
  cache.Append(-0.0, &out);  // == 0.0 but prints differently
  out += ' ';
  cache.Append(0.0, &out);
  out += ' ';
  cache.Append(std::numeric_limits<double>::quiet_NaN(), &out);
  out += ' ';
  cache.Append(std::numeric_limits<double>::quiet_NaN(), &out);
  out += ' ';
  cache.Append(300.0, &out);
  out += ' ';
  cache.Append(300.0, &out);
  out += ' ';
  cache.Append(329.16531000000003, &out);
  EXPECT_EQ(out, "0.0 -0.0 0.0 nan nan 300.0 300.0 329.16531000000003");
}

TEST(PythonFloatCacheTest, AlternatingValues) {
  PythonFloatCache cache;
  std::string out;
  for (int i = 0; i < 4; ++i) {
    cache.Append(i % 2 == 0 ? 1e-05 : 1e16, &out);
    out += ';';
  }
  EXPECT_EQ(out, "1e-05;1e+16;1e-05;1e+16;");
}

}  // namespace
}  // namespace pams
