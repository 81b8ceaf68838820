// Tests of values.h: configs given as Python values, JSON back into Python,
// random.Random states.

#include "interop/values.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interop/testing/embedded_python.h"
#include "pams/errors.h"

namespace pams::python {
namespace {

using testing::Eval;
using testing::RaisedBy;

TEST(ValuesTest, ConfigKeepsTheDictsKeyOrderAndEveryJsonType) {
  nb::object config = Eval(
      R"({"simulation": {"markets": ["Market"], "seed": 7},)"
      R"( "Market": {"class": "Market", "tickSize": 0.01, "open": True, "cap": None},)"
      R"( "big": 2**63 - 1, "tuple": (1, 2.5)})");
  const Json json = ToJson(config, "");
  EXPECT_EQ(json.dump(),
            R"({"simulation":{"markets":["Market"],"seed":7},)"
            R"("Market":{"class":"Market","tickSize":0.01,"open":true,"cap":null},)"
            R"("big":9223372036854775807,"tuple":[1,2.5]})");
  EXPECT_TRUE(json["Market"]["tickSize"].is_number_float());
  EXPECT_TRUE(json["simulation"]["seed"].is_number_integer());
}

TEST(ValuesTest, ConfigErrorsNameTheKeyPath) {
  auto path_of = [](const std::string& expression, const std::string& root) -> std::string {
    try {
      ToJson(Eval(expression), root);
    } catch (const ConfigError& e) {
      return e.path() + " | " + e.message();
    }
    return "no error";
  };
  EXPECT_EQ(path_of(R"({"A": {"x": float("nan")}})", "").substr(0, 6), "A.x | ");
  EXPECT_EQ(path_of(R"({"A": {"list": [1, 2**64]}})", "").substr(0, 12), "A.list[1] | ");
  EXPECT_EQ(path_of(R"({"A": {1: 2}})", "").substr(0, 4), "A | ");
  EXPECT_EQ(path_of(R"({"A": {"f": print}})", "").substr(0, 6), "A.f | ");
  // A value's own path comes first: an agent's settings are checked under
  // the agent's name.
  EXPECT_EQ(path_of(R"({"x": object()})", "Agents").substr(0, 11), "Agents.x | ");
}

TEST(ValuesTest, NestingDeeperThanTheLimitIsAConfigError) {
  // Lists nested `depth` deep (built in a loop: Python's parser refuses
  // such literals).
  auto nested = [](int depth) {
    return Eval("x", "x = []\nfor _ in range(" + std::to_string(depth - 1) + "): x = [x]");
  };
  EXPECT_THROW(ToJson(nested(kMaxJsonDepth + 3), "deep"), ConfigError);
  EXPECT_NO_THROW(ToJson(nested(kMaxJsonDepth - 1), "fine"));
}

TEST(ValuesTest, JsonBackIntoPythonIsTheSameValue) {
  const std::string text = R"({"b": [1, 2.5, "x", null, true], "a": {"u": 18446744073709551615}})";
  nb::object back = ToPython(ParseJson(text, "test"));
  nb::object expected =
      Eval(R"({"b": [1, 2.5, "x", None, True], "a": {"u": 18446744073709551615}})");
  EXPECT_TRUE(back.equal(expected));
  // Keys in the JSON's order, as PAMS's json.load gives them.
  EXPECT_EQ(testing::Str(nb::list(back)), "['b', 'a']");
  EXPECT_TRUE(nb::isinstance<nb::int_>(back["b"][nb::int_(0)]));
  EXPECT_TRUE(nb::isinstance<nb::float_>(back["b"][nb::int_(1)]));
}

TEST(ValuesTest, RandomStateComesFromGetstatesParts) {
  // Python's own random.Random(42): its state, through ToRandomState, gives
  // the engine generator Python's next draws.
  nb::object state = Eval("random.Random(42).getstate()", "import random");
  nb::tuple words = nb::cast<nb::tuple>(state[nb::int_(1)]);
  std::vector<uint32_t> mt;
  for (size_t i = 0; i + 1 < words.size(); ++i) mt.push_back(nb::cast<uint32_t>(words[i]));
  const uint32_t index = nb::cast<uint32_t>(words[words.size() - 1]);
  Random engine(0);
  engine.setstate(ToRandomState(mt, index, std::nullopt));
  const double expected = nb::cast<double>(Eval("random.Random(42).random()", "import random"));
  EXPECT_EQ(engine.random(), expected);
}

TEST(ValuesTest, RandomStateOfAnotherSizeIsAValueError) {
  const std::string raised =
      RaisedBy([] { ToRandomState(std::vector<uint32_t>(10, 0), 0, std::nullopt); });
  EXPECT_NE(raised.find("624 words"), std::string::npos) << raised;
  EXPECT_NE(RaisedBy([] { ToRandomState(std::vector<uint32_t>(624, 0), 625, 0.5); }), "");
}

}  // namespace
}  // namespace pams::python
