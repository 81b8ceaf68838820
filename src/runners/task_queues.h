// TaskQueues: the tasks of a round of the multi-process runner that no one
// has taken yet, and how many to hand out at once. Private to the library;
// one thread (the main process's).
//
// A task goes in the queue of the worker that holds a copy of its agent's
// state (that worker then gets only the state's change: see
// agent_state_delta.h), or in the queue of tasks nobody holds. A worker
// takes from its own queue, then from nobody's, then from the back of the
// longest queue: no worker waits while another has tasks queued. Tasks go
// out in chunks (one message each way) of about kChunkSeconds of measured
// work, so that a round of thousands of short calls costs a few messages,
// while calls of a second go one at a time.

#ifndef PAMS_SRC_RUNNERS_TASK_QUEUES_H_
#define PAMS_SRC_RUNNERS_TASK_QUEUES_H_

#include <cstddef>
#include <deque>
#include <span>
#include <vector>

namespace pams {

class TaskQueues {
 public:
  // The work a chunk aims at: long enough that a message each way (tens of
  // microseconds) is a small part of it, short enough that the last chunks
  // of a round end close together.
  static constexpr double kChunkSeconds = 0.002;

  TaskQueues() = default;
  TaskQueues(const TaskQueues&) = delete;
  TaskQueues& operator=(const TaskQueues&) = delete;

  // Starts a round of `tasks` (round indices, ascending), where holders[k]
  // is the worker holding tasks[k]'s agent (-1, or a worker not taking
  // part: none), for `workers` workers, and the main process too when
  // `here`. REQUIRES: tasks.size() == holders.size(); workers + here >= 1.
  void Begin(std::span<const size_t> tasks, std::span<const int> holders, size_t workers,
             bool here);
  // Tasks not taken yet.
  size_t left() const { return left_; }

  // Replaces *chunk with up to ChunkSize() tasks for worker w (its own
  // first, then nobody's, then the longest queue's last), ascending.
  // REQUIRES: w < workers.
  void TakeForWorker(size_t w, std::vector<size_t>* chunk);
  // Replaces *chunk with up to ChunkSize() tasks for the main process
  // (nobody's last ones first, then the longest queue's), ascending.
  void TakeHere(std::vector<size_t>* chunk);

  // The tasks a chunk gets now: about kChunkSeconds at the measured cost
  // (1 until a cost is measured), at most half a participant's share of
  // what is left, at least 1.
  size_t ChunkSize() const;
  // Records that `tasks` tasks took `seconds` (a chunk's time).
  void Measured(size_t tasks, double seconds);
  // Forgets the measured cost (a new run: other agents, other calls).
  void ResetCost() { task_seconds_ = 0; }

 private:
  // Moves up to n tasks from the front (or back) of queue q to *chunk.
  void Move(std::deque<size_t>& q, size_t n, bool from_back, std::vector<size_t>* chunk);
  std::deque<size_t>& Longest();

  // One per worker taking part, then nobody's.
  std::vector<std::deque<size_t>> queues_;
  size_t participants_ = 1;
  size_t left_ = 0;
  // Seconds a task takes, smoothed over chunks; 0: not measured yet.
  double task_seconds_ = 0;
};

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_TASK_QUEUES_H_
