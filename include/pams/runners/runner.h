// Runner: builds a simulation from a config (PAMS's JSON, unchanged) and
// runs it step by step. SequentialRunner is PAMS's SequentialRunner; the
// parallel runners derive from it and replace only the collection of the
// normal agents' orders (collect_orders_from_normal_agents).
//
// Given the same config, seed (the runner's Random) and classes, a runner
// draws exactly the random numbers PAMS draws, in the same order, so the
// results are bit-identical to PAMS's.
//
// Usage:
//   SequentialRunner runner(settings, Random(seed), &logger, registry);
//   runner.main();               // setup() + run(), printing PAMS's timings
//
// A runner is used from one thread. setup() may be called once; run() once
// after it. Errors: ConfigError from setup() for bad configs,
// SimulationError from run(); the logger is flushed either way.

#ifndef PAMS_RUNNERS_RUNNER_H_
#define PAMS_RUNNERS_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/export.h"
#include "pams/market/order.h"
#include "pams/random/lazy_sample.h"
#include "pams/random/random.h"
#include "pams/runners/class_registry.h"
#include "pams/simulator/simulator.h"

namespace pams {

class KeyLog;
class Logger;
class ModelBatcher;
class Settings;

// The outcome of one agent's turn in a round (Runner::CollectInRounds).
struct AgentTaskResult {
  std::vector<Action> actions;
  std::string error;  // non-empty: the agent failed with this message
  // The host program's description of the error (see HostError), if any.
  std::string host_error;
  std::vector<std::string> warnings;  // what it warned, in order
  // The agent's method that failed (a phase of batched model calls, or
  // submit_orders): what the run's error names.
  const char* method = "submit_orders";

  // Empties it for another call, keeping its buffers.
  void Clear() {
    actions.clear();
    error.clear();
    host_error.clear();
    warnings.clear();
    method = "submit_orders";
  }
};

namespace internal {
class RunnerAccess;
}  // namespace internal

class PAMS_EXPORT Runner {
 public:
  // settings: the whole config. prng: the runner's generator (PAMS's
  // random.Random(seed)); the Simulator is seeded from its first draw here,
  // as in PAMS. logger may be null. registry must outlive the runner.
  Runner(Json settings, Random prng, Logger* logger,
         const ClassRegistry& registry);
  virtual ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Creates markets, agents, sessions and events from the settings, drawing
  // their seeds in PAMS's order, then sets them up. Throws ConfigError.
  void setup();

  // Replaces the settings given to the constructor: PAMS's runners read
  // their config when they set up, so a config changed after the runner
  // was made counts (the Python package gives it again at setup).
  // REQUIRES: neither setup() nor validate() was called (else
  // SimulationError).
  void set_settings(Json settings);
  // Checks the settings as setup() does, without stopping at the first
  // problem: each market, agent and event group, correlation, session and
  // entity is checked on its own, and past an entity's first bad key its
  // other keys are checked too (with a stand-in for the bad value); every
  // ConfigError found is returned, one per key path (empty: the config is
  // valid). A group that fails is left out, so what refers to it is not
  // checked further.
  // The runner cannot run afterwards (run() throws SimulationError).
  // REQUIRES: setup() was not called (else SimulationError).
  std::vector<ConfigError> validate();
  // Runs every session. REQUIRES (else SimulationError): setup() succeeded,
  // validate() was not called, and run() was not called before.
  void run();
  // setup() then run(), then prints "# INITIALIZATION TIME s" and
  // "# EXECUTION TIME s" to out as PAMS's Runner.main does.
  void main(std::FILE* out = stdout);

  // Makes run() stop at the next step (SimulationError "interrupted") once
  // *flag becomes true, e.g. from a SIGINT handler. flag may be null.
  void set_stop_flag(const std::atomic<bool>* flag) { stop_flag_ = flag; }
  const std::atomic<bool>* stop_flag() const { return stop_flag_; }
  // Called on the simulation thread while a parallel runner waits for its
  // workers (threads or processes, their start included), at least every
  // 50 ms, for programs that learn there that the run must stop (the Python
  // package runs Python's signal handlers, which only that thread may run)
  // and then set the stop flag. REQUIRES: before run().
  void set_wait_check(std::function<void()> check) { wait_check_ = std::move(check); }

