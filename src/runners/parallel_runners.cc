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

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "runners/agent_task.h"

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

void AgentParallelRunner::configure(const Settings& simulation) {
  SequentialRunner::configure(simulation);
  if (auto n = simulation.find("numParallel")) {
    const int64_t v = n->as_int();
    if (v < 1 || v > 4096) {
      n->fail("must be an integer between 1 and 4096, got " + n->json().dump());
    }
    num_parallel_ = static_cast<int>(v);
  }
  int64_t max_normal_orders = 0;
  for (const auto& session : this->simulator().sessions()) {
    max_normal_orders = std::max(max_normal_orders, session->max_normal_orders());
  }
  concurrency_ = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(num_parallel_, max_normal_orders)));
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
  int64_t n_orders = 0;
  while (n_orders < session.max_normal_orders() && agents->has_next()) {
    // Each agent asked places at most one batch, so the next
    // (maxNormalOrders - n_orders) agents are exactly those that
    // SequentialRunner would ask next.
    const int64_t remaining = session.max_normal_orders() - n_orders;
    round_.clear();
    while (static_cast<int64_t>(round_.size()) < remaining && agents->has_next()) {
      round_.push_back(agents->next());
    }
    results_.resize(round_.size());
    for (TaskResult& r : results_) {
      r.actions.clear();
      r.error.clear();
      r.warnings.clear();
    }
    RunRound(round_, &results_);
    // In SequentialRunner's order: each agent's warnings, then its error or
    // its batch.
    for (size_t i = 0; i < round_.size(); ++i) {
      Agent* agent = round_[i];
      for (const std::string& w : results_[i].warnings) this->simulator().warn(w);
      if (!results_[i].error.empty()) {
        throw SimulationError("agent " + agent->name() + " (" +
                              agent->class_name() +
                              ") failed in submit_orders at step " +
                              std::to_string(this->simulator().time()) + ": " +
                              results_[i].error);
      }
      if (results_[i].actions.empty()) continue;
      Batch* batch = next_batch(agent);
      batch->actions.swap(results_[i].actions);
      commit_batch(session);
      ++n_orders;
    }
  }
}

// --- MultiThreadAgentParallelRunner ---

// Helper threads that run fn(0..n-1) together with the calling thread.
class MultiThreadAgentParallelRunner::Pool {
 public:
  explicit Pool(int helpers) {
    for (int i = 0; i < helpers; ++i) threads_.emplace_back([this] { Loop(); });
  }

  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    work_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  void Run(size_t n, const std::function<void(size_t)>& fn) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = &fn;
      n_ = n;
      next_.store(0);
      busy_ = static_cast<int>(threads_.size());
      ++generation_;
    }
    work_.notify_all();
    Work();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    fn_ = nullptr;
  }

  // Runs fn once on every thread of the pool and on the calling thread,
  // concurrently; then rethrows the first exception any of them threw.
  void RunOnEach(const std::function<void()>& fn) {
    std::exception_ptr error;
    std::mutex error_mutex;
    const std::function<void()> guarded = [&] {
      try {
        fn();
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    };
    {
      std::lock_guard<std::mutex> lock(mutex_);
      each_ = &guarded;
      busy_ = static_cast<int>(threads_.size());
      ++generation_;
    }
    work_.notify_all();
    guarded();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [this] { return busy_ == 0; });
      each_ = nullptr;
    }
    if (error) std::rethrow_exception(error);
  }

 private:
  void Work() {
    for (size_t i = next_.fetch_add(1); i < n_; i = next_.fetch_add(1)) (*fn_)(i);
  }

  void Loop() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      if (each_ != nullptr) {
        (*each_)();
      } else {
        Work();
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable work_;
  std::condition_variable done_;
  uint64_t generation_ = 0;
  bool stop_ = false;
  int busy_ = 0;
  const std::function<void(size_t)>* fn_ = nullptr;
  const std::function<void()>* each_ = nullptr;  // RunOnEach's function
  size_t n_ = 0;
  std::atomic<size_t> next_{0};
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
    pool_->RunOnEach([this] { worker_initializer(); });
  } else {
    worker_initializer();
  }
}

void MultiThreadAgentParallelRunner::on_run_end() { pool_.reset(); }

void MultiThreadAgentParallelRunner::RunRound(std::span<Agent* const> agents,
                                              std::vector<TaskResult>* results) {
  const Markets view = markets();
  auto task = [&](size_t i) {
    TaskResult& r = (*results)[i];
    RunAgentTask(agents[i], view, &r.actions, &r.error, &r.warnings);
  };
  if (pool_ == nullptr || agents.size() == 1) {
    for (size_t i = 0; i < agents.size(); ++i) task(i);
    return;
  }
  pool_->Run(agents.size(), task);
}

}  // namespace pams
