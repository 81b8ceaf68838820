#include "pams/simulator/simulator_view.h"

#include <string>

#include "pams/agents/agent.h"
#include "pams/errors.h"
#include "pams/market/market.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams {

int AgentView::agent_id() const { return agent_->agent_id(); }
const std::string& AgentView::name() const { return agent_->name(); }
const std::string& AgentView::class_name() const { return agent_->class_name(); }
double AgentView::cash_amount() const { return agent_->cash_amount(); }
bool AgentView::is_market_accessible(int market_id) const {
  return agent_->is_market_accessible(market_id);
}
int64_t AgentView::get_asset_volume(int market_id) const {
  return agent_->get_asset_volume(market_id);
}
const std::vector<int>& AgentView::accessible_market_ids() const {
  return agent_->accessible_market_ids();
}
bool AgentView::is_high_frequency() const { return agent_->is_high_frequency(); }

std::span<const Market* const> SimulatorView::markets() const {
  return simulator_->markets();
}

const Market& SimulatorView::market(int market_id) const {
  return simulator_->market(market_id);
}

const Market* SimulatorView::find_market(std::string_view name) const {
  return simulator_->find_market(std::string(name));
}

std::span<const Market* const> SimulatorView::find_market_group(
    std::string_view group) const {
  const std::vector<const Market*>* members =
      simulator_->find_market_group(std::string(group));
  if (members == nullptr) return {};
  return *members;
}

int SimulatorView::num_agents() const {
  return static_cast<int>(simulator_->agents().size());
}

AgentView SimulatorView::agent(int agent_id) const {
  return AgentView(&simulator_->agent(agent_id));
}

std::optional<AgentView> SimulatorView::find_agent(std::string_view name) const {
  const Agent* agent = simulator_->find_agent(std::string(name));
  if (agent == nullptr) return std::nullopt;
  return AgentView(agent);
}

std::span<const Session* const> SimulatorView::sessions() const {
  return simulator_->const_sessions();
}

const Session* SimulatorView::current_session() const {
  return simulator_->current_session();
}

int64_t SimulatorView::time() const { return simulator_->time(); }

int64_t SimulatorView::total_steps() const { return simulator_->total_steps(); }

const std::string& SimulatorView::config_directory() const {
  return simulator_->config_directory();
}

void SimulatorView::warn(std::string_view message) const {
  simulator_->warn(message);
}

}  // namespace pams
