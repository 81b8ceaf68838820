// The agent-parallel runners: SequentialRunner, except that the normal
// agents' submit_orders() calls of a step run in parallel, on threads or in
// worker processes. Everything else (order handling, executions,
// high-frequency agents, events, logging) stays on the simulation thread,
// and the results are identical to SequentialRunner's for the same config
// and seed.
//
// How: each step, agents are taken in SequentialRunner's shuffled order in
// rounds. A round asks the next (maxNormalOrders - orders so far) agents at
// once: exactly the agents SequentialRunner would ask, since each can place
// at most one batch. Their orders are then committed in shuffled order, with
// SequentialRunner's checks, and their warnings printed in that order. There
// is no speculative call and no rollback; parallelism is bounded by
// maxNormalOrders.
//
// Config keys (in "simulation"):
//   numParallel  workers (threads or processes); default: CPUs - 1, >= 1.
//                At most min(numParallel, largest maxNormalOrders) run; when
//                that is 1, one warning says that nothing runs in parallel.
//   startMethod  processes only: "spawn", "forkserver" or "fork"; default
//                the runner's default_start_method().
//   workerTimeout  processes only: seconds a task may take before the run
//                stops with an error; default 0 (no limit).
//   workerCpuAffinity  processes only: true pins worker k to its own share
//                of the CPUs the main process may run on, false does not pin,
//                an array gives each worker's CPUs ([0, 1]: worker 0 on CPU 0,
//                worker 1 on CPU 1; [[0, 1], [2, 3]]: two CPUs each; worker k
//                takes entry k mod size); default the runner's
//                default_worker_cpu_affinity(). Results do not depend on it.
//   workerStartTimeout  processes only: seconds a worker may take to build
//                its replica (a Python worker imports the main module and
//                the agents' modules then); default 120.
//   workerIdleTimeout  processes only: seconds the workers of a run are
//                kept after it for a later runner of the same worker set-up
//                (class, startMethod, concurrency, CPUs, program, plugins,
//                what the program adds: the Python package's environment,
//                initializer and runner state), which reuses them with
//                replicas rebuilt per run; 0: workers end with the run.
//                Default 300. ShutdownKeptWorkers() ends them at once.
//   workerNice   processes only: how much each worker lowers its priority
//                (nice increment, 0-19; default 4), so that the main
//                process, the run's critical path (it alone runs the
//                simulation between rounds, and rounds while workers start),
//                gets the CPU first when both want it. On 2 cores, two
//                spawned workers importing TensorFlow slowed the main
//                process's first rounds 2-3x at 0, not at 4.
//   runRoundsWhileWorkersStart  processes only. false (default): every
//                call of an agent that is not built in (a plugin's, a
//                Python agent's) runs in a worker, so that a call that
//                crashes (a segfault, exit()) or hangs takes only its worker
//                down and the run ends with an error naming the agent; the
//                main process runs only engine code (the built-in agents'
//                calls, batched model calls). true: the main process also
//                runs such calls, when it is prepared as the workers are
//                (prepare_main_process()) and no workerTimeout is set: a
//                round's calls until a worker is ready (it looks again
//                after each), rounds of one task, and a share of the others
//                beside at most CPUs - 1 workers (every ready worker where
//                its calls spent half their time or more off the CPUs).
//                Faster while workers start (seconds for TensorFlow's), but
//                a crash in such a call ends the program. Results do not
//                depend on it.
//
// The agent contract (simulator_view.h) is what makes this safe: during a
// round, agents only read what their view shows and change their own
// subclass fields and prng. An agent that changes its cash or asset volumes
// in submit_orders() stops the run with an error naming it (other agents
// of its round could not see the change as SequentialRunner shows it).
// Threads: nothing else runs meanwhile, so reads never race. Processes:
// each worker keeps a replica of the simulation, built from the same config
// and seed and kept in step by a journal of changes (only what changed
// since the worker was last brought up to date is sent), and receives the
// agent's whole state with each task and returns it
// (Agent::serialize_state), so agents with state beyond their prng stay
// identical too.

#ifndef PAMS_RUNNERS_PARALLEL_RUNNERS_H_
#define PAMS_RUNNERS_PARALLEL_RUNNERS_H_

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pams/export.h"
#include "pams/runners/runner.h"