  // Runs once in each worker of a parallel runner before its first task
  // (PAMS's _get_worker_initializer), e.g. to load a read-only model: in
  // each worker process of a multi-process runner, after the worker has
  // built its replica of the simulation; in each thread of the thread
  // runner (the simulation's thread included), concurrently, when the run
  // starts. Default: the function set_worker_initializer() gave, if any.
  virtual void worker_initializer() {
    if (worker_initializer_fn_) worker_initializer_fn_();
  }
  // What the default worker_initializer() runs (for programs that drive a
  // runner, such as the Python package). REQUIRES: before run().
  void set_worker_initializer(std::function<void()> fn) {
    worker_initializer_fn_ = std::move(fn);
  }
  bool has_worker_initializer_function() const {
    return static_cast<bool>(worker_initializer_fn_);
  }

  // The agents whose model calls are batched: engine agents whose
  // batches_model_calls() is true (pams/agents/model_call.h), and those
  // `batcher` says batch (see model_batcher.h). While simulation.batchModelCalls is true (the
  // default) and such an agent is among the normal agents, every runner
  // collects orders in rounds (as the agent-parallel runners do) and runs
  // each round's batching agents on the simulation thread: prepare phases,
  // one call per model, then their submit phases. null: none. REQUIRES:
  // before run(); batcher outlives the runner.
  void set_model_batcher(ModelBatcher* batcher) { model_batcher_ = batcher; }
  ModelBatcher* model_batcher() const { return model_batcher_; }
  // simulation.batchModelCalls (default true): false asks every agent with
  // its submit_orders, as PAMS does.
  bool batch_model_calls() const { return batch_model_calls_; }

  // --- The steps setup() and run() are made of, in PAMS's names
  // (_generate_markets, ..., _collect_orders_from_normal_agents,
  // _handle_orders). A program may call them itself to build or drive a
  // simulation step by step, as PAMS's tests and pamsenvs do: a run made of
  // the same calls in run()'s order gives run()'s results bit for bit, since
  // run() makes exactly these calls. They throw what setup() and run() do.

  // Creates the markets of these groups (and their fundamentals), drawing
  // their seeds; their setups are deferred (pending_setups()).
  void generate_markets(const std::vector<std::string>& groups);
  // Reads simulation.fundamentalCorrelations.
  void set_fundamental_correlation();
  void generate_agents(const std::vector<std::string>& groups);
  // Creates the sessions and their events (simulation.sessions).
  void generate_sessions();
  // A setup generate_* deferred until every object exists (PAMS's
  // _pending_setups), in the order they will run.
  struct PendingSetupView {
    enum class Kind { kMarket, kAgent, kSession, kEvent, kEventHooks, kTransactionFee };
    Kind kind;
    // The Market, Agent, Session or Event (kTransactionFee: the Market whose
    // fee is made and set up)
    void* object;
    const Json* settings = nullptr;  // null for kEventHooks
    std::vector<int> accessible_market_ids;  // kAgent only
  };
  std::vector<PendingSetupView> pending_setups() const;
  // Runs the pending setups (then reserves the markets' histories, reads
  // the runner's own keys and warns about unread keys, as setup() ends).
  void run_pending_setups();

