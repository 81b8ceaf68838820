// Tests for Settings (accessors, their ConfigError paths and messages, PAMS's
// JsonRandom), ResolveExtends (PAMS's json_extends) and ParseJson.
//
// Reference values: the JsonRandom draws and the json_extends results below
// were produced by running PAMS 0.3.0's own code (pams.utils.json_random /
// pams.utils.json_extends) in /usr/bin/python3 (CPython 3.11) and are written
// here as literals (hex floats are float.hex() of the drawn values).

#include "pams/config/settings.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/random/random.h"
#include "testing/catch_config_error.h"

namespace pams {
namespace {

Json J(const char* text) { return Json::parse(text); }

using test_support::CatchConfigError;

// --- Accessors ---

TEST(SettingsTest, PathsOfChildren) {
  const Json j = J(R"({"a": {"b": [1, {"c": 2}]}})");
  const Settings root(j, "");
  EXPECT_EQ(root.path(), "");
  EXPECT_EQ(root["a"].path(), "a");
  EXPECT_EQ(root["a"]["b"].path(), "a.b");
  EXPECT_EQ(root["a"]["b"].at(1).path(), "a.b[1]");
  EXPECT_EQ(root["a"]["b"].at(1)["c"].path(), "a.b[1].c");
  EXPECT_EQ(root["a"]["b"].at(1)["c"].as_int(), 2);
  EXPECT_EQ(root.child_path("x"), "x");
  EXPECT_EQ(root["a"].child_path("x"), "a.x");

  const Settings named(j, "FCNAgents");
  EXPECT_EQ(named["a"].path(), "FCNAgents.a");
}

TEST(SettingsTest, HasFindAndSize) {
  const Json j = J(R"({"a": 1, "list": [1, 2, 3], "s": "x"})");
  const Settings s(j, "root");
  EXPECT_TRUE(s.is_object());
  EXPECT_TRUE(s.has("a"));
  EXPECT_FALSE(s.has("b"));
  EXPECT_FALSE(s["a"].has("a"));  // not an object
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s["list"].size(), 3u);
  EXPECT_EQ(s["s"].size(), 0u);
  EXPECT_EQ(s["a"].size(), 0u);
  ASSERT_TRUE(s.find("a").has_value());
  EXPECT_EQ(s.find("a")->path(), "root.a");
  EXPECT_EQ(s.find("a")->as_int(), 1);
  EXPECT_FALSE(s.find("b").has_value());
  EXPECT_FALSE(s["list"].find("a").has_value());  // not an object
  EXPECT_FALSE(s["list"].is_object());
}

TEST(SettingsTest, MissingKeyNamesThePath) {
  const Json j = J(R"({"FCNAgents": {"class": "FCNAgent"}})");
  const Settings root(j, "");
  const ConfigError e =
      CatchConfigError([&] { root["FCNAgents"]["timeWindowSize"]; });
  EXPECT_EQ(e.path(), "FCNAgents.timeWindowSize");
  EXPECT_EQ(e.message(), "required key is missing");
  EXPECT_STREQ(e.what(), "FCNAgents.timeWindowSize: required key is missing");

  const ConfigError top = CatchConfigError([&] { root["simulation"]; });
  EXPECT_EQ(top.path(), "simulation");
}

TEST(SettingsTest, IndexingANonObject) {
  const Json j = J(R"({"a": 3})");
  const Settings s(j, "x");
  const ConfigError e = CatchConfigError([&] { s["a"]["b"]; });
  EXPECT_EQ(e.path(), "x.a");
  EXPECT_EQ(e.message(), "expected an object, got the integer 3");
}

TEST(SettingsTest, ConfigErrorWithoutPath) {
  const ConfigError e("", "just a message");
  EXPECT_STREQ(e.what(), "just a message");
  EXPECT_EQ(e.path(), "");
}

TEST(SettingsTest, AsFloat) {
  const Json j = J(
      R"({"i": 3, "f": 2.5, "neg": -7, "big": 18446744073709551615,
          "s": "1.5", "b": true, "n": null, "l": [1]})");
  const Settings s(j, "m");
  EXPECT_EQ(s["i"].as_float(), 3.0);
  EXPECT_EQ(s["f"].as_float(), 2.5);
  EXPECT_EQ(s["neg"].as_float(), -7.0);
  EXPECT_EQ(s["big"].as_float(), 18446744073709551615.0);
  ConfigError e = CatchConfigError([&] { s["s"].as_float(); });
  EXPECT_EQ(e.path(), "m.s");
  EXPECT_EQ(e.message(), "expected a number, got the string \"1.5\"");
  e = CatchConfigError([&] { s["b"].as_float(); });
  EXPECT_EQ(e.path(), "m.b");
  EXPECT_EQ(e.message(), "expected a number, got true");
  e = CatchConfigError([&] { s["n"].as_float(); });
  EXPECT_EQ(e.message(), "expected a number, got null");
  e = CatchConfigError([&] { s["l"].as_float(); });
  EXPECT_EQ(e.message(), "expected a number, got an array");
}

