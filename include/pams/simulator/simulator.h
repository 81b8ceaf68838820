// Simulator: the container of one simulation: its markets, agents, sessions,
// events and their hooks, and the Fundamentals. It also routes hooks and
// settles executions (cash and asset volumes). The runner builds and drives
// it (PAMS's Simulator).
//
// Markets, agents, sessions and events are owned here and live as long as the
// simulator, except those a program built itself and lent to it (the
// *_borrowed adds: Python's hand-built objects, which Python owns and keeps
// alive as long as the simulator). A runner assigns ids in order, so that
// market_id 0 is markets()[0], ...; objects built by hand may carry any ids
// in [0, kMaxId), looked up by market(id) and agent(id).
//
// Agents do not see the Simulator: they get its read-only view()
// (simulator_view.h), which says what they may read. Events, markets and
// loggers get the Simulator itself.
//
// Threading: used by the thread that runs the simulation only (the view's
// readers excepted, see simulator_view.h).

#ifndef PAMS_SIMULATOR_SIMULATOR_H_
#define PAMS_SIMULATOR_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pams/agents/agent.h"
#include "pams/events/event.h"
#include "pams/export.h"
#include "pams/market/fundamentals.h"
#include "pams/market/market.h"
#include "pams/random/random.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator_view.h"

namespace pams {

class IndexMarket;
class Logger;
class SimulationJournal;

namespace internal {
class SimulatorAccess;
}  // namespace internal

// Deletes what the simulator owns and leaves alone what it only refers to
// (see Simulator's *_borrowed adds).
struct PAMS_EXPORT MaybeOwned {
  bool owned = true;
  template <typename T>
  void operator()(T* p) const {
    if (owned) delete p;
  }
};
template <typename T>
using Held = std::unique_ptr<T, MaybeOwned>;

class PAMS_EXPORT Simulator {
 public:
  // Ids of markets and agents are in [0, kMaxId).
  static constexpr int kMaxId = 100'000'000;

  // prng: the simulator's own generator; the Fundamentals are seeded from
  // its first draw, as in PAMS.
  explicit Simulator(Random prng, Logger* logger = nullptr);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  Logger* logger() const { return logger_; }
  void set_logger(Logger* logger) { logger_ = logger; }
  Fundamentals& fundamentals() { return fundamentals_; }
  const Fundamentals& fundamentals() const { return fundamentals_; }
  Random& prng() { return prng_; }
  // What agents see of this simulator.
  const SimulatorView& view() const { return view_; }

  // --- Lookup. ---
  Markets markets() const { return const_markets_; }
  const std::vector<Held<Market>>& market_objects() const { return markets_; }
  // The market of that id. Throws SimulationError when there is none.
  Market& market(int market_id) const {
    if (market_id < 0 || static_cast<size_t>(market_id) >= market_by_id_.size() ||
        market_by_id_[market_id] == nullptr) [[unlikely]] {
      FailNoId("market", market_id);
    }
    return *market_by_id_[market_id];
  }
  // nullptr when there is no market of that id.
  Market* find_market(int market_id) const {
    if (market_id < 0 || static_cast<size_t>(market_id) >= market_by_id_.size()) {
      return nullptr;
    }
    return market_by_id_[market_id];
  }
  // nullptr when there is no such market.
  Market* find_market(const std::string& name) const;
  // The markets of a config group (e.g. "SpotMarket"); nullptr if none.
  const std::vector<const Market*>* find_market_group(
      const std::string& group) const;

  const std::vector<Held<Agent>>& agents() const { return agents_; }
  // The agent of that id. Throws SimulationError when there is none.
  Agent& agent(int agent_id) const {
    if (agent_id < 0 || static_cast<size_t>(agent_id) >= agent_by_id_.size() ||
        agent_by_id_[agent_id] == nullptr) [[unlikely]] {
      FailNoId("agent", agent_id);
    }
    return *agent_by_id_[agent_id];
  }
  Agent* find_agent(const std::string& name) const;
  // nullptr when there is no agent of that id.
  Agent* find_agent(int agent_id) const {
    if (agent_id < 0 || static_cast<size_t>(agent_id) >= agent_by_id_.size()) {
      return nullptr;
    }
    return agent_by_id_[agent_id];
  }
  // The config group an agent was added with ("" for none).
  const std::string& agent_group(const Agent& agent) const;
  const std::string& market_group(const Market& market) const;
  const std::vector<Agent*>& normal_frequency_agents() const {
    return normal_agents_;
  }
  const std::vector<Agent*>& high_frequency_agents() const {
    return high_frequency_agents_;
  }

  const std::vector<Held<Session>>& sessions() const { return sessions_; }
  std::span<const Session* const> const_sessions() const {
    return const_sessions_;
  }
  Session* current_session() const { return current_session_; }
  void set_current_session(Session* session);
  // The current step: -1 before the run, then advanced by
  // update_times_on_markets().
  int64_t time() const { return time_; }

  const std::vector<Held<Event>>& events() const { return events_; }
  // Every hook added, in the order add_event_hook() got them.
  const std::vector<EventHook>& event_hooks() const { return all_hooks_; }

  // The steps of all sessions together: the run's times are 0 ..
  // total_steps(). Known before any session, market, agent or event is set
  // up (the runner reads every session's iterationSteps first), so setups
  // and hook registrations may rely on it.
  int64_t total_steps() const { return total_steps_; }
  void set_total_steps(int64_t steps) { total_steps_ = steps; }

