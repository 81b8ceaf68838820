// The messages between the multi-process runner and its workers, and the
// worker side (RunWorker). Private to the library.

#ifndef PAMS_SRC_RUNNERS_WORKER_PROTOCOL_H_
#define PAMS_SRC_RUNNERS_WORKER_PROTOCOL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pams/random/random.h"
#include "pams/runners/worker.h"
#include "pams/util/state.h"

namespace pams {

class ClassRegistry;
class Runner;

// Whether InitWorkerProcess ran in this process (spawn and forkserver need
// it), and the registration function it was given.
bool WorkerProcessesInitialized();
RegisterClassesFn ProgramClassRegistration();

// What a worker builds its replica from (the kInit message).
struct WorkerInit {
  std::string settings_json;
  std::string runner_class;
  Random::State prng_state;
  std::vector<std::string> plugins;
  std::string config_directory;
  int worker_index = 0;
  // The CPUs the worker runs on (simulation.workerCpuAffinity); empty: any.
  std::vector<int> cpus;
  // What the program driving the runner sends its workers (the Python
  // package: its classes), opaque here.
  std::string host_payload;
  // Which run of the worker's process this is (1, 2, ... for kept workers):
  // its kReady answer carries it, so that the main process can tell the
  // answer to this run's kInit from a late one to an earlier run's.
  uint64_t run_id = 0;
  // How much the worker lowers its priority (nice increment) at its first
  // run (simulation.workerNice).
  int nice = 0;

  std::string Encode() const;
  static WorkerInit Decode(const std::string& bytes);
};

// The answer to kInit (kReady).
struct WorkerReady {
  // The run whose kInit it answers (WorkerInit::run_id).
  uint64_t run_id = 0;
  // The worker's WorkerProgress page, the first time (empty: none).
  std::string progress_page;

  std::string Encode() const;
  static WorkerReady Decode(const std::string& bytes);
};

// A chunk of a round's tasks (kTasks) is the journal's bytes the worker
// lacks (a string), the number of tasks (u32), then per task, in round
// order, a TaskHeader and, if its state is kWholeState, the agent's state
// (Agent::serialize_state, as a string).
struct TaskHeader {
  enum State : uint8_t {
    // The replica's agent is as the main process's: this worker ran its
    // last call, and nothing but the journal's changes happened since.
    kCurrentState = 0,
    kWholeState = 1,
  };
  int32_t agent_id = -1;
  State state = kWholeState;
  uint8_t unused[3] = {};  // no indeterminate padding on the wire
};

// The results of a chunk (kResults): this header, then per task run, in
// the chunk's order, its outcome (WriteTaskOutcome) and on success the
// actions (WriteActions) and what the call changed of the agent
// (call_change.h). A worker stops at a chunk's first failed task:
// `done` counts the tasks run, that one included.
struct ChunkResultsHeader {
  uint32_t done = 0;
  uint32_t unused = 0;  // no indeterminate padding on the wire
  // The worker's time for the chunk, states included (sizes later chunks).
  double seconds = 0;
};

// A task's result starts with how the task went: the error (empty
// on success), the host's description of it (HostError's payload; empty if
// none) and the agent's warnings.
inline void WriteTaskOutcome(const std::string& error, const std::string& host_error,
                             const std::vector<std::string>& warnings,
                             StateWriter& w) {
  w.write_string(error);
  w.write_string(host_error);
  w.write<uint64_t>(warnings.size());
  for (const std::string& s : warnings) w.write_string(s);
}

inline void ReadTaskOutcome(StateReader& r, std::string* error, std::string* host_error,
                            std::vector<std::string>* warnings) {
  *error = r.read_string();
  *host_error = r.read_string();
  const uint64_t n = r.read<uint64_t>();
  for (uint64_t i = 0; i < n; ++i) warnings->push_back(r.read_string());
}

// A kError message: what failed, and the host's description of it (a
// HostError's payload; empty if none).
inline std::string EncodeWorkerError(const std::string& message,
                                     const std::string& host_error) {
  std::string out;
  StateWriter w(&out);
  w.write_string(message);
  w.write_string(host_error);
  return out;
}

inline void DecodeWorkerError(const std::string& payload, std::string* message,
                              std::string* host_error) {
  try {
    StateReader r(payload);
    *message = r.read_string();
    *host_error = r.read_string();
  } catch (const std::exception&) {
    *message = "a worker's error message could not be read";
    host_error->clear();
  }
}

// Serves the runner on the socket fd until it is told to stop or the main
// process goes away, then exits the process (never returns). A worker
// serves one run after another (the main process keeps its workers between
// runs): each kInit builds a replica for a run, each kEndRun drops it. The
// worker's CPUs are pinned at its first run, and the process is prepared
// (prepare_worker_process, the worker initializer) once, at its first run.
// `registry` is the registry to build the replicas with (a forked worker
// inherits the main process's); null builds one from the built-ins, the
// program's registration function and the plugins named in the first Init
// message (the main process keeps workers only for runs of the same
// plugins).
[[noreturn]] void RunWorker(int fd, const ClassRegistry* registry);
// RunWorker with each run's replica built by build(init, first): a runner
// set up as a replica (internal::RunnerAccess::SetReplica before setup()),
// and when `first` (the process's first run) the process prepared and
// initialized too; build keeps it alive until its next call (which may
// drop it first), or throws.
using ReplicaBuilder = std::function<Runner*(const WorkerInit& init, bool first)>;
[[noreturn]] void ServeWorker(int fd, const ReplicaBuilder& build);

// Serves fork requests of a runner on the socket fd (see process_runner.cc);
// exits when the runner closes it. Never returns. Each forked worker runs
// serve(its descriptor) (default: RunWorker with its own registry); serve
// must not return.
[[noreturn]] void RunForkServer(int fd, const std::function<void(int fd)>& serve = nullptr);

// Puts the socket fd at descriptor 3 and closes every other descriptor
// above 2, so that a worker holds no other worker's socket open.
int KeepOnlyDescriptor(int fd);

// Makes the calling process die with its parent and ignore the terminal's
// Ctrl-C (the main process stops the workers itself). Exits if the parent
// is already gone.
void BecomeWorkerProcess();

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_WORKER_PROTOCOL_H_