namespace pams {

class Settings;
class SimulationJournal;

// The rounds; subclasses run a round's calls.
class PAMS_EXPORT AgentParallelRunner : public SequentialRunner {
 public:
  AgentParallelRunner(Json settings, Random prng, Logger* logger,
                      const ClassRegistry& registry);
  ~AgentParallelRunner() override;

  // The "simulation" keys this class reads beyond SequentialRunner's
  // (ClassRegistry::declare_simulation_keys).
  static std::vector<std::string> SimulationKeys();
  // How many calls run at once for the whole config `config`: min(
  // numParallel (default: the CPUs less one, at least 1), the largest
  // maxNormalOrders of its sessions (default 1)), at least 1. The rule
  // concurrency() follows, for callers without a runner (the Python
  // framework runners size each worker's threads by it). Throws ConfigError
  // naming simulation.numParallel when it is not an int in 1..4096.
  static int ConcurrencyFor(const Json& config);

  int num_parallel() const { return num_parallel_; }
  // The number of calls that run at once: min(numParallel, the largest
  // maxNormalOrders of the sessions), at least 1.
  int concurrency() const { return concurrency_; }

 protected:
  void configure(const Settings& simulation) override;
  void collect_orders_from_normal_agents(Session& session,
                                         LazySample<Agent*>* agents) override;

  // Calls submit_orders of every agent, in parallel, leaving agents[i]'s
  // outcome in (*results)[i] (results has agents.size() entries, cleared).
  // When it returns, each agent is in the state its call left it in.
  // (Agents that batch their model calls are not among them: see
  // Runner::CollectInRounds.)
  virtual void RunRound(std::span<Agent* const> agents,
                        std::vector<TaskResult>* results) = 0;

 private:
  int num_parallel_ = 1;
  int concurrency_ = 1;
};

// Threads. The thread that runs the simulation works as one of the
// numParallel workers. Signals reach that thread only; once the run is told
// to stop (the stop flag, the wait check) it waits for no other thread: one
// inside a call that does not return is left behind, with a warning.
class PAMS_EXPORT MultiThreadAgentParallelRunner : public AgentParallelRunner {
 public:
  MultiThreadAgentParallelRunner(Json settings, Random prng, Logger* logger,
                                 const ClassRegistry& registry);
  ~MultiThreadAgentParallelRunner() override;

  // Whether a stopped run left threads behind inside calls that did not
  // return (their objects stay in use until those calls return).
  bool left_threads_behind() const { return left_threads_behind_; }

 protected:
  void on_run_start() override;
  void on_run_end() override;
  void RunRound(std::span<Agent* const> agents,
                std::vector<TaskResult>* results) override;

 private:
  class Pool;
  // Warns that a thread running `what` is left behind.
  void WarnLeftBehind(const std::string& what);
  std::unique_ptr<Pool> pool_;
  bool left_threads_behind_ = false;
};

// Processes. Programs that use "spawn" or "forkserver" call
// pams::InitWorkerProcess at the top of main (see worker.h).
class PAMS_EXPORT MultiProcessAgentParallelRunner : public AgentParallelRunner {
 public:
  MultiProcessAgentParallelRunner(Json settings, Random prng, Logger* logger,
                                  const ClassRegistry& registry);
  ~MultiProcessAgentParallelRunner() override;

  // The "simulation" keys this class reads beyond SequentialRunner's.
  static std::vector<std::string> SimulationKeys();

  // Used when the config sets no startMethod.
  virtual std::string default_start_method() const { return "fork"; }
  // Replaces default_start_method()'s answer, for programs that drive a
  // runner (the Python package: a Python subclass's default_start_method).
  // REQUIRES: "spawn", "forkserver" or "fork", before setup().
  void set_default_start_method(std::string method) {
    default_start_method_set_ = std::move(method);
  }
  const std::string& start_method() const { return start_method_; }
  // Whether workers are pinned to CPUs when the config sets no
  // workerCpuAffinity: true pins worker k to its own share of the CPUs
  // this process may run on. Default: false, since two runs on one machine
  // would pin their workers to the same CPUs; runners whose workers size
  // their thread pools to such a share (TensorFlow's) say true.
  virtual bool default_worker_cpu_affinity() const { return false; }
  // Replaces default_worker_cpu_affinity()'s answer (the Python package: a
  // Python subclass's default_worker_cpu_affinity). REQUIRES: before setup().
  void set_default_worker_cpu_affinity(bool pin) { default_worker_cpu_affinity_set_ = pin; }
  double worker_timeout() const { return worker_timeout_; }