TEST(SettingsTest, AsInt) {
  const Json j = J(
      R"({"i": 3, "neg": -7, "zero": 0, "max": 9223372036854775807,
          "over": 9223372036854775808, "frac": 1.5, "whole": 2.0,
          "t": true, "f": false, "s": "3"})");
  const Settings s(j, "m");
  EXPECT_EQ(s["i"].as_int(), 3);
  EXPECT_EQ(s["neg"].as_int(), -7);
  EXPECT_EQ(s["zero"].as_int(), 0);
  EXPECT_EQ(s["max"].as_int(), INT64_MAX);

  ConfigError e = CatchConfigError([&] { s["frac"].as_int(); });
  EXPECT_EQ(e.path(), "m.frac");
  EXPECT_EQ(e.message(), "expected an integer, got the number 1.5");
  // 2.0 is a float in Python too (isinstance(2.0, int) is False).
  e = CatchConfigError([&] { s["whole"].as_int(); });
  EXPECT_EQ(e.path(), "m.whole");
  e = CatchConfigError([&] { s["t"].as_int(); });
  EXPECT_EQ(e.path(), "m.t");
  EXPECT_EQ(e.message(), "expected an integer, got true");
  e = CatchConfigError([&] { s["f"].as_int(); });
  EXPECT_EQ(e.message(), "expected an integer, got false");
  e = CatchConfigError([&] { s["s"].as_int(); });
  EXPECT_EQ(e.message(), "expected an integer, got the string \"3\"");
  e = CatchConfigError([&] { s["over"].as_int(); });
  EXPECT_EQ(e.path(), "m.over");
  EXPECT_EQ(e.message(), "integer 9223372036854775808 is too large");
}

TEST(SettingsTest, AsPositiveInt) {
  const Json j = J(R"({"one": 1, "zero": 0, "neg": -3, "f": 1.5})");
  const Settings s(j, "m");
  EXPECT_EQ(s["one"].as_positive_int(), 1);
  ConfigError e = CatchConfigError([&] { s["zero"].as_positive_int(); });
  EXPECT_EQ(e.path(), "m.zero");
  EXPECT_EQ(e.message(), "expected a positive integer, got 0");
  e = CatchConfigError([&] { s["neg"].as_positive_int(); });
  EXPECT_EQ(e.message(), "expected a positive integer, got -3");
  e = CatchConfigError([&] { s["f"].as_positive_int(); });
  EXPECT_EQ(e.message(), "expected an integer, got the number 1.5");
}

TEST(SettingsTest, AsBoolAndString) {
  const Json j = J(R"({"t": true, "f": false, "one": 1, "s": "text",
                       "list": ["a", "b"], "bad_list": ["a", 2], "obj": {}})");
  const Settings s(j, "m");
  EXPECT_TRUE(s["t"].as_bool());
  EXPECT_FALSE(s["f"].as_bool());
  ConfigError e = CatchConfigError([&] { s["one"].as_bool(); });
  EXPECT_EQ(e.path(), "m.one");
  EXPECT_EQ(e.message(), "expected true or false, got the integer 1");

  EXPECT_EQ(s["s"].as_string(), "text");
  e = CatchConfigError([&] { s["one"].as_string(); });
  EXPECT_EQ(e.message(), "expected a string, got the integer 1");

  EXPECT_EQ(s["list"].as_string_list(), (std::vector<std::string>{"a", "b"}));
  e = CatchConfigError([&] { s["bad_list"].as_string_list(); });
  EXPECT_EQ(e.path(), "m.bad_list[1]");
  EXPECT_EQ(e.message(), "expected a string, got the integer 2");
  e = CatchConfigError([&] { s["s"].as_string_list(); });
  EXPECT_EQ(e.path(), "m.s");
  EXPECT_EQ(e.message(), "expected a list of strings, got the string \"text\"");
  e = CatchConfigError([&] { s["obj"].as_string_list(); });
  EXPECT_EQ(e.message(), "expected a list of strings, got an object");
}