  // --- Building (the runner). Each throws ConfigError for a duplicate name
  // and SimulationError for a duplicate id or an id outside [0, kMaxId).
  // group: the config group ("" for none).
  Market* add_market(std::unique_ptr<Market> market, const std::string& group);
  Agent* add_agent(std::unique_ptr<Agent> agent, const std::string& group);
  Session* add_session(std::unique_ptr<Session> session);
  Event* add_event(std::unique_ptr<Event> event);
  // The same for objects the caller keeps owning.
  // REQUIRES: they outlive this simulator.
  Market* add_market_borrowed(Market* market, const std::string& group);
  Agent* add_agent_borrowed(Agent* agent, const std::string& group);
  Session* add_session_borrowed(Session* session);
  Event* add_event_borrowed(Event* event);
  void add_event_hook(const EventHook& hook);

  // --- Driving (the runner). ---
  // Advances every market one step: normal markets first, then index
  // markets, whose fundamental index needs the components' new prices.
  void update_times_on_markets();
  // The same for some markets (PAMS's _update_times_on_markets(markets)):
  // those that are not index markets in the given order, then the index
  // markets. The simulator's time becomes the latest market time.
  void update_times_on_markets(std::span<Market* const> markets);
  // Advances one market (PAMS's _update_time_on_market): to its fundamental
  // price of the next step, or for an index market to its components'
  // fundamental index.
  void update_time_on_market(Market& market);
  // Moves cash and assets between the agents of each execution.
  void update_agents_for_execution(const std::vector<ExecutionLog>& logs);

  void trigger_before_order(Order& order);
  void trigger_after_order(const OrderLog& log);
  void trigger_before_cancel(Cancel& cancel);
  void trigger_after_cancel(const CancelLog& log);
  void trigger_after_execution(const ExecutionLog& log);
  void trigger_before_session(const Session& session);
  void trigger_after_session(const Session& session);
  void trigger_before_step_for_market(Market& market);
  void trigger_after_step_for_market(Market& market);

  // Prints "warning: <message>" to stderr the first time a message is seen
  // (as Python's warnings module does for PAMS's warnings), or hands it to
  // the warning handler. Cheap when the message was seen before (no
  // allocation), since some warnings come with every order. Agents warn
  // through Agent::warn.
  void warn(std::string_view message);
  // Where warnings go instead of stderr (an embedding program's own
  // channel, e.g. Python's warnings module); empty: stderr. Called on the
  // simulation thread, once per distinct message.
  void set_warning_handler(std::function<void(std::string_view)> handler) {
    warning_handler_ = std::move(handler);
  }

  // The directory of the config file, for classes that read files named
  // relative to it (e.g. a TensorFlow agent's modelPath); empty: the
  // working directory.
  const std::string& config_directory() const { return config_directory_; }
  void set_config_directory(std::string dir) { config_directory_ = std::move(dir); }

 private:
  friend class internal::SimulatorAccess;
  // The hooks of one (type, before/after) pair: those for every step, then
  // those for specific steps, each in registration order, as PAMS.
  struct HookTable {
    std::vector<EventHook> always;
    std::unordered_map<int64_t, std::vector<EventHook>> at_time;
    bool empty() const { return always.empty() && at_time.empty(); }
  };
  enum HookSlot {
    kOrderBefore, kOrderAfter, kCancelBefore, kCancelAfter, kExecutionAfter,
    kSessionBefore, kSessionAfter, kMarketBefore, kMarketAfter, kNumHookSlots
  };
  // Calls fn(hook) for each hook of the slot at `time`.
  template <typename Fn>
  void ForEachHook(HookSlot slot, int64_t time, Fn fn);

  [[noreturn]] static void FailNoId(const char* what, int id);
  Market* AddMarket(Held<Market> market, const std::string& group);
  Agent* AddAgent(Held<Agent> agent, const std::string& group);
  Session* AddSession(Held<Session> session);
  // The slot of `id` in a table by id, grown as needed. Throws
  // SimulationError for an id outside [0, kMaxId) or taken.
  template <typename T>
  static T*& IdSlot(std::vector<T*>* by_id, int id, const char* what);

  Random prng_;
  Logger* logger_;
  Fundamentals fundamentals_;
  SimulatorView view_{this};

  std::vector<Held<Market>> markets_;
  std::vector<Market*> market_by_id_;  // nullptr where no market has the id
  std::unordered_map<const Market*, std::string> market_group_of_;
  std::vector<const Market*> const_markets_;
  // Markets split by how they advance (see update_times_on_markets).
  std::vector<Market*> plain_markets_;
  std::vector<IndexMarket*> index_markets_;
  std::unordered_map<std::string, Market*> name_to_market_;
  std::unordered_map<std::string, std::vector<const Market*>> market_groups_;

  std::vector<Held<Agent>> agents_;
  std::vector<Agent*> agent_by_id_;  // nullptr where no agent has the id
  std::unordered_map<const Agent*, std::string> agent_group_of_;
  std::vector<Agent*> normal_agents_;
  std::vector<Agent*> high_frequency_agents_;
  std::unordered_map<std::string, Agent*> name_to_agent_;

  std::vector<Held<Session>> sessions_;
  std::vector<const Session*> const_sessions_;
  std::unordered_map<std::string, Session*> name_to_session_;
  Session* current_session_ = nullptr;
  int64_t time_ = -1;

  std::vector<Held<Event>> events_;
  HookTable hooks_[kNumHookSlots];
  std::vector<EventHook> all_hooks_;
  int64_t total_steps_ = 0;

  std::set<std::string, std::less<>> warned_;
  std::function<void(std::string_view)> warning_handler_;
  // Engine bookkeeping (internal::SimulatorAccess): a quiet simulator (a
  // worker's replica, whose warnings the main process prints) warns about
  // nothing; the journal records what replicas must repeat.
  bool quiet_ = false;
  SimulationJournal* journal_ = nullptr;
  std::string config_directory_;
};

}  // namespace pams

#endif  // PAMS_SIMULATOR_SIMULATOR_H_
