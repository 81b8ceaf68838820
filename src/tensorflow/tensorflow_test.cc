// TensorFlow support that needs no TensorFlow: the ConfigProto bytes (against
// Python's tf.compat.v1.ConfigProto(...).SerializeToString(), made by
// tensorflow-cpu 2.21 and written here as hex), the library search order,
// and the options read from a config.

#include "pams/tensorflow/tensorflow.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "pams/config/json.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/tensorflow/tensorflow_runner.h"

namespace pams::tensorflow {
namespace {

std::string Hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

TEST(ConfigProtoTest, BytesMatchPython) {
  EXPECT_EQ(Hex(ConfigProtoBytes({2, 1, true})), "1002280132022001");
  EXPECT_EQ(Hex(ConfigProtoBytes({1, std::nullopt, std::nullopt})), "1001");
  EXPECT_EQ(Hex(ConfigProtoBytes({std::nullopt, 3, std::nullopt})), "2803");
  EXPECT_EQ(Hex(ConfigProtoBytes({std::nullopt, std::nullopt, false})), "3200");
  EXPECT_EQ(Hex(ConfigProtoBytes({300, 200, false})), "10ac0228c8013200");
  EXPECT_EQ(Hex(ConfigProtoBytes({})), "");
}

TEST(LibraryTest, TheEnvironmentVariableIsTheOnlyPlaceTried) {
  setenv("PAMS_TENSORFLOW_LIBRARY", "/somewhere/libtensorflow_cc.so.2", 1);
  EXPECT_EQ(LibraryCandidates(),
            std::vector<std::string>{"/somewhere/libtensorflow_cc.so.2"});
  unsetenv("PAMS_TENSORFLOW_LIBRARY");
  const std::vector<std::string> candidates = LibraryCandidates();
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.back(), "libtensorflow_cc.so.2");  // the loader's path
}

TEST(OptionsTest, FromSettings) {
  const Json simulation = Json::parse(R"({"tensorflowIntraOpThreads": 2,
      "tensorflowGpuMemoryGrowth": false})");
  const Options options = OptionsFromSettings(Settings(simulation, "simulation"), 7);
  EXPECT_EQ(options.intra_op_threads, 2);
  EXPECT_EQ(options.inter_op_threads, std::nullopt);
  EXPECT_EQ(options.gpu_memory_growth, false);
  const Json empty = Json::object();
  EXPECT_EQ(OptionsFromSettings(Settings(empty, "simulation"), 7).intra_op_threads, 7);
}

TEST(OptionsTest, BadValuesNameTheKey) {
  for (const char* bad : {R"({"tensorflowIntraOpThreads": 0})",
                          R"({"tensorflowIntraOpThreads": 1.5})",
                          R"({"tensorflowInterOpThreads": "2"})",
                          R"({"tensorflowGpuMemoryGrowth": 1})"}) {
    const Json simulation = Json::parse(bad);
    try {
      OptionsFromSettings(Settings(simulation, "simulation"), std::nullopt);
      ADD_FAILURE() << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.path().rfind("simulation.tensorflow", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace pams::tensorflow