  // One session's steps (PAMS's _iterate_market_updates).
  void iterate_market_updates(Session& session);
  // One step's orders: collect, then handle (PAMS's _update_markets).
  void update_markets(Session& session);
  // Asks the normal agents in PAMS's shuffled order for orders, as
  // update_markets() does, and keeps them as this step's batches (see
  // batches()), replacing the batches there were.
  void collect_orders(Session& session);
  // Whether collect_orders() asks the agents one after the other on the
  // calling thread even in a parallel runner (same batches, by the parallel
  // runners' contract): for steps a program drives, outside run(), where no
  // workers run.
  void set_collect_sequentially(bool on) { collect_sequentially_ = on; }
  // One batch of actions of one agent, as collected or as given back to
  // handle_orders().
  struct Batch {
    Agent* agent = nullptr;
    std::vector<Action> actions;
  };
  // The batches collect_orders() made, in collection order.
  std::span<Batch> batches() { return {batches_.data(), n_batches_}; }
  // Changes whenever the batches are replaced (collect_orders(),
  // reset_batches(), a step of run()): a program keeping what it read of
  // them knows whether that still holds.
  uint64_t batches_version() const { return batches_version_; }
  // Replaces the batches by `n` empty ones to fill (a program handing
  // orders back). REQUIRES: each is given its agent (for the checks and
  // callbacks of its orders: the agent of its first action).
  std::span<Batch> reset_batches(size_t n);
  // The order handle_orders() processed the batches in last (their
  // indices in batches()).
  const std::vector<uint32_t>& handled_batch_order() const {
    return shuffled_batch_order_;
  }
  // Processes the batches in shuffled order, each followed by the
  // high-frequency agents' turn when the session's rate draws it (PAMS's
  // _handle_orders). Checks every batch first (InvalidOrderError).
  void handle_orders(Session& session);
  // The high-frequency agents' turn (PAMS's _handle_high_frequency_orders).
  void handle_high_frequency_orders(Session& session);
  // Processes one order or cancel and the executions it causes (PAMS's
  // _process_order). Throws InvalidOrderError for an action the session or
  // the market refuses.
  void process_order(Session& session, Action& action);
  // Whether handle_orders() and handle_high_frequency_orders() keep the
  // high-frequency agents' batches (hf_batches()) for the caller, as
  // PAMS's _handle_orders returns them. Off in run().
  void set_keep_high_frequency_batches(bool keep) { keep_hf_batches_ = keep; }
  const std::vector<Batch>& hf_batches() const { return kept_hf_batches_; }
  // Asks `agent` for its orders, unless the program driving the runner
  // answers for it: dispatch(agent, actions) returns true when it filled
  // *actions itself (e.g. with what a Python method replaced at run time
  // returns). Empty: the engine asks every agent. REQUIRES: not during
  // run() of a parallel runner.
  void set_submit_orders_dispatch(
      std::function<bool(Agent*, std::vector<Action>*)> dispatch) {
    dispatch_ = std::move(dispatch);
  }

  Simulator& simulator() { return *simulator_; }
  const Simulator& simulator() const { return *simulator_; }
  const Json& settings() const { return settings_; }
  const ClassRegistry& registry() const { return registry_; }
  // The name this runner's class is registered under (worker processes
  // recreate the runner by it).
  const std::string& class_name() const { return class_name_; }
  // The state of the runner's generator now: for programs that also draw
  // from the generator they gave (Python's random.Random, which PAMS's
  // runner advances).
  Random::State prng_state() const { return prng_.getstate(); }
  // Makes the runner's generator continue from `state` (what such a
  // program drew from it in the meantime). REQUIRES: not while run() runs.
  void set_prng_state(const Random::State& state) { prng_.setstate(state); }
  // The runner's generator itself, for a program that draws from it
  // between steps (the Python package's random.Random over it).
  // REQUIRES: not used while run() runs on another thread.
  Random& generator() { return prng_; }
  double initialization_seconds() const { return initialization_seconds_; }
  double execution_seconds() const { return execution_seconds_; }

 protected:
  // Whether this runner is the replica inside a worker process: it is set
  // up like the main one but never runs, starts no workers and prints no
  // warnings.
  bool is_replica() const { return replica_; }
  // The runner's generator as it was given, before any draw (worker
  // processes rebuild the simulation from it).
  const Random::State& initial_prng_state() const { return initial_prng_state_; }
  // Subclasses' constructors name their class (ClassRegistry::create_runner
  // sets the registered name).
  void set_class_name(std::string name) { class_name_ = std::move(name); }