  // Runs first in each worker process, after its first replica is set up
  // and before worker_initializer() (both once per process; kept workers
  // serve later runs as they are): a hook for subclasses that prepare the
  // process (the TensorFlow runner configures TensorFlow here).
  virtual void prepare_worker_process() {}
  // Prepares the main process as prepare_worker_process() prepares a
  // worker, when it can, at the start of each run: true lets the main
  // process run tasks itself (see runRoundsWhileWorkersStart). Default:
  // true unless a worker initializer function is set (it prepares workers
  // in ways this process is not). The TensorFlow runner configures this
  // process's TensorFlow when it may.
  virtual bool prepare_main_process();
  // What makes this runner's worker processes differ from another
  // runner's of the same class beyond the config's run (the TensorFlow
  // runner: its options): part of the key of kept workers.
  virtual std::string worker_process_key() const { return {}; }
  // Ends the workers kept for this runner's set-up (see workerIdleTimeout).
  // REQUIRES: no run in progress.
  void close_workers();
  // For programs that drive the runner (the Python package): whether the
  // main process may run tasks (replaces prepare_main_process()'s answer
  // when false), bytes added to the key of kept workers, and the hint a
  // worker that did not start adds to its message (default: the
  // InitWorkerProcess reminder of C++ programs). REQUIRES: before run().
  void set_main_process_runs_tasks(bool may) { main_process_runs_tasks_ = may; }
  void set_worker_pool_key_extra(std::string extra) {
    worker_pool_key_extra_ = std::move(extra);
  }
  void set_worker_start_hint(std::string hint) { worker_start_hint_ = std::move(hint); }

  // The program that "spawn" and "forkserver" start as a worker, with its
  // arguments (argv[0] first): one that calls pams::InitWorkerProcess first
  // thing, as the pams command does. Default: this program again
  // (/proc/self/exe), which then must call InitWorkerProcess at the top of
  // main(). For programs whose executable is not theirs (the Python
  // package: python itself). REQUIRES: before setup().
  void set_worker_program(std::string path, std::vector<std::string> argv) {
    worker_program_ = std::move(path);
    worker_argv_ = std::move(argv);
  }
  // For "fork": starts a worker with start(fd) instead of fork(), for
  // programs that must fork their own way (Python's os.fork). start returns
  // the child's pid (or throws); the child serves the runner on fd, its end
  // of the channel, and never returns. REQUIRES: before run().
  void set_worker_starter(std::function<int(int fd)> start) {
    worker_starter_ = std::move(start);
  }
  // Bytes sent to every worker with its replica's config (what a program
  // driving the runner needs there: the Python package's classes).
  // REQUIRES: before run().
  void set_host_payload(std::string payload) { host_payload_ = std::move(payload); }

 protected:
  void configure(const Settings& simulation) override;
  void on_run_start() override;
  void on_run_end() override;
  void on_step_end() override;
  void RunRound(std::span<Agent* const> agents,
                std::vector<TaskResult>* results) override;

