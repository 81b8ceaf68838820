// RunAgentTask: one agent's submit_orders() as a parallel runner's round
// runs it, on any thread or in a worker's replica. Private to the library.

#ifndef PAMS_SRC_RUNNERS_AGENT_TASK_H_
#define PAMS_SRC_RUNNERS_AGENT_TASK_H_

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pams/agents/agent.h"
#include "pams/market/order.h"

namespace pams {

// Calls agent->submit_orders(markets, actions). Its warnings are kept in
// *warnings (appended, in order) instead of printed; an exception, or a
// change of the agent's cash, asset volumes or accessible markets (which
// the agent contract forbids in submit_orders), is described in *error
// (left empty on success), and a HostError's payload is kept in
// *host_error (if not null). Never throws. If the call was abandoned
// meanwhile (TaskAbandoned()), it returns as soon as the agent returns,
// touching nothing (the run, and what the pointers point to, may be gone).
// REQUIRES: actions is empty.
void RunAgentTask(Agent* agent, Markets markets, std::vector<Action>* actions,
                  std::string* error, std::vector<std::string>* warnings,
                  std::string* host_error = nullptr);

// RunAgentTask's handling around call() instead of submit_orders (a phase of
// an agent whose model calls are batched, or SequentialRunner's call): its
// warnings kept, its exception described, and with check_public_state a
// change of the agent's cash, asset volumes or accessible markets an error.
// REQUIRES: *error is empty.
void RunAgentCall(Agent* agent, const std::function<void()>& call, bool check_public_state,
                  std::string* error, std::vector<std::string>* warnings,
                  std::string* host_error = nullptr);

// Whether the task the calling thread runs was abandoned: the thread
// runner stopped waiting for it (an interrupted run) and went on. Code
// that an agent's call returns to (RunAgentTask, the Python bindings after
// a Python call) checks it before touching anything of the run, and then
// throws TaskAbandonedError to get back to RunAgentTask. False on threads
// that run no pool's tasks.
bool TaskAbandoned();

// Thrown by code that finds its task abandoned (see TaskAbandoned), caught
// by RunAgentTask.
class TaskAbandonedError : public std::runtime_error {
 public:
  TaskAbandonedError() : std::runtime_error("task abandoned") {}
};

namespace internal {
// Makes TaskAbandoned() on the calling thread read *flag (which must
// outlive the thread's tasks; null: never abandoned). For the thread
// runner's helper threads.
void SetTaskAbandonedFlag(const std::atomic<bool>* flag);
}  // namespace internal

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_AGENT_TASK_H_
