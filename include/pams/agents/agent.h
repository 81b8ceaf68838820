// Agent: a trader. The runner asks it for orders with submit_orders() and
// tells it what happened to them (submitted_order, executed_order,
// canceled_order). Subclass it (or a built-in agent) and register the class
// to use it from a config; see docs/plugins.md.
//
// What an agent may read and change in submit_orders() is the agent
// contract of simulator_view.h; in short: read the markets, its own fields,
// the sessions and time, and other agents' public state (simulator()); draw
// randomness from prng() only; change nothing but its own subclass fields
// and prng. Everything the agent is lives in its fields: the base fields
// (cash, asset volumes, prng) are saved and restored by the engine; a
// subclass with state of its own that changes in submit_orders() overrides
// save_state()/load_state(), so that the parallel runners can carry it
// between processes.
//
// setup() and the callbacks (submitted_order, executed_order,
// canceled_order) always run on the thread that runs the simulation;
// submit_orders() of normal agents may run on another thread or in a worker
// process under the parallel runners.

#ifndef PAMS_AGENTS_AGENT_H_
#define PAMS_AGENTS_AGENT_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pams/agents/model_call.h"
#include "pams/export.h"
#include "pams/logs/logs.h"
#include "pams/market/order.h"
#include "pams/random/random.h"

namespace pams {

class Logger;
class Market;
class Settings;
class SimulationJournal;
class SimulatorView;
class StateReader;
class StateWriter;

namespace internal {
class AgentAccess;
}  // namespace internal

// What the runner gives every agent it creates.
struct PAMS_EXPORT AgentInit {
  int agent_id = 0;
  Random prng;
  // The simulation as the agent may see it (Simulator::view()).
  const SimulatorView* simulator = nullptr;
  std::string name{};
  Logger* logger = nullptr;
  // The config class name it was created as ("FCNAgent", ...).
  std::string class_name{};
};

// The markets of the simulation, in market-id order, as agents see them.
using Markets = std::span<const Market* const>;

class PAMS_EXPORT Agent {
 public:
  explicit Agent(AgentInit init);
  virtual ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Reads cashAmount and assetVolume (JsonRandom specs, drawn from prng) and
  // makes the given markets accessible with that volume each.
  virtual void setup(const Settings& settings,
                     std::span<const int> accessible_market_ids);

  // Appends this step's orders and cancels to *orders (which is empty on
  // entry). See the agent contract (simulator_view.h).
  virtual void submit_orders(Markets markets, std::vector<Action>* orders) = 0;

  // Callbacks (default: nothing).
  virtual void submitted_order(const OrderLog& log);
  virtual void executed_order(const ExecutionLog& log);
  virtual void canceled_order(const CancelLog& log);

  // High-frequency agents (HighFrequencyAgent) are asked after each batch of
  // normal orders instead of with the normal agents.
  virtual bool is_high_frequency() const { return false; }

  // Whether submit_orders() takes about as long as handing the call to a
  // worker process or less (microseconds): the process runner runs such
  // calls in the main process when it may (results do not depend on where
  // a call runs). Default false; PAMS's built-in agents say true.
  virtual bool has_cheap_submit_orders() const { return false; }

  // Whether a worker process's replica of this agent that ran its last
  // call may run the next as it is (its cash and volumes kept up to date
  // by the runner) instead of loading the agent's whole state, and may
  // send back save_state()'s bytes only when they changed. True when
  // save_state() covers all that a call changes beyond the prng, as the
  // contract below asks. The Python package's agents say false: PAMS
  // resets their unlisted attributes at each call.
  virtual bool replicas_may_keep_state() const { return true; }

  // Batched model calls (model_call.h). An agent that says true here has
  // its orders made by the two phases below under every runner while
  // simulation.batchModelCalls is true (its submit_orders otherwise):
  // prepare_model_calls appends this step's model calls (one input row
  // each), the runner fills their outputs with one call per model for the
  // whole round, then submit_orders_with_model_outputs appends the orders,
  // given the calls in the order prepare_model_calls made them. Both
  // follow submit_orders's contract (simulator_view.h) and may change
  // the agent's own fields and prng only. Defaults: false, nothing.
  virtual bool batches_model_calls() const { return false; }
  virtual void prepare_model_calls(Markets markets, std::vector<ModelCall>* calls);
  virtual void submit_orders_with_model_outputs(Markets markets,
                                                std::span<const ModelCall> calls,
                                                std::vector<Action>* orders);

