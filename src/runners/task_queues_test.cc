// TaskQueues: tasks go to the worker holding their agent first, no queue is
// left while another waits, and chunks follow the measured cost.

#include "runners/task_queues.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace pams {
namespace {

std::vector<size_t> Iota(size_t n) {
  std::vector<size_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(TaskQueuesTest, UnmeasuredTasksGoOneAtATime) {
  TaskQueues q;
  const std::vector<size_t> tasks = Iota(10);
  const std::vector<int> holders(10, -1);
  q.Begin(tasks, holders, 2, false);
  std::vector<size_t> chunk;
  q.TakeForWorker(0, &chunk);
  EXPECT_EQ(chunk, std::vector<size_t>{0});
  q.TakeForWorker(1, &chunk);
  EXPECT_EQ(chunk, std::vector<size_t>{1});
  EXPECT_EQ(q.left(), 8u);
}

TEST(TaskQueuesTest, ChunksFollowTheMeasuredCostAndShrinkAtTheEnd) {
  TaskQueues q;
  const std::vector<size_t> tasks = Iota(4000);
  q.Begin(tasks, std::vector<int>(tasks.size(), -1), 2, false);
  q.Measured(100, 100 * 10e-6);  // 10 us a task: 200 in 2 ms
  EXPECT_EQ(q.ChunkSize(), 200u);
  q.Measured(1, 1.0);  // slow calls: one at a time
  for (int k = 0; k < 20; ++k) q.Measured(1, 1.0);
  EXPECT_EQ(q.ChunkSize(), 1u);
  // Fast calls, few tasks left: at most half a participant's share.
  TaskQueues few;
  few.Begin(Iota(40), std::vector<int>(40, -1), 2, true);
  few.Measured(1000, 1e-3);
  EXPECT_EQ(few.ChunkSize(), 40u / 6);
}

TEST(TaskQueuesTest, WorkersTakeTheirOwnThenNobodysThenSteal) {
  TaskQueues q;
  // Tasks 0-3 held by worker 0, 4-5 by worker 1, 6-7 by nobody.
  const std::vector<size_t> tasks = Iota(8);
  const std::vector<int> holders = {0, 0, 0, 0, 1, 1, -1, 7};  // 7: not taking part
  q.Begin(tasks, holders, 2, false);
  q.Measured(1, 1e-6);  // cheap: chunks as large as the share allows
  std::vector<size_t> chunk;
  q.TakeForWorker(1, &chunk);  // half a share of 8 among 2: 2
  EXPECT_EQ(chunk, (std::vector<size_t>{4, 5}));
  q.TakeForWorker(1, &chunk);  // its own are gone: nobody's (6 left: 1 each)
  EXPECT_EQ(chunk, (std::vector<size_t>{6}));
  q.TakeForWorker(1, &chunk);
  EXPECT_EQ(chunk, (std::vector<size_t>{7}));
  q.TakeForWorker(1, &chunk);  // then worker 0's, from the back
  EXPECT_EQ(chunk, (std::vector<size_t>{3}));
  q.TakeForWorker(0, &chunk);
  EXPECT_EQ(chunk, (std::vector<size_t>{0}));
  EXPECT_EQ(q.left(), 2u);
}

TEST(TaskQueuesTest, TheMainProcessTakesFromTheBackAndEveryTaskGoesOnce) {
  TaskQueues q;
  const std::vector<size_t> tasks = Iota(1000);
  std::vector<int> holders(tasks.size());
  for (size_t k = 0; k < holders.size(); ++k) holders[k] = static_cast<int>(k % 3) - 1;
  q.Begin(tasks, holders, 2, true);
  q.Measured(10, 10e-6);
  std::vector<size_t> seen;
  std::vector<size_t> chunk;
  q.TakeHere(&chunk);
  ASSERT_FALSE(chunk.empty());
  EXPECT_EQ(chunk.back(), 999u);  // nobody's last
  EXPECT_TRUE(std::is_sorted(chunk.begin(), chunk.end()));
  seen.insert(seen.end(), chunk.begin(), chunk.end());
  for (int turn = 0; q.left() > 0; ++turn) {
    if (turn % 3 == 2) {
      q.TakeHere(&chunk);
    } else {
      q.TakeForWorker(turn % 3, &chunk);
    }
    ASSERT_FALSE(chunk.empty());
    EXPECT_TRUE(std::is_sorted(chunk.begin(), chunk.end()));
    seen.insert(seen.end(), chunk.begin(), chunk.end());
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, tasks);
}

}  // namespace
}  // namespace pams