TEST(SettingsTest, AsPythonStr) {
  // str(x) in Python for the JSON values as json.loads gives them.
  const Json j = J(R"({"zero": 0, "one_f": 1.0, "x": "x", "t": true,
                       "f": false, "neg": -3, "big": 1e16, "small": 1e-05,
                       "frac": 2.5, "n": null, "l": [1], "o": {}})");
  const Settings s(j, "sessions[0].sessionName");
  EXPECT_EQ(s["zero"].as_python_str(), "0");
  EXPECT_EQ(s["one_f"].as_python_str(), "1.0");
  EXPECT_EQ(s["x"].as_python_str(), "x");
  EXPECT_EQ(s["t"].as_python_str(), "True");
  EXPECT_EQ(s["f"].as_python_str(), "False");
  EXPECT_EQ(s["neg"].as_python_str(), "-3");
  EXPECT_EQ(s["big"].as_python_str(), "1e+16");
  EXPECT_EQ(s["small"].as_python_str(), "1e-05");
  EXPECT_EQ(s["frac"].as_python_str(), "2.5");
  EXPECT_EQ(s["n"].as_python_str(), "None");
  ConfigError e = CatchConfigError([&] { s["l"].as_python_str(); });
  EXPECT_EQ(e.path(), "sessions[0].sessionName.l");
  e = CatchConfigError([&] { s["o"].as_python_str(); });
  EXPECT_EQ(e.path(), "sessions[0].sessionName.o");
}

TEST(SettingsTest, FailThrowsWithPath) {
  const Json j = J("1");
  const Settings s(j, "a.b");
  const ConfigError e = CatchConfigError([&] { s.fail("bad value"); });
  EXPECT_EQ(e.path(), "a.b");
  EXPECT_EQ(e.message(), "bad value");
  EXPECT_STREQ(e.what(), "a.b: bad value");
}

TEST(SettingsTest, JsonTypeNames) {
  EXPECT_EQ(JsonTypeName(J("null")), "null");
  EXPECT_EQ(JsonTypeName(J("true")), "true");
  EXPECT_EQ(JsonTypeName(J("false")), "false");
  EXPECT_EQ(JsonTypeName(J("3")), "the integer 3");
  EXPECT_EQ(JsonTypeName(J("-3")), "the integer -3");
  EXPECT_EQ(JsonTypeName(J("1.5")), "the number 1.5");
  EXPECT_EQ(JsonTypeName(J("\"s\"")), "the string \"s\"");
  EXPECT_EQ(JsonTypeName(J("[]")), "an array");
  EXPECT_EQ(JsonTypeName(J("{}")), "an object");
}

// --- JsonRandom ---

// Draws spec n times from one generator.
std::vector<double> Draw(const char* spec, uint64_t seed, int n) {
  const Json j = J(spec);
  const Settings s(j, "spec");
  Random prng(seed);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(s.json_random(prng));
  return out;
}

void ExpectBitsEqual(const std::vector<double>& got,
                     const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint64_t>(got[i]), std::bit_cast<uint64_t>(want[i]))
        << "draw " << i << ": got " << got[i] << ", want " << want[i];
  }
}

// JsonRandom(random.Random(42)).random([10, 20]) five times:
// 16.39426798457884, 10.25010755222667, 12.750293183691193,
// 12.232107381488227, 17.364712141640126.
const std::vector<double> kUniform10To20Seed42 = {
    0x1.064eebf23a03ep+4, 0x1.4800e18da97a2p+3, 0x1.980266d9cbb15p+3,
    0x1.876d6c7594de4p+3, 0x1.15d5dc660cc68p+4};

