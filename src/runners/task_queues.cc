#include "runners/task_queues.h"

#include <algorithm>

namespace pams {

void TaskQueues::Begin(std::span<const size_t> tasks, std::span<const int> holders,
                       size_t workers, bool here) {
  queues_.resize(workers + 1);
  for (auto& q : queues_) q.clear();
  participants_ = workers + (here ? 1 : 0);
  for (size_t k = 0; k < tasks.size(); ++k) {
    const int h = holders[k];
    const bool held = h >= 0 && static_cast<size_t>(h) < workers;
    queues_[held ? static_cast<size_t>(h) : workers].push_back(tasks[k]);
  }
  left_ = tasks.size();
}

size_t TaskQueues::ChunkSize() const {
  if (left_ == 0) return 0;
  const size_t half_share = std::max<size_t>(1, left_ / (2 * std::max<size_t>(participants_, 1)));
  if (task_seconds_ <= 0) return 1;
  const double by_cost = kChunkSeconds / task_seconds_;
  const size_t n = by_cost >= static_cast<double>(half_share) ? half_share
                                                              : static_cast<size_t>(by_cost);
  return std::max<size_t>(1, n);
}

void TaskQueues::Measured(size_t tasks, double seconds) {
  if (tasks == 0 || !(seconds >= 0)) return;
  const double each = seconds / static_cast<double>(tasks);
  task_seconds_ = task_seconds_ <= 0 ? each : 0.75 * task_seconds_ + 0.25 * each;
}

void TaskQueues::Move(std::deque<size_t>& q, size_t n, bool from_back,
                      std::vector<size_t>* chunk) {
  n = std::min(n, q.size());
  for (size_t k = 0; k < n; ++k) {
    if (from_back) {
      chunk->push_back(q.back());
      q.pop_back();
    } else {
      chunk->push_back(q.front());
      q.pop_front();
    }
  }
  left_ -= n;
}

std::deque<size_t>& TaskQueues::Longest() {
  return *std::max_element(queues_.begin(), queues_.end(),
                           [](const auto& a, const auto& b) { return a.size() < b.size(); });
}

void TaskQueues::TakeForWorker(size_t w, std::vector<size_t>* chunk) {
  chunk->clear();
  const size_t n = ChunkSize();
  Move(queues_[w], n, false, chunk);
  Move(queues_.back(), n - chunk->size(), false, chunk);
  while (chunk->size() < n && left_ > 0) Move(Longest(), n - chunk->size(), true, chunk);
  std::sort(chunk->begin(), chunk->end());
}

void TaskQueues::TakeHere(std::vector<size_t>* chunk) {
  chunk->clear();
  const size_t n = ChunkSize();
  Move(queues_.back(), n, true, chunk);
  while (chunk->size() < n && left_ > 0) Move(Longest(), n - chunk->size(), true, chunk);
  std::sort(chunk->begin(), chunk->end());
}

}  // namespace pams