  // Asks normal agents, in shuffled order (agents->next()), for orders
  // until session.max_normal_orders() of them returned some, committing one
  // batch per agent with orders (next_batch(), commit_batch()). Parallel
  // runners override this; the batches must be exactly those this
  // sequential version makes, and agents->next() may be called only for
  // agents that it would ask (the caller finishes the sample).
  virtual void collect_orders_from_normal_agents(Session& session,
                                                 LazySample<Agent*>* agents);

  using TaskResult = AgentTaskResult;
  // Runs each agent's submit_orders, leaving agents[i]'s outcome in
  // (*results)[i] (results has agents.size() entries, cleared).
  using RoundFn =
      std::function<void(std::span<Agent* const> agents, std::vector<TaskResult>* results)>;
  // collect_orders_from_normal_agents in rounds: each round asks the next
  // (maxNormalOrders - orders so far) agents at once (exactly those
  // SequentialRunner asks, since each places at most one batch), then
  // commits their batches in shuffled order with their warnings, the
  // first error stopping the run (SimulationError or HostError naming the
  // agent). The round's agents that batch their model calls (batching())
  // run on this thread through the model batcher (model_batches.h); the
  // others through run_round.
  void CollectInRounds(Session& session, LazySample<Agent*>* agents, const RoundFn& run_round);
  // Whether rounds batch model calls: a batcher is set, batchModelCalls is
  // true, and some normal agent batches (decided when run() starts).
  bool batching() const { return batching_; }
  // Whether `agent`'s calls are batched this run (run on the calling
  // thread through its model batcher, never through RunRoundFn).
  bool batches_calls_of(const Agent& agent) const {
    return batching_ && BatcherOf(agent) != nullptr;
  }

  // Reads the runner's own keys of the "simulation" object at the end of
  // setup() (e.g. numParallel), after Runner's own (batchModelCalls).
  // Throws ConfigError. Default: nothing.
  virtual void configure(const Settings& simulation);

  // Called when run() starts and when it ends (also after an error), for
  // parallel runners to start and stop their workers. Default: nothing.
  virtual void on_run_start() {}
  virtual void on_run_end() {}
  // Called at the end of every step, after the markets moved on (the
  // multi-process runner keeps idle workers' replicas in step here).
  // Default: nothing.
  virtual void on_step_end() {}

  // A cleared batch to fill for `agent`; commit it with commit_batch() or
  // drop it by not committing (it is reused).
  Batch* next_batch(Agent* agent);
  // Validates the batch (spoofing, order fields) and keeps it. Throws
  // SimulationError naming the agent and step.
  void commit_batch(const Session& session);
  // Calls agent->submit_orders into batch->actions, turning an exception
  // into a SimulationError naming the agent and the step.
  void call_submit_orders(Agent* agent, std::vector<Action>* actions);

  Markets markets() const { return simulator_->markets(); }
  Random& prng() { return prng_; }

  // Whether the run must stop: runs the wait check (at most every 10 ms,
  // unless `now`) and reads the stop flag. For the parallel runners' waits,
  // which call it at least every 20 ms. Simulation thread only.
  bool StopRequested(bool now = false);

 private:
  friend class ClassRegistry;          // set_class_name of created runners
  friend class internal::RunnerAccess;  // set_replica in worker processes
  void GenerateMarkets();
  void GenerateMarketGroup(const std::string& name, int* market_id);
  // The checks and setup steps run for whichever group names.
  void GenerateMarketsOf(const std::vector<std::string>& names);
  void GenerateAgentsOf(const std::vector<std::string>& names);
  void SetFundamentalCorrelations();
  void SetFundamentalCorrelation(const Settings& triple);
  void GenerateAgents();
  void GenerateAgentGroup(const std::string& name, int* agent_id);
  void GenerateSessions();
  void GenerateSession(const Settings& session, int* session_id, int* event_id,
                       int64_t* start_time);
  void HandleOrders(Session& session);
  void HandleHighFrequencyOrders(Session& session);
  void ProcessOrder(Session& session, std::vector<Action>& batch, size_t i);
  void ValidateActions(const Session& session, const Batch& batch) const;
  // Runs fn. While validate() runs, a ConfigError from fn is recorded
  // instead of thrown, and the result is false.
  bool Attempt(const std::function<void()>& fn);
  // Whether `group` is a market group that validate() left out.
  bool IsFailedGroup(const std::string& group) const;
  // setup() recording ConfigErrors instead of throwing them (validate()
  // without looking past each entry's first problem).
  std::vector<ConfigError> CollectErrors();
  // Sets batching_ (see batching()).
  void UpdateBatching();
  // The batcher of agent's model calls (the engine's for engine agents that
  // batch, else the program's if it batches the agent), or null.
  ModelBatcher* BatcherOf(const Agent& agent) const;
  // CollectInRounds's round_ when batching: results_ filled.
  void RunRoundWithBatches(const RoundFn& run_round);
  // Warns about each config key that no class read (see KeyLog).
  void WarnUnreadKeys();
  // Stops workers and flushes the logger after an error; returns what
  // failed meanwhile ("; then ..."), to be added to the error's message.
  std::string Abort();

