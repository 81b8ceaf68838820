// WorkerProgress: which agent a worker process is calling now, in a page of
// shared memory that the worker writes and the main process reads. A worker
// gets a round's tasks in chunks and answers once per chunk, so when it dies
// in the middle of one (a crashing agent, a timeout) this is how the main
// process names the agent it was running. Private to the library.
//
// The worker creates the page (Create) and sends its name; the main process
// maps it (Open), which also removes the name, and the worker removes it
// too once it gets work (Unlink), so the page goes with the processes. Each side uses it from one thread.

#ifndef PAMS_SRC_RUNNERS_WORKER_PROGRESS_H_
#define PAMS_SRC_RUNNERS_WORKER_PROGRESS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace pams {

class WorkerProgress {
 public:
  // Worker side: a new page, or null where shared memory is not available
  // (the main process then names the first agent of the chunk).
  static std::unique_ptr<WorkerProgress> Create();
  // Main side: the page a worker created and named, or null if it cannot
  // be opened.
  static std::unique_ptr<WorkerProgress> Open(const std::string& name);

  ~WorkerProgress();
  WorkerProgress(const WorkerProgress&) = delete;
  WorkerProgress& operator=(const WorkerProgress&) = delete;

  // The name to send to the main process (empty once opened or unlinked).
  const std::string& name() const { return name_; }
  // Worker: removes the name (once the main process has opened the page, or
  // will not), so that no name outlives the processes.
  void Unlink();

  // Worker: the agent called from now on (-1: none).
  void set(int agent_id) { slot_->store(agent_id, std::memory_order_relaxed); }
  // Main: the agent last set, if any.
  std::optional<int> get() const {
    const int id = slot_->load(std::memory_order_relaxed);
    if (id < 0) return std::nullopt;
    return id;
  }

 private:
  WorkerProgress(std::string name, void* page);

  std::string name_;
  void* page_;
  std::atomic<int32_t>* slot_;
};

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_WORKER_PROGRESS_H_
