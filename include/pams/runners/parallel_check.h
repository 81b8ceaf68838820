// CheckParallel: runs a config with SequentialRunner and with a parallel
// runner from the same seed and finds the first step and agent where they
// differ (`pams run --check-parallel`).
//
// The parallel runners give SequentialRunner's results for agents that keep
// the agent contract (simulator_view.h). The one rule the engine cannot
// check is that a subclass saves in save_state() every field that
// submit_orders() changes: an agent that forgets one runs as well under
// SequentialRunner and the thread runner, but its worker processes under
// the process runner see stale values, and its orders drift. Comparing the
// two runs event by event (orders, cancels, executions, market prices,
// final holdings) finds the first difference and the agent behind it.
//
// Both runs happen in the calling thread, one after the other; the parallel
// run prints no warnings (the sequential one printed them).

#ifndef PAMS_RUNNERS_PARALLEL_CHECK_H_
#define PAMS_RUNNERS_PARALLEL_CHECK_H_

#include <cstdint>
#include <string>

#include "pams/config/json.h"
#include "pams/export.h"
#include "pams/random/random.h"

namespace pams {

class ClassRegistry;

struct PAMS_EXPORT ParallelCheckResult {
  bool identical = true;
  int64_t events = 0;     // events compared
  // When not identical: the first step that differs, the agent behind the
  // first differing event ("name (class)"; empty for a market's price), and
  // what each run did there (or how it ended).
  int64_t step = -1;
  std::string agent;
  std::string sequential;
  std::string parallel;
};

// Runs `settings` with SequentialRunner and with `parallel_runner` (a
// registered runner class). The parallel run puts every task in a worker
// process (it sets workerTimeout, so that rounds of one agent do not run in
// the main process) and uses numParallel 2 unless the config sets it.
// Throws ConfigError for a bad config or runner name.
PAMS_EXPORT ParallelCheckResult CheckParallel(const ClassRegistry& registry,
                                              const Json& settings,
                                              const Random& prng,
                                              const std::string& parallel_runner,
                                              const std::string& config_directory);

}  // namespace pams

#endif  // PAMS_RUNNERS_PARALLEL_CHECK_H_
