// SimulatorView: what an agent sees of the simulation it is part of
// (Agent::simulator()), and AgentView: what it sees of another agent. Both
// are read-only: an agent changes the simulation only through the orders
// and cancels it returns.
//
// The agent contract. In submit_orders() an agent may read
//   * the markets (the `markets` argument, or markets()/find_market(): const
//     methods only; their histories, books, prices and times);
//   * its own fields, base and subclass (cash_amount(), get_asset_volume(),
//     prng(), ...);
//   * the sessions, the current session and the current time;
//   * every agent's public state through agent()/find_agent(): id, name,
//     class, cash, asset volumes, accessible markets;
// and may change only its own subclass fields and its prng. It must not
// change its cash or asset volumes there (they change with executions,
// which the engine settles between steps): the parallel runners refuse an
// agent that does, since the agents asked in the same round would otherwise
// see different values than under SequentialRunner.
//
// Every runner shows an agent the same values at the same moment:
// SequentialRunner and the thread runner read the simulation itself; a
// worker process of MultiProcessAgentParallelRunner keeps a replica whose
// markets, agents' public state, session and time are brought up to date
// before each task. What lies outside this view (other agents' subclass
// fields, the fundamentals' generator, loggers, events) is not kept in
// step in worker processes, which is why the view does not offer it.
//
// Threading: the parallel runners call submit_orders() of several agents
// at once, and each may read its view meanwhile; nothing changes the
// simulation while they run. Views live as long as their simulator.

#ifndef PAMS_SIMULATOR_SIMULATOR_VIEW_H_
#define PAMS_SIMULATOR_SIMULATOR_VIEW_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pams/export.h"

namespace pams {

class Agent;
class Market;
class Session;
class Simulator;

// Another agent's public state. A small handle; copy it freely while the
// simulation lives.
class PAMS_EXPORT AgentView {
 public:
  int agent_id() const;
  const std::string& name() const;
  const std::string& class_name() const;
  double cash_amount() const;
  double get_cash_amount() const { return cash_amount(); }
  bool is_market_accessible(int market_id) const;
  // REQUIRES (else SimulationError): the market is accessible to the agent.
  int64_t get_asset_volume(int market_id) const;
  // The accessible markets, in the order they were made accessible.
  const std::vector<int>& accessible_market_ids() const;
  bool is_high_frequency() const;

 private:
  friend class SimulatorView;
  explicit AgentView(const Agent* agent) : agent_(agent) {}
  const Agent* agent_;
};

class PAMS_EXPORT SimulatorView {
 public:
  SimulatorView(const SimulatorView&) = delete;
  SimulatorView& operator=(const SimulatorView&) = delete;

  // The markets, in market-id order.
  std::span<const Market* const> markets() const;
  // REQUIRES (else SimulationError): a market has that id (ids are
  // positions, except in simulations built by hand).
  const Market& market(int market_id) const;
  // nullptr when no market has that name.
  const Market* find_market(std::string_view name) const;
  // The markets of a config group (e.g. "SpotMarket"); empty if none.
  std::span<const Market* const> find_market_group(std::string_view group) const;

  // Every agent, normal and high-frequency, in agent-id order.
  int num_agents() const;
  // REQUIRES (else SimulationError): an agent has that id.
  AgentView agent(int agent_id) const;
  std::optional<AgentView> find_agent(std::string_view name) const;

  std::span<const Session* const> sessions() const;
  // nullptr before the first session starts (e.g. in setup()).
  const Session* current_session() const;
  // The current step: -1 before the run, then 0, 1, ... (markets' get_time()).
  int64_t time() const;
  // The steps of all sessions together (see Simulator::total_steps()).
  int64_t total_steps() const;

  // The directory of the config file, for files named relative to it;
  // empty: the working directory.
  const std::string& config_directory() const;

 private:
  friend class Agent;
  friend class Simulator;
  explicit SimulatorView(Simulator* simulator) : simulator_(simulator) {}
  // For Agent::warn, which the runners route (see there).
  void warn(std::string_view message) const;

  Simulator* simulator_;
};

}  // namespace pams

#endif  // PAMS_SIMULATOR_SIMULATOR_VIEW_H_
