// The errors' messages stay short whatever the input: ShortenForMessage
// keeps head and tail, cuts between UTF-8 characters and says how much it
// cut; ConfigError keeps the key path and caps what() at kMaxMessageBytes.

#include "pams/errors.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

namespace pams {
namespace {

TEST(ErrorsTest, ShortTextIsKept) {
  EXPECT_EQ(ShortenForMessage("FCNAgents.numAgents", 100), "FCNAgents.numAgents");
}

TEST(ErrorsTest, LongTextKeepsHeadAndTail) {
  const std::string text = "head" + std::string(10000, 'x') + "tail";
  const std::string cut = ShortenForMessage(text, 200);
  EXPECT_LE(cut.size(), 200u);
  EXPECT_EQ(cut.rfind("headxxx", 0), 0u) << cut;
  EXPECT_EQ(cut.substr(cut.size() - 7), "xxxtail") << cut;
  EXPECT_NE(cut.find("[... "), std::string::npos);
  EXPECT_NE(cut.find(" bytes cut ...]"), std::string::npos);
}

TEST(ErrorsTest, CutsBetweenUtf8Characters) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "\xc3\xa9";  // é
  const std::string cut = ShortenForMessage(text, 101);
  const size_t marker = cut.find("[...");
  ASSERT_NE(marker, std::string::npos);
  EXPECT_EQ(marker % 2, 0u);                  // whole characters before
  EXPECT_EQ((cut.size() - cut.find("...]") - 4) % 2, 0u);  // and after
}

TEST(ErrorsTest, ConfigErrorIsCappedAndKeepsThePath) {
  const ConfigError e("FCNAgents.class",
                      "unknown agent class \"" + std::string(50'000'000, 'x') + "\" (known: A)");
  const std::string what = e.what();
  EXPECT_LE(what.size(), kMaxMessageBytes);
  EXPECT_EQ(what.rfind("FCNAgents.class: unknown agent class \"xxx", 0), 0u);
  EXPECT_EQ(what.substr(what.size() - 12), "\" (known: A)") << what.substr(what.size() - 40);
  EXPECT_EQ(e.path(), "FCNAgents.class");
  // A huge path (a key of 10 000 characters) is cut too.
  const ConfigError p(std::string(10000, 'k'), "is listed but missing");
  EXPECT_LE(std::string(p.what()).size(), kMaxMessageBytes);
  EXPECT_NE(std::string(p.what()).find(": is listed but missing"), std::string::npos);
}

TEST(ErrorsTest, SimulationAndOutputErrors) {
  EXPECT_LE(std::string(SimulationError(std::string(100000, 'm')).what()).size(),
            kMaxMessageBytes);
  const OutputError e("steps.csv", "writing failed", ENOSPC);
  EXPECT_STREQ(e.what(), "steps.csv: writing failed: No space left on device");
  EXPECT_EQ(e.path(), "steps.csv");
  EXPECT_EQ(e.error_number(), ENOSPC);
  const SimulationError& base = e;  // caught as a SimulationError too
  EXPECT_STREQ(base.what(), e.what());
}

}  // namespace
}  // namespace pams
