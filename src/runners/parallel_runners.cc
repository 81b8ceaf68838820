// AgentParallelRunner's rounds and MultiThreadAgentParallelRunner.
// (MultiProcessAgentParallelRunner is in process_runner.cc.)

#include "pams/runners/parallel_runners.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>
#include <signal.h>

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "runners/agent_task.h"
#include "runners/host_error.h"

namespace pams {

// --- AgentParallelRunner ---

AgentParallelRunner::AgentParallelRunner(Json settings, Random prng,
                                         Logger* logger,
                                         const ClassRegistry& registry)
    : SequentialRunner(std::move(settings), std::move(prng), logger, registry) {
  const unsigned cpus = std::thread::hardware_concurrency();
  num_parallel_ = cpus > 1 ? static_cast<int>(cpus) - 1 : 1;
}

AgentParallelRunner::~AgentParallelRunner() = default;

std::vector<std::string> AgentParallelRunner::SimulationKeys() { return {"numParallel"}; }

int AgentParallelRunner::ConcurrencyFor(const Json& config) {
  const unsigned cpus = std::thread::hardware_concurrency();
  int64_t num_parallel = cpus > 1 ? static_cast<int64_t>(cpus) - 1 : 1;
  int64_t max_normal_orders = 1;
  if (config.is_object() && config.contains("simulation") && config["simulation"].is_object()) {
    const Json& simulation = config["simulation"];
    if (simulation.contains("numParallel")) {
      const Settings n(simulation["numParallel"], "simulation.numParallel");
      num_parallel = n.as_int();
      if (num_parallel < 1 || num_parallel > 4096) {
        n.fail("must be an integer between 1 and 4096, got " + n.json().dump());
      }
    }
    if (simulation.contains("sessions") && simulation["sessions"].is_array()) {
      max_normal_orders = 0;
      for (const Json& session : simulation["sessions"]) {
        int64_t orders = 1;  // Session's default
        if (session.is_object() && session.contains("maxNormalOrders") &&
            session["maxNormalOrders"].is_number_integer()) {
          orders = session["maxNormalOrders"].get<int64_t>();
        }
        max_normal_orders = std::max(max_normal_orders, orders);
      }
    }
  }
  return static_cast<int>(std::max<int64_t>(1, std::min(num_parallel, max_normal_orders)));
}

void AgentParallelRunner::configure(const Settings& simulation) {
  SequentialRunner::configure(simulation);
  if (auto n = simulation.find("numParallel")) {
    const int64_t v = n->as_int();
    if (v < 1 || v > 4096) {
      n->fail("must be an integer between 1 and 4096, got " + n->json().dump());
    }
    num_parallel_ = static_cast<int>(v);
  }
  // One rule for every caller (the sessions were read and checked before).
  concurrency_ = ConcurrencyFor(settings());
  int64_t max_normal_orders = 0;
  for (const auto& session : this->simulator().sessions()) {
    max_normal_orders = std::max(max_normal_orders, session->max_normal_orders());
  }
  if (concurrency_ == 1) {
    this->simulator().warn(
        class_name() + " runs nothing in parallel here: at most min(numParallel, "
        "the largest maxNormalOrders of the sessions) agents are asked at once, "
        "and numParallel is " + std::to_string(num_parallel_) +
        " and the largest maxNormalOrders " + std::to_string(max_normal_orders) +
        "; it runs as SequentialRunner would");
  } else if (num_parallel_ > max_normal_orders) {
    // PAMS's words (programs match them).
    this->simulator().warn(
        "When " + class_name() +
        " is used, the maximum number of parallel agents is limited by "
        "max_normal_orders (" + std::to_string(max_normal_orders) +
        ") even if numParallel (" + std::to_string(num_parallel_) +
        ") is set to a larger value.");
  }
}

void AgentParallelRunner::collect_orders_from_normal_agents(
    Session& session, LazySample<Agent*>* agents) {
  CollectInRounds(session, agents,
                  [this](std::span<Agent* const> round, std::vector<TaskResult>* results) {
                    RunRound(round, results);
                  });
}

// --- MultiThreadAgentParallelRunner ---

// Helper threads that run fn(0..n-1) together with the calling thread.
//
// The calling thread waits for the helpers in timed waits, asking `stop`
// at least every 20 ms: a run told to stop (Ctrl-C) ends at once even when
// a helper is inside a call that does not return. Such a helper cannot be
// stopped; it is abandoned: left running, detached, with the pool's state
// (shared with it) kept alive, and once its call returns it touches nothing
// of the run (see TaskAbandoned()) and ends. The helpers
// block the asynchronous signals (SIGINT, SIGTERM, ...), which so reach the
// calling thread, the one that handles them (Python's handlers run only
// there, and a call of it that waits, such as time.sleep, returns early).
class MultiThreadAgentParallelRunner::Pool {
 public:
  explicit Pool(int helpers) : state_(std::make_shared<State>(helpers)) {
    sigset_t block, old;
    sigfillset(&block);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT}) sigdelset(&block, sig);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (int i = 0; i < helpers; ++i) {
      threads_.emplace_back([state = state_, i] { Loop(*state, i); });
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }

  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->stop = true;
    }
    state_->work.notify_all();
    for (std::thread& t : threads_) {
      if (state_->abandoned.load()) {
        t.detach();
      } else {
        t.join();
      }
    }
  }

  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  bool abandoned() const { return state_->abandoned.load(); }

  // Runs fn(i) for every i < n on the helpers and this thread. Returns true
  // once every call returned; false once stop() said so (asked between this
  // thread's own calls and at least every 20 ms while it waits), the calls
  // then running on helpers being abandoned, their i in *running.
  bool Run(size_t n, const std::function<void(size_t)>& fn,
           const std::function<bool()>& stop, std::vector<size_t>* running) {
    State& s = *state_;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.fn = &fn;
      s.each = nullptr;
      s.n = n;
      s.next.store(0);
      s.busy = static_cast<int>(threads_.size());
      ++s.generation;
    }
    s.work.notify_all();
    bool stopped = false;
    for (size_t i = s.next.fetch_add(1); i < n; i = s.next.fetch_add(1)) {
      fn(i);
      if (stop()) {
        s.next.store(n);  // no call starts after this one
        stopped = true;
        break;
      }
    }
    // Calls were left out: the round is not whole, whatever the helpers do.
    return Wait(stop, running) && !stopped;
  }

  // Runs fn once on every thread of the pool and on the calling thread,
  // concurrently; then rethrows the first exception any of them threw.
  // Returns false (abandoning the helpers still in fn) once stop() said so.
  bool RunOnEach(const std::function<void()>& fn, const std::function<bool()>& stop) {
    State& s = *state_;
    // Shared with the helpers, which may outlive this call if abandoned.
    struct Guarded {
      std::mutex mutex;
      std::exception_ptr error;
      std::function<void()> fn;
      void operator()() {
        try {
          fn();
        } catch (...) {
          std::lock_guard<std::mutex> lock(mutex);
          if (!error) error = std::current_exception();
        }
      }
    };
    auto guarded = std::make_shared<Guarded>();
    guarded->fn = fn;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.each = [guarded] { (*guarded)(); };
      s.fn = nullptr;
      s.busy = static_cast<int>(threads_.size());
      ++s.generation;
    }
    s.work.notify_all();
    (*guarded)();
    std::vector<size_t> running;
    if (!Wait(stop, &running)) return false;
    std::lock_guard<std::mutex> lock(guarded->mutex);
    if (guarded->error) std::rethrow_exception(guarded->error);
    return true;
  }

 private:
  struct State {
    explicit State(int helpers) : current(static_cast<size_t>(helpers)) {}
    std::mutex mutex;
    std::condition_variable work;
    std::condition_variable done;
    uint64_t generation = 0;  // guarded by mutex, as the fields below
    bool stop = false;
    int busy = 0;
    const std::function<void(size_t)>* fn = nullptr;
    // RunOnEach's function, which helpers copy: it outlives an abandoned
    // RunOnEach.
    std::function<void()> each;
    size_t n = 0;
    std::atomic<size_t> next{0};
    // Set (for good) when the calling thread stopped waiting for helpers.
    std::atomic<bool> abandoned{false};
    // Per helper: 1 + the index of the call it runs, 0 when none.
    std::vector<std::atomic<size_t>> current;
  };

  static void Loop(State& s, int k) {
    internal::SetTaskAbandonedFlag(&s.abandoned);
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(size_t)>* fn;
      std::function<void()> each;
      size_t n;
      {
        std::unique_lock<std::mutex> lock(s.mutex);
        s.work.wait(lock, [&] { return s.stop || s.generation != seen; });
        if (s.stop) return;
        seen = s.generation;
        fn = s.fn;
        each = s.each;
        n = s.n;
      }
      if (each) {
        s.current[k].store(1);
        each();
      } else {
        for (size_t i = s.next.fetch_add(1); i < n; i = s.next.fetch_add(1)) {
          s.current[k].store(i + 1);
          (*fn)(i);
          if (s.abandoned.load()) break;
        }
      }
      s.current[k].store(0);
      std::lock_guard<std::mutex> lock(s.mutex);
      if (--s.busy == 0) s.done.notify_one();
    }
  }

  // How long helpers get to return once the run must stop.
  static constexpr int kGraceMilliseconds = 30;

  // Waits for the helpers (see Run): true once all returned, false once
  // stop() said so (abandoning those still running, listed in *running).
  bool Wait(const std::function<bool()>& stop, std::vector<size_t>* running) {
    State& s = *state_;
    std::unique_lock<std::mutex> lock(s.mutex);
    for (;;) {
      if (s.done.wait_for(lock, std::chrono::milliseconds(20),
                          [&] { return s.busy == 0; })) {
        s.fn = nullptr;
        return true;
      }
      lock.unlock();
      const bool stopping = stop();
      lock.lock();
      if (stopping) break;
    }
    // Calls that are about to return (an engine agent's take microseconds)
    // get a moment, so that only those that do not are left behind.
    s.next.store(s.n);
    if (s.done.wait_for(lock, std::chrono::milliseconds(kGraceMilliseconds),
                        [&] { return s.busy == 0; })) {
      s.fn = nullptr;
      return false;
    }
    s.abandoned.store(true);
    for (const std::atomic<size_t>& c : s.current) {
      const size_t i = c.load();
      if (i > 0) running->push_back(i - 1);
    }
    return false;
  }

  std::shared_ptr<State> state_;
  std::vector<std::thread> threads_;
};

