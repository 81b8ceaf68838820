#include "runners/agent_task.h"

#include <exception>

#include "agents/agent_access.h"

namespace pams {

void RunAgentTask(Agent* agent, Markets markets, std::vector<Action>* actions,
                  std::string* error, std::vector<std::string>* warnings) {
  using internal::AgentAccess;
  const uint64_t version = AgentAccess::PublicStateVersion(*agent);
  AgentAccess::DeferWarnings(agent, true);
  try {
    agent->submit_orders(markets, actions);
  } catch (const std::exception& e) {
    *error = e.what();
  } catch (...) {
    *error = "unknown exception";
  }
  AgentAccess::DeferWarnings(agent, false);
  AgentAccess::TakeWarnings(agent, warnings);
  if (error->empty() && AgentAccess::PublicStateVersion(*agent) != version) {
    *error =
        "it changed its cash, asset volumes or accessible markets, which "
        "agents may change in setup() and the callbacks but not in "
        "submit_orders() under a parallel runner (the other agents of its "
        "round would not see the change as SequentialRunner shows it); see "
        "the agent contract in docs/plugins.md";
  }
}

}  // namespace pams
