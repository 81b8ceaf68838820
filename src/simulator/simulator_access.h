// SimulatorAccess: the engine's access to a Simulator's bookkeeping, which
// is not part of the public API (quiet replicas, the journal). Private to
// the library; the simulation thread.

#ifndef PAMS_SRC_SIMULATOR_SIMULATOR_ACCESS_H_
#define PAMS_SRC_SIMULATOR_SIMULATOR_ACCESS_H_

#include "pams/simulator/simulator.h"

namespace pams::internal {

class SimulatorAccess {
 public:
  // A quiet simulator (a worker's replica) prints no warnings: the main
  // process prints them.
  static void SetQuiet(Simulator* simulator, bool quiet) {
    simulator->quiet_ = quiet;
  }
  static void SetJournal(Simulator* simulator, SimulationJournal* journal) {
    simulator->journal_ = journal;
  }
  // A replica follows the main simulation's time (SimulationJournal).
  static void SetTime(Simulator* simulator, int64_t time) {
    simulator->time_ = time;
  }
};

}  // namespace pams::internal

#endif  // PAMS_SRC_SIMULATOR_SIMULATOR_ACCESS_H_