MultiThreadAgentParallelRunner::MultiThreadAgentParallelRunner(
    Json settings, Random prng, Logger* logger, const ClassRegistry& registry)
    : AgentParallelRunner(std::move(settings), std::move(prng), logger,
                          registry) {
  set_class_name("MultiThreadAgentParallelRunner");
}

MultiThreadAgentParallelRunner::~MultiThreadAgentParallelRunner() = default;

void MultiThreadAgentParallelRunner::on_run_start() {
  if (concurrency() > 1) pool_ = std::make_unique<Pool>(concurrency() - 1);
  if (pool_ != nullptr) {
    if (!pool_->RunOnEach([this] { worker_initializer(); }, [this] { return StopRequested(); })) {
      if (pool_->abandoned()) WarnLeftBehind("the worker initializer");
      throw SimulationError("interrupted while the worker initializers ran");
    }
  } else {
    worker_initializer();
  }
}

void MultiThreadAgentParallelRunner::WarnLeftBehind(const std::string& what) {
  left_threads_behind_ = true;
  // A thread cannot be stopped from outside; what it runs may return
  // later, and then ends the thread without touching the run.
  simulator().warn(class_name() + ": a thread running " + what +
                   " did not return and is left behind (a thread cannot be stopped); it "
                   "ends when that call returns");
}

void MultiThreadAgentParallelRunner::on_run_end() { pool_.reset(); }

void MultiThreadAgentParallelRunner::RunRound(std::span<Agent* const> agents,
                                              std::vector<TaskResult>* results) {
  const Markets view = markets();
  auto task = [&](size_t i) {
    TaskResult& r = (*results)[i];
    RunAgentTask(agents[i], view, &r.actions, &r.error, &r.warnings, &r.host_error);
  };
  if (pool_ == nullptr || agents.size() == 1) {
    for (size_t i = 0; i < agents.size(); ++i) task(i);
    return;
  }
  std::vector<size_t> running;
  if (!pool_->Run(agents.size(), task, [this] { return StopRequested(); }, &running)) {
    for (size_t i : running) {
      WarnLeftBehind("submit_orders of agent " + agents[i]->name() + " (" +
                     agents[i]->class_name() + ")");
    }
    throw SimulationError("interrupted at step " + std::to_string(simulator().time()));
  }
}

}  // namespace pams