  Json settings_;
  std::string class_name_ = "SequentialRunner";
  Random::State initial_prng_state_;
  Random prng_;
  Logger* logger_;
  const ClassRegistry& registry_;
  // Which config keys the classes read while setting up.
  std::unique_ptr<KeyLog> key_log_;
  std::unique_ptr<Simulator> simulator_;
  bool set_up_ = false;
  bool validated_ = false;
  bool ran_ = false;
  // Set while validate() runs: the errors found and the groups left out.
  std::vector<ConfigError>* collected_errors_ = nullptr;
  std::vector<std::string> failed_groups_;
  // Groups of numMarkets or numAgents 0 (no agent may trade in such a
  // market group).
  std::vector<std::string> empty_groups_;

  // Setups deferred until every object exists, in PAMS's order, with the
  // config entry each belongs to (for error messages).
  struct PendingSetup {
    std::string path;
    std::function<void()> fn;
    PendingSetupView view;
  };
  std::vector<PendingSetup> pending_setups_;
  // Resolved settings of each group, kept alive for the setups.
  std::vector<std::unique_ptr<Json>> resolved_settings_;

  // Per-step scratch, reused so that steps allocate nothing.
  LazySample<Agent*> agent_sample_;
  LazySample<Agent*> hf_sample_;
  std::vector<Batch> batches_;
  size_t n_batches_ = 0;
  uint64_t batches_version_ = 0;
  std::vector<uint32_t> batch_order_;
  std::vector<uint32_t> shuffled_batch_order_;
  Batch hf_batch_;
  bool keep_hf_batches_ = false;
  bool collect_sequentially_ = false;
  std::vector<Batch> kept_hf_batches_;
  std::function<bool(Agent*, std::vector<Action>*)> dispatch_;
  // Model batching (set_model_batcher) and CollectInRounds's scratch.
  ModelBatcher* model_batcher_ = nullptr;
  // Engine agents' (Agent::batches_model_calls).
  std::unique_ptr<ModelBatcher> engine_batcher_;
  std::vector<ModelBatcher*> round_batcher_;
  bool batch_model_calls_ = true;
  bool batching_ = false;
  std::vector<Agent*> round_;
  std::vector<TaskResult> results_;
  std::vector<Agent*> round_part_;
  std::vector<size_t> round_part_index_;
  std::vector<TaskResult> part_results_;
  // Market ids and agent ids given out so far (generate_* may be called
  // group by group).
  int next_market_id_ = 0;
  int next_agent_id_ = 0;
  std::vector<ExecutionLog> execution_logs_;

  const std::atomic<bool>* stop_flag_ = nullptr;
  std::function<void()> wait_check_;
  double last_wait_check_ = 0;  // MonotonicSeconds() of its last call
  std::function<void()> worker_initializer_fn_;
  bool replica_ = false;

  double initialization_seconds_ = 0.0;
  double execution_seconds_ = 0.0;
};

// PAMS's SequentialRunner: every agent is called on the simulation thread.
class PAMS_EXPORT SequentialRunner : public Runner {
 public:
  using Runner::Runner;
};

}  // namespace pams

#endif  // PAMS_RUNNERS_RUNNER_H_
