// Call changes: a replica that applies what a call changed ends up with the
// caller's state, for every kind of prng change, in few bytes; marks tell
// an untouched agent from a touched one.

#include "runners/call_change.h"

#include <gtest/gtest.h>

#include <string>

#include "pams/agents/fcn_agent.h"
#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"
#include "pams/util/state.h"

namespace pams {
namespace {

// An agent whose "call" draws a given number of words, may reseed its
// prng, and counts its calls (subclass state).
class WorkingAgent : public FCNAgent {
 public:
  using FCNAgent::FCNAgent;
  void Work(int words, bool reseed, bool count) {
    if (reseed) prng().seed(12345);
    for (int k = 0; k < words; ++k) prng().genrand_uint32();
    if (words % 2 == 1) prng().gauss(0, 1);
    if (count) ++calls_;
  }
  void save_state(StateWriter& out) const override { out.write(calls_); }
  void load_state(StateReader& in) override { calls_ = in.read<int64_t>(); }

 private:
  int64_t calls_ = 0;
};

class CallChangeTest : public ::testing::Test {
 protected:
  CallChangeTest() : registry_(ClassRegistry::WithBuiltins()) {
    registry_.add_agent<WorkingAgent>("WorkingAgent");
    Json c = ParseJsonFile(std::string(PAMS_SOURCE_DIR) + "/samples/CI2002/config.json");
    c["FCNAgents"]["class"] = "WorkingAgent";
    caller_ = std::make_unique<SequentialRunner>(c, Random(3), nullptr, registry_);
    replica_ = std::make_unique<SequentialRunner>(c, Random(3), nullptr, registry_);
    caller_->setup();
    replica_->setup();
  }
  WorkingAgent& Caller() { return static_cast<WorkingAgent&>(*caller_->simulator().agents()[0]); }
  Agent& Replica() { return *replica_->simulator().agents()[0]; }

  // Runs a call on the caller, applies its change to the replica (which
  // starts as the caller did) and returns the change's size.
  size_t CallAndApply(int words, bool reseed, bool count) {
    std::string state;
    Caller().serialize_state(&state);
    Replica().deserialize_state(state);
    CallStart start;
    BeginCall(Caller(), &start);
    Caller().Work(words, reseed, count);
    CallBuffers buffers;
    std::string message;
    StateWriter w(&message);
    WriteCallChange(Caller(), start, &buffers, w);
    StateReader r(message);
    const std::string_view change = ReadCallChange(r);
    EXPECT_TRUE(r.at_end());
    bool extra_changed = false;
    std::string extra;
    ApplyCallChange(change, &Replica(), &extra_changed, &extra);
    EXPECT_EQ(extra_changed, count);
    std::string caller_state, replica_state;
    Caller().serialize_state(&caller_state);
    Replica().serialize_state(&replica_state);
    EXPECT_EQ(caller_state, replica_state);
    EXPECT_EQ(MarkOf(Caller()).position, MarkOf(Replica()).position);
    return change.size();
  }

  ClassRegistry registry_;
  std::unique_ptr<SequentialRunner> caller_;
  std::unique_ptr<SequentialRunner> replica_;
};

TEST_F(CallChangeTest, DrawsAndTwistsTravelAsCounts) {
  for (int words : {0, 1, 10, 623, 700, 1300, 5000}) {
    EXPECT_LT(CallAndApply(words, false, false), 40u) << words;
    EXPECT_LT(CallAndApply(words, false, true), 60u) << words;
  }
}

TEST_F(CallChangeTest, AReseededPrngTravelsWhole) {
  EXPECT_GT(CallAndApply(3, true, true), sizeof(Random::State));
}

TEST_F(CallChangeTest, MarksChangeWithEveryDrawAndReset) {
  const AgentMark before = MarkOf(Caller());
  EXPECT_EQ(MarkOf(Caller()), before);
  Caller().Work(0, false, true);  // subclass state only: the mark stays
  EXPECT_EQ(MarkOf(Caller()), before);
  Caller().Work(1, false, false);
  EXPECT_NE(MarkOf(Caller()), before);
  const AgentMark drawn = MarkOf(Caller());
  Caller().prng().setstate(Caller().prng().getstate());
  EXPECT_NE(MarkOf(Caller()), drawn);
  const AgentMark set = MarkOf(Caller());
  Caller().Work(624, false, false);  // back at the same position, one twist on
  EXPECT_NE(MarkOf(Caller()), set);
}

TEST_F(CallChangeTest, MalformedChangesAreRefused) {
  bool extra_changed = false;
  std::string extra;
  for (const std::string& change :
       {std::string("\x07", 1), std::string("\x00", 1), std::string("\x01\x00", 2)}) {
    EXPECT_THROW(ApplyCallChange(change, &Replica(), &extra_changed, &extra), SimulationError);
  }
  std::string change;
  StateWriter w(&change);
  w.write<uint8_t>(0);
  w.write<uint64_t>(0);
  w.write<uint32_t>(Random::kStateWords + 1);  // a position past the words
  w.write<uint8_t>(0);
  w.write<double>(0);
  w.write<uint8_t>(0);
  EXPECT_THROW(ApplyCallChange(change, &Replica(), &extra_changed, &extra), SimulationError);
}

}  // namespace
}  // namespace pams
