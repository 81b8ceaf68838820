// TestAgent: PAMS's zero-intelligence agent for tests: in each accessible
// market, a limit order at the market price +/- up to 10, volume 1..100,
// time to live 1..100, buy with probability 0.4, sell with 0.4.

#ifndef PAMS_AGENTS_TEST_AGENT_H_
#define PAMS_AGENTS_TEST_AGENT_H_

#include "pams/agents/agent.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT TestAgent : public Agent {
 public:
  explicit TestAgent(AgentInit init) : Agent(std::move(init)) {}
  void submit_orders(Markets markets, std::vector<Action>* orders) override;
  bool has_cheap_submit_orders() const override;  // TestAgent's own
};

}  // namespace pams

#endif  // PAMS_AGENTS_TEST_AGENT_H_
