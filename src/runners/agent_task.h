// RunAgentTask: one agent's submit_orders() as a parallel runner's round
// runs it, on any thread or in a worker's replica. Private to the library.

#ifndef PAMS_SRC_RUNNERS_AGENT_TASK_H_
#define PAMS_SRC_RUNNERS_AGENT_TASK_H_

#include <string>
#include <vector>

#include "pams/agents/agent.h"
#include "pams/market/order.h"

namespace pams {

// Calls agent->submit_orders(markets, actions). Its warnings are kept in
// *warnings (appended, in order) instead of printed; an exception, or a
// change of the agent's cash, asset volumes or accessible markets (which
// the agent contract forbids in submit_orders), is described in *error
// (left empty on success). Never throws. REQUIRES: actions is empty.
void RunAgentTask(Agent* agent, Markets markets, std::vector<Action>* actions,
                  std::string* error, std::vector<std::string>* warnings);

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_AGENT_TASK_H_
