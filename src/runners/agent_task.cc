#include "runners/agent_task.h"

#include <exception>

#include "agents/agent_access.h"
#include "runners/host_error.h"

namespace pams {

namespace {

// The abandoned flag of the pool whose helper the calling thread is (see
// SetTaskAbandonedFlag): per thread, set once when the helper starts.
thread_local const std::atomic<bool>* t_abandoned = nullptr;

}  // namespace

bool TaskAbandoned() { return t_abandoned != nullptr && t_abandoned->load(); }

namespace internal {
void SetTaskAbandonedFlag(const std::atomic<bool>* flag) { t_abandoned = flag; }
}  // namespace internal

void RunAgentTask(Agent* agent, Markets markets, std::vector<Action>* actions,
                  std::string* error, std::vector<std::string>* warnings,
                  std::string* host_error) {
  RunAgentCall(
      agent, [&] { agent->submit_orders(markets, actions); }, /*check_public_state=*/true, error,
      warnings, host_error);
}

void RunAgentCall(Agent* agent, const std::function<void()>& call, bool check_public_state,
                  std::string* error, std::vector<std::string>* warnings,
                  std::string* host_error) {
  using internal::AgentAccess;
  const uint64_t version = AgentAccess::PublicStateVersion(*agent);
  AgentAccess::DeferWarnings(agent, true);
  // Kept here until the task is known not to be abandoned.
  std::string failure;
  std::string host_failure;
  try {
    call();
  } catch (const HostError& e) {
    failure = e.what();
    host_failure = e.payload();
  } catch (const TaskAbandonedError&) {
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  // The run went on without this call: nothing it pointed to may be
  // touched.
  if (TaskAbandoned()) return;
  *error = std::move(failure);
  if (host_error != nullptr) *host_error = std::move(host_failure);
  AgentAccess::DeferWarnings(agent, false);
  AgentAccess::TakeWarnings(agent, warnings);
  if (check_public_state && error->empty() &&
      AgentAccess::PublicStateVersion(*agent) != version) {
    *error =
        "it changed its cash, asset volumes or accessible markets, which "
        "agents may change in setup() and the callbacks but not in "
        "submit_orders() under a parallel runner, nor in the phases of "
        "batched model calls under any runner (the other agents of its "
        "round would not see the change as SequentialRunner shows it); see "
        "the agent contract in docs/plugins.md";
  }
}

}  // namespace pams
