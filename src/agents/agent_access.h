// AgentAccess: the engine's access to an Agent's bookkeeping, which is not
// part of the public API (the journal that keeps worker replicas in step,
// the public-state version the parallel runners check, deferred warnings).
// Private to the library; the simulation thread, or the thread running the
// agent's submit_orders() for the deferred warnings.

#ifndef PAMS_SRC_AGENTS_AGENT_ACCESS_H_
#define PAMS_SRC_AGENTS_AGENT_ACCESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "pams/agents/agent.h"

namespace pams::internal {

class AgentAccess {
 public:
  static void SetJournal(Agent* agent, SimulationJournal* journal) {
    agent->journal_ = journal;
  }
  // Changes with every change of cash, asset volumes or accessible markets.
  static uint64_t PublicStateVersion(const Agent& agent) {
    return agent.public_state_version_;
  }
  // While deferring, Agent::warn keeps its messages for TakeWarnings instead
  // of printing them.
  static void DeferWarnings(Agent* agent, bool defer) {
    agent->defer_warnings_ = defer;
  }
  // Moves the deferred warnings into *out (appending) and forgets them.
  static void TakeWarnings(Agent* agent, std::vector<std::string>* out) {
    for (std::string& w : agent->deferred_warnings_) out->push_back(std::move(w));
    agent->deferred_warnings_.clear();
  }
  static bool HasWarnings(const Agent& agent) {
    return !agent.deferred_warnings_.empty();
  }
};

}  // namespace pams::internal

#endif  // PAMS_SRC_AGENTS_AGENT_ACCESS_H_