  // Subclass state beyond the base fields, for the parallel runners. The
  // default saves nothing (right for agents whose submit_orders() changes
  // only the prng, like every built-in agent). A subclass whose fields change
  // after setup() writes them here and reads them back in the same order.
  virtual void save_state(StateWriter& out) const;
  virtual void load_state(StateReader& in);

  // The agent's whole state: cash, accessible markets and their volumes,
  // the prng, then what save_state() adds. An agent of the same class and
  // setup (e.g. in a worker process's replica) that loads it behaves
  // identically afterwards. Throws SimulationError on malformed input.
  void serialize_state(std::string* out) const;
  void deserialize_state(std::string_view in);

  int agent_id() const { return agent_id_; }
  const std::string& name() const { return name_; }
  const std::string& class_name() const { return class_name_; }
  // The simulation, read-only (see simulator_view.h).
  const SimulatorView& simulator() const { return *simulator_; }
  Random& prng() { return prng_; }
  const Random& prng() const { return prng_; }

  double cash_amount() const { return cash_amount_; }
  double get_cash_amount() const { return cash_amount_; }
  // Cash and asset volumes change with executions (the engine) and may be
  // set in setup() and the callbacks; not in submit_orders() (see the
  // contract).
  void set_cash_amount(double cash);
  void update_cash_amount(double delta);

  bool is_market_accessible(int market_id) const {
    return market_id >= 0 &&
           static_cast<size_t>(market_id) < accessible_.size() &&
           accessible_[market_id];
  }
  // REQUIRES (else SimulationError): the market is accessible.
  int64_t get_asset_volume(int market_id) const;
  void set_asset_volume(int market_id, int64_t volume);
  void update_asset_volume(int market_id, int64_t delta);
  // Makes a market accessible with volume 0. REQUIRES: not accessible yet.
  void set_market_accessible(int market_id);
  // Makes an accessible market inaccessible again, forgetting its volume
  // (PAMS's `del agent.asset_volumes[market_id]`). REQUIRES (else
  // SimulationError): the market is accessible.
  void set_market_inaccessible(int market_id);
  // The accessible markets, in the order they were made accessible.
  const std::vector<int>& accessible_market_ids() const {
    return accessible_order_;
  }

 protected:
  // Prints "warning: <message>" to stderr the first time the simulation
  // sees that message (as Python's warnings module does). Callable from
  // any method; a warning from submit_orders() under a parallel runner is
  // printed when its round ends, in the order SequentialRunner prints it.
  void warn(std::string_view message);
  Logger* logger() const { return logger_; }

 private:
  friend class internal::AgentAccess;
  // Records a change of cash or asset volumes: into the journal that keeps
  // worker replicas in step, and as a change of public state (the parallel
  // runners check that submit_orders() made none).
  void PublicStateChanged();
  void RecordCash();
  void RecordVolume(int market_id);

  int agent_id_;
  std::string name_;
  std::string class_name_;
  Random prng_;
  const SimulatorView* simulator_;
  Logger* logger_;
  double cash_amount_ = 0.0;
  std::vector<int64_t> asset_volumes_;  // indexed by market id
  std::vector<uint8_t> accessible_;     // indexed by market id
  std::vector<int> accessible_order_;

  // Engine bookkeeping (internal::AgentAccess).
  SimulationJournal* journal_ = nullptr;
  uint64_t public_state_version_ = 0;
  bool defer_warnings_ = false;
  std::vector<std::string> deferred_warnings_;
};

// HighFrequencyAgent: the base of agents that act after every batch of normal
// orders (PAMS's HighFrequencyAgent; abstract).
class PAMS_EXPORT HighFrequencyAgent : public Agent {
 public:
  using Agent::Agent;
  bool is_high_frequency() const final { return true; }
};

}  // namespace pams

#endif  // PAMS_AGENTS_AGENT_H_