TEST(JsonRandomTest, ListIsUniform) {
  ExpectBitsEqual(Draw("[10, 20]", 42, 5), kUniform10To20Seed42);
  ExpectBitsEqual(Draw("[10.0, 20.0]", 42, 5), kUniform10To20Seed42);
}

TEST(JsonRandomTest, UniformObject) {
  ExpectBitsEqual(Draw(R"({"uniform": [10, 20]})", 42, 5), kUniform10To20Seed42);
}

TEST(JsonRandomTest, ConstDrawsNothing) {
  // [{"const": [10]}, [10, 20]] on Random(42): 10.0, 16.39426798457884.
  const Json c = J(R"({"const": [10]})");
  const Json u = J("[10, 20]");
  Random prng(42);
  const double a = Settings(c, "c").json_random(prng);
  const double b = Settings(u, "u").json_random(prng);
  EXPECT_EQ(a, 10.0);
  EXPECT_EQ(std::bit_cast<uint64_t>(b), std::bit_cast<uint64_t>(0x1.064eebf23a03ep+4));
}

TEST(JsonRandomTest, NormalObject) {
  // JsonRandom(random.Random(42)).random({"normal": [0, 1]}) five times
  // (Python's gauss keeps its second value for the next call).
  ExpectBitsEqual(Draw(R"({"normal": [0, 1]})", 42, 5),
                  {-0x1.2718d4a9a8111p-3,  // -0.14409032957792836
                   -0x1.621b486646b7cp-3,  // -0.1729036003315193
                   -0x1.c7f3240f58c66p-4,  // -0.11131586156766246
                   0x1.676a692b3f6c1p-1,   // 0.7019837250988631
                   -0x1.054d01919a25bp-3});  // -0.12758828378288709
}

TEST(JsonRandomTest, ExponObject) {
  // JsonRandom(random.Random(42)).random({"expon": [3]}) five times.
  ExpectBitsEqual(Draw(R"({"expon": [3]})", 42, 5),
                  {0x1.576fc7f56fe4fp+0,   // 1.3415493940555228
                   0x1.621754b76c6c6p+3,   // 11.065348013161735
                   0x1.efb26dda0441ep+1,   // 3.8726327242407157
                   0x1.1fee40cf31381p+2,   // 4.498916818939393
                   0x1.d5d6ed3af66aap-1});  // 0.9176553854442393
}

TEST(JsonRandomTest, MixedSequenceOnOneGenerator) {
  // One JsonRandom(random.Random(7)) drawing, in order: [-1.5, 2.5],
  // {"normal": [100, 5]}, {"expon": [0.5]}, {"uniform": [0, 1]},
  // {"const": [7.5]}, {"normal": [0, 1]}, 3, 2.5, [5, 5],
  // {"normal": [-2, 0.25]}.
  const char* specs[] = {"[-1.5, 2.5]",          R"({"normal": [100, 5]})",
                         R"({"expon": [0.5]})",  R"({"uniform": [0, 1]})",
                         R"({"const": [7.5]})",  R"({"normal": [0, 1]})",
                         "3",                    "2.5",
                         "[5, 5]",               R"({"normal": [-2, 0.25]})"};
  const std::vector<double> want = {
      -0x1.a329783562c90p-3,  // -0.20466894066735053
      0x1.a0ee2ce4aaa7ap+6,   // 104.23259312907786
      0x1.500191e1d2c0cp+0,   // 1.3125239540411284
      0x1.125f2046063a0p-1,   // 0.5358820043066892
      0x1.e000000000000p+2,   // 7.5
      0x1.2da54054cff4bp+0,   // 1.178302784639487
      0x1.8000000000000p+1,   // 3.0
      0x1.4000000000000p+1,   // 2.5
      0x1.4000000000000p+2,   // 5.0 (still draws one random())
      -0x1.b8d6587b33d37p+0,  // -1.7220206547534198
  };
  Random prng(7);
  std::vector<double> got;
  for (const char* spec : specs) {
    const Json j = J(spec);
    got.push_back(Settings(j, "s").json_random(prng));
  }
  ExpectBitsEqual(got, want);
}

