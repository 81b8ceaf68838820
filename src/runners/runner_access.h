// RunnerAccess: the engine's access to a Runner's bookkeeping that is not
// part of the public API. Private to the library.

#ifndef PAMS_SRC_RUNNERS_RUNNER_ACCESS_H_
#define PAMS_SRC_RUNNERS_RUNNER_ACCESS_H_

#include "pams/runners/runner.h"

namespace pams::internal {

class RunnerAccess {
 public:
  // Marks `runner` as the replica inside a worker process (see
  // Runner::is_replica). REQUIRES: before setup().
  static void SetReplica(Runner* runner) { runner->replica_ = true; }
};

}  // namespace pams::internal

#endif  // PAMS_SRC_RUNNERS_RUNNER_ACCESS_H_
