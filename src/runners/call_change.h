// Call changes: what an agent's call changed of the agent, in a few bytes,
// for the multi-process runner. Private to the library; any thread.
//
// A call (submit_orders) may change only the agent's prng and its subclass
// state (Agent::save_state); cash, volumes and accessible markets change in
// the main process, and a worker's replica gets them from the journal. So
// a worker answers a task with the call's change: the prng's refill count
// and read position (Random::twists, not its 624 words) and the subclass
// state if it changed. And the main process sends a task to the worker
// that ran the agent last with no state at all when the agent has not
// changed since (AgentMark), instead of the whole state.

#ifndef PAMS_SRC_RUNNERS_CALL_CHANGE_H_
#define PAMS_SRC_RUNNERS_CALL_CHANGE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "pams/agents/agent.h"
#include "pams/util/state.h"

namespace pams {

// Where an agent's prng stands: equal marks of one agent mean its prng did
// not change in between (every change of the words counts a twist or a
// reset; every draw moves the position or a twist).
struct AgentMark {
  uint64_t twists = 0;
  uint64_t resets = 0;
  uint32_t position = 0;
  bool has_gauss_next = false;
  bool operator==(const AgentMark&) const = default;
};
AgentMark MarkOf(const Agent& agent);

// The agent as a call starts: its prng's mark and its subclass state.
struct CallStart {
  AgentMark mark;
  std::string extra;  // Agent::save_state's bytes
};
// Fills *start for `agent` (reusing its buffer).
void BeginCall(const Agent& agent, CallStart* start);

// Buffers WriteCallChange reuses.
struct CallBuffers {
  std::string change;
  std::string extra;
};

// Writes (as one string) how the call that began at `start` changed
// `agent`: its subclass state only if it changed, or always for an agent
// whose replicas may not keep its state (Agent::replicas_may_keep_state).
void WriteCallChange(const Agent& agent, const CallStart& start, CallBuffers* buffers,
                     StateWriter& out);

// Reads what WriteCallChange wrote: the change's bytes, in place.
std::string_view ReadCallChange(StateReader& in);

// Applies a change read by ReadCallChange to `agent`, which must be as the
// call found it. Sets *extra_changed and, if so, *extra to the new subclass
// state. Throws SimulationError on malformed input.
void ApplyCallChange(std::string_view change, Agent* agent, bool* extra_changed,
                     std::string* extra);

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_CALL_CHANGE_H_