TEST(JsonRandomTest, GaussCacheSurvivesOtherDraws) {
  // JsonRandom(random.Random(2024)): normal, [0, 1], normal. The second
  // normal is the value gauss() kept from the first call.
  const Json n = J(R"({"normal": [0, 1]})");
  const Json u = J("[0, 1]");
  Random prng(2024);
  std::vector<double> got;
  got.push_back(Settings(n, "n").json_random(prng));
  got.push_back(Settings(u, "u").json_random(prng));
  got.push_back(Settings(n, "n").json_random(prng));
  ExpectBitsEqual(got, {-0x1.95f9dcb2a8f0ep+0,  // -1.5858438430959185
                        0x1.370a9899a035ep-2,   // 0.3037513583913575
                        0x1.34d12b62cc259p-2});  // 0.3015791682292153
}

TEST(JsonRandomTest, NumbersAreReturnedAsFloats) {
  Random prng(1);
  const Random before = prng;
  const Json i = J("300");
  const Json f = J("0.25");
  EXPECT_EQ(Settings(i, "i").json_random(prng), 300.0);
  EXPECT_EQ(Settings(f, "f").json_random(prng), 0.25);
  EXPECT_EQ(prng.getstate(), before.getstate());  // nothing drawn
}

struct BadSpec {
  const char* spec;
  const char* message;
};

TEST(JsonRandomTest, CheckRejectsMalformedSpecs) {
  const BadSpec cases[] = {
      {"[1]", "uniform distribution must be [min, max], got [1]"},
      {"[1, 2, 3]", "uniform distribution must be [min, max], got [1,2,3]"},
      {"[1, \"a\"]", "uniform distribution must be [min, max], got [1,\"a\"]"},
      {"{}", "expected one distribution type, got {}"},
      {R"({"const": [1], "uniform": [1, 2]})",
       "expected one distribution type, got {\"const\":[1],\"uniform\":[1,2]}"},
      {R"({"const": 1})",
       "constant must be {\"const\": [value]}, got {\"const\":1}"},
      {R"({"const": []})",
       "constant must be {\"const\": [value]}, got {\"const\":[]}"},
      {R"({"uniform": [1]})",
       "uniform distribution must be {\"uniform\": [min, max]}, got "
       "{\"uniform\":[1]}"},
      {R"({"normal": [0]})",
       "normal distribution must be {\"normal\": [mu, sigma]}, got "
       "{\"normal\":[0]}"},
      {R"({"normal": [0, "1"]})",
       "normal distribution must be {\"normal\": [mu, sigma]}, got "
       "{\"normal\":[0,\"1\"]}"},
      {R"({"expon": []})",
       "exponential distribution must be {\"expon\": [lambda]}, got "
       "{\"expon\":[]}"},
      {R"({"expon": [1, 2]})",
       "exponential distribution must be {\"expon\": [lambda]}, got "
       "{\"expon\":[1,2]}"},
      {R"({"gamma": [1]})",
       "unknown distribution type {\"gamma\":[1]} (expected const, uniform, "
       "normal or expon)"},
      {"\"abc\"",
       "expected a number, [min, max] or a distribution such as "
       "{\"normal\": [mu, sigma]}, got the string \"abc\""},
      {"null",
       "expected a number, [min, max] or a distribution such as "
       "{\"normal\": [mu, sigma]}, got null"},
      {"true",
       "expected a number, [min, max] or a distribution such as "
       "{\"normal\": [mu, sigma]}, got true"},
      // PAMS would draw from reversed ranges; they are refused as typos.
      {"[200, 100]", "expected [min, max] with min <= max, got [200, 100]"},
      {R"({"uniform": [1.5, -2]})",
       "expected {\"uniform\": [min, max]} with min <= max, got [1.5, -2]"},
  };
  for (const BadSpec& c : cases) {
    const Json j = J(c.spec);
    const Settings s(j, "FCNAgents.orderMargin");
    ConfigError e = CatchConfigError([&] { s.check_json_random(); });
    EXPECT_EQ(e.path(), "FCNAgents.orderMargin") << c.spec;
    EXPECT_EQ(e.message(), c.message) << c.spec;
    // json_random checks first and draws nothing.
    Random prng(5);
    const Random::State before = prng.getstate();
    e = CatchConfigError([&] { s.json_random(prng); });
    EXPECT_EQ(e.message(), c.message) << c.spec;
    EXPECT_EQ(prng.getstate(), before) << c.spec;
  }
}

