#include "runners/model_batches.h"

#include <exception>
#include <string>

#include "runners/agent_task.h"
#include "runners/host_error.h"

namespace pams {

void RunBatchedAgents(ModelBatcher& batcher, std::span<Agent* const> agents, Markets markets,
                      std::vector<AgentTaskResult>* results) {
  if (agents.empty()) return;
  // Forgets the round's calls whatever happens (a batcher's calls may hold
  // large inputs and outputs).
  struct Clear {
    ModelBatcher& batcher;
    ~Clear() { batcher.clear(); }
  } clear{batcher};
  batcher.clear();
  for (size_t i = 0; i < agents.size(); ++i) {
    AgentTaskResult& r = (*results)[i];
    RunAgentCall(
        agents[i], [&] { batcher.prepare(*agents[i], markets); },
        /*check_public_state=*/true, &r.error, &r.warnings, &r.host_error);
    if (!r.error.empty()) return;
  }
  {
    AgentTaskResult& first = (*results)[0];
    try {
      batcher.call_models();
    } catch (const HostError& e) {
      first.error = e.what();
      first.host_error = e.payload();
      return;
    } catch (const std::exception& e) {
      first.error = e.what();
      return;
    } catch (...) {
      first.error = "unknown exception in a batched model call";
      return;
    }
  }
  for (size_t i = 0; i < agents.size(); ++i) {
    AgentTaskResult& r = (*results)[i];
    RunAgentCall(
        agents[i], [&] { batcher.submit(*agents[i], markets, &r.actions); },
        /*check_public_state=*/true, &r.error, &r.warnings, &r.host_error);
    if (!r.error.empty()) return;
  }
}

}  // namespace pams