 private:
  friend class WorkerPool;
  class Workers;
  // Whether this run's workers are kept for later runs (workerIdleTimeout).
  bool KeepsWorkers() const;
  // The key of kept workers: runners of equal keys share them.
  std::string WorkerPoolKey() const;
  // Starts the workers not started yet, for calls found to wait off the
  // CPUs (on_run_start starts only those CPU-bound calls can use).
  void StartWorkersForWaitingCalls();
  // Whether some normal agent's calls can go to a worker: one that is not
  // built in and does not batch its model calls. REQUIRES: run() started.
  bool AgentsNeedWorkers();
  // Whether the journal may drop what every worker has applied (see
  // process_runner.cc). REQUIRES: workers_ and journal_ exist.
  bool JournalMayShrink() const;
  // RunRound's parts (process_runner.cc): running tasks here, and undoing
  // them; the round while no worker is ready (true: it is done); the round
  // with the workers.
  bool RunHere(std::span<Agent* const> agents, std::vector<size_t>& which,
               std::vector<TaskResult>* results);
  void UndoHere(std::span<Agent* const> agents);
  bool RunUntilAWorkerIsReady(std::span<Agent* const> agents,
                              std::vector<TaskResult>* results);
  void RunWithWorkers(std::span<Agent* const> agents, std::vector<TaskResult>* results);
  std::string start_method_;
  std::string default_start_method_set_;  // empty: default_start_method()
  std::optional<bool> default_worker_cpu_affinity_set_;
  // Worker k's CPUs (workerCpuAffinity); empty: no pinning.
  std::vector<std::vector<int>> worker_cpus_;
  std::string worker_program_;            // empty: /proc/self/exe
  std::vector<std::string> worker_argv_;
  std::function<int(int fd)> worker_starter_;  // empty: fork()
  std::string host_payload_;
  double worker_timeout_ = 0;
  // Bounded so that a program that forgot InitWorkerProcess is reported
  // instead of waited for (workerStartTimeout).
  double worker_start_timeout_ = 120;
  double worker_idle_timeout_ = 300;
  bool rounds_while_workers_start_ = false;
  // Whether a worker that ran an agent's last call runs its next without
  // its state when nothing but the engine changed it since
  // (workerKeepsAgentStates).
  bool keep_agent_states_ = true;
  int worker_nice_ = 4;
  // Whether this run's main process runs tasks (on_run_start).
  bool tasks_here_ = false;
  // The most workers that share a round with the main process: one CPU
  // each beside its own (on_run_start), unless the calls mostly wait.
  size_t max_helpers_ = 0;
  // The busy time (CPU time, and time waiting for a CPU: see BusySeconds
  // in process_runner.cc) and the wall time of the costly calls this
  // process ran this run: calls that spend most of their time off the
  // CPUs (a sleep, I/O, an accelerator) leave them free for every ready
  // worker.
  double here_busy_seconds_ = 0;
  double here_wall_seconds_ = 0;
  uint64_t unmeasured_calls_ = 0;  // costly calls run here past the first sample
  std::optional<bool> main_process_runs_tasks_;
  std::string worker_pool_key_extra_;
  std::string worker_start_hint_;
  std::unique_ptr<SimulationJournal> journal_;
  std::unique_ptr<Workers> workers_;
  // A round's tasks that run here and in workers (indices; kept to reuse
  // their memory).
  std::vector<size_t> local_;
  std::vector<size_t> remote_;
  // By index in the round: the states of agents before they ran here
  // (kept to reuse their memory), when this round saves them.
  std::vector<std::string> snapshots_;
  bool save_states_ = false;
  std::vector<size_t> ran_here_;  // the tasks this process ran, in order
  // How a round's tasks are handed out to the workers, and which worker's
  // replica has which agent as it is (process_runner.cc).
  struct Dispatch;
  std::unique_ptr<Dispatch> dispatch_;
  // Where this run's rounds spent their time, printed with
  // PAMS_WORKER_STATS (for tuning; counted in every run).
  struct RoundTimes {
    size_t rounds = 0;         // rounds with a task for a worker
    size_t local_tasks = 0;    // tasks run in this process
    size_t remote_tasks = 0;   // tasks run by workers
    double here_seconds = 0;   // running tasks here, in rounds with workers' tasks
    double wait_seconds = 0;   // waiting for workers' results after that
    double send_seconds = 0;   // packing and sending workers' tasks
    double read_seconds = 0;   // reading their results
    double round_seconds = 0;  // the rounds with workers' tasks, whole
  };
  RoundTimes round_times_;
};

// Ends every worker process kept for later runs (workerIdleTimeout) now,
// instead of at their idle timeout or at exit. Thread-safe.
PAMS_EXPORT void ShutdownKeptWorkers();
// How many sets of workers are kept now (for tests and tools).
PAMS_EXPORT size_t KeptWorkerSets();

}  // namespace pams

#endif  // PAMS_RUNNERS_PARALLEL_RUNNERS_H_