TEST(JsonRandomTest, CheckAcceptsEveryForm) {
  for (const char* spec :
       {"1", "1.5", "-2", "[1, 2]", "[-2, 1.5]", "[3, 3]", R"({"const": [1]})",
        R"({"uniform": [0, 1]})", R"({"normal": [0, 1]})",
        R"({"expon": [1]})"}) {
    const Json j = J(spec);
    EXPECT_NO_THROW(Settings(j, "x").check_json_random()) << spec;
  }
}

// --- ResolveExtends (PAMS's json_extends) ---

TEST(ResolveExtendsTest, ParentKeysFirstThenChildsNewKeys) {
  // json_extends gives {"a": 1, "b": 20, "c": 3, "d": 4}.
  const Json whole = J(R"({"P": {"a": 1, "b": 2, "c": 3},
                           "C": {"d": 4, "extends": "P", "b": 20}})");
  const Json r = ResolveExtends(whole, "C", whole["C"], {});
  EXPECT_EQ(r.dump(), R"({"a":1,"b":20,"c":3,"d":4})");
}

TEST(ResolveExtendsTest, NoExtendsIsACopy) {
  const Json whole = J(R"({"A": {"z": 1, "a": 2}})");
  const Json r = ResolveExtends(whole, "A", whole["A"], {"z"});
  EXPECT_EQ(r.dump(), R"({"z":1,"a":2})");  // exclusions apply to parents only
}

TEST(ResolveExtendsTest, ExcludedParentKeys) {
  // json_extends(..., ["numAgents", "from", "to"]) gives
  // {"class": "FCNAgent", "x": 2, "prefix": "p", "numAgents": 5}.
  const Json whole = J(R"({
      "P": {"class": "FCNAgent", "numAgents": 100, "from": 1, "to": 3,
            "x": 1, "prefix": "p"},
      "C": {"extends": "P", "x": 2, "numAgents": 5}})");
  const Json r =
      ResolveExtends(whole, "C", whole["C"], {"numAgents", "from", "to"});
  EXPECT_EQ(r.dump(), R"({"class":"FCNAgent","x":2,"prefix":"p","numAgents":5})");
}

TEST(ResolveExtendsTest, ChainOfThree) {
  // json_extends gives
  // {"a": 1, "z": 26, "shared": "C", "b": 2, "bb": 22, "c": 3}.
  const Json whole = J(R"({
      "A": {"a": 1, "z": 26, "shared": "A"},
      "B": {"b": 2, "extends": "A", "shared": "B", "bb": 22},
      "C": {"c": 3, "shared": "C", "extends": "B"}})");
  const Json r = ResolveExtends(whole, "C", whole["C"], {});
  EXPECT_EQ(r.dump(), R"({"a":1,"z":26,"shared":"C","b":2,"bb":22,"c":3})");
  EXPECT_FALSE(r.contains("extends"));
}

TEST(ResolveExtendsTest, MissingParent) {
  const Json whole = J(R"({"A": {"extends": "Missing", "a": 1}})");
  const ConfigError e =
      CatchConfigError([&] { ResolveExtends(whole, "A", whole["A"], {}); });
  EXPECT_EQ(e.path(), "A.extends");
  EXPECT_NE(e.message().find("Missing"), std::string::npos) << e.message();
}

TEST(ResolveExtendsTest, Loops) {
  const Json whole = J(R"({
      "A": {"extends": "B", "a": 1},
      "B": {"extends": "A", "b": 1},
      "S": {"extends": "S"},
      "X": {"x": 1, "extends": "Y"},
      "Y": {"extends": "Z", "y": 1},
      "Z": {"extends": "Y", "z": 1}})");
  for (const char* name : {"A", "B", "S", "X"}) {
    const ConfigError e = CatchConfigError(
        [&] { ResolveExtends(whole, name, whole[name], {}); });
    EXPECT_EQ(e.path(), std::string(name) + ".extends");
    EXPECT_NE(e.message().find("loop"), std::string::npos) << e.message();
  }
}

TEST(ResolveExtendsTest, MalformedEntries) {
  const Json whole = J(R"({
      "A": {"extends": 3},
      "B": {"extends": "N"},
      "N": 5,
      "L": [1]})");
  ConfigError e =
      CatchConfigError([&] { ResolveExtends(whole, "A", whole["A"], {}); });
  EXPECT_EQ(e.path(), "A.extends");
  e = CatchConfigError([&] { ResolveExtends(whole, "B", whole["B"], {}); });
  EXPECT_EQ(e.path(), "N");
  e = CatchConfigError([&] { ResolveExtends(whole, "L", whole["L"], {}); });
  EXPECT_EQ(e.path(), "L");
}

// --- ParseJson ---

TEST(ParseJsonTest, ValidText) {
  const Json j = ParseJson(R"({"b": 1, "a": [1.5, "x", null]})", "cfg.json");
  EXPECT_EQ(j.dump(), R"({"b":1,"a":[1.5,"x",null]})");  // file order kept
}

TEST(ParseJsonTest, DuplicateKeysKeepLastValueAtFirstPosition) {
  // json.loads('{"a":1,"b":2,"a":3}') == {'a': 3, 'b': 2}
  const Json j = ParseJson(R"({"a": 1, "b": 2, "a": 3})", "cfg.json");
  EXPECT_EQ(j.dump(), R"({"a":3,"b":2})");
  const Json nested = ParseJson(
      R"({"M": {"MEMO": "x", "k": 1, "MEMO": "y"}, "MEMO": 1, "MEMO": 2})",
      "cfg.json");
  EXPECT_EQ(nested.dump(), R"({"M":{"MEMO":"y","k":1},"MEMO":2})");
}

TEST(ParseJsonTest, ErrorsNameTheSourceAndPosition) {
  // Line 3, column 8 is the '}' where a value was expected.
  const ConfigError e = CatchConfigError(
      [] { ParseJson("{\n  \"a\": 1,\n  \"b\": }\n", "config.json"); });
  EXPECT_EQ(e.path(), "config.json");
  EXPECT_EQ(e.message().rfind("invalid JSON: parse error", 0), 0u) << e.message();
  EXPECT_NE(e.message().find("line 3, column 8"), std::string::npos)
      << e.message();
  EXPECT_EQ(e.message().find("[json.exception"), std::string::npos)
      << e.message();
}

TEST(ParseJsonTest, RejectsNonJson) {
  for (const char* text :
       {"", "{", "{\"a\": 1", "{\"a\": 1} x", "{\"a\": NaN}",
        "{\"a\": Infinity}", "// comment\n{}", "{\"a\": 1,}", "{'a': 1}",
        "[1, 2"}) {
    const ConfigError e =
        CatchConfigError([&] { ParseJson(text, "in.json"); });
    EXPECT_EQ(e.path(), "in.json") << text;
    EXPECT_NE(e.message().find("line "), std::string::npos) << e.message();
  }
}

TEST(ParseJsonTest, MissingFile) {
  const ConfigError e = CatchConfigError(
      [] { ParseJsonFile("/nonexistent/dir/config.json"); });
  EXPECT_EQ(e.path(), "/nonexistent/dir/config.json");
  EXPECT_EQ(e.message(), "cannot open config file: No such file or directory");
}

TEST(ParseJsonTest, DirectoryAndEmptyFile) {
  const ConfigError dir = CatchConfigError([] { ParseJsonFile("/tmp"); });
  EXPECT_EQ(dir.message(), "is a directory, not a config file");
  const ConfigError empty = CatchConfigError([] { ParseJsonFile("/dev/null"); });
  EXPECT_EQ(empty.message(), "invalid JSON: the file is empty");
}

TEST(ParseJsonTest, ReadsASampleFile) {
  const Json j =
      ParseJsonFile(std::string(PAMS_SOURCE_DIR) + "/samples/CI2002/config.json");
  ASSERT_TRUE(j.is_object());
  EXPECT_TRUE(j.contains("simulation"));
}

}  // namespace
}  // namespace pams
