// A sweep worker: a process that carries out the runs of one sweep in
// itself, one at a time, each exactly as `pams run CONFIG --seed S
// --steps-csv DIR/steps.csv --agents-csv DIR/agents.csv` would (its stdout
// and stderr go to DIR/stdout.txt and DIR/stderr.txt), so that the cost of
// starting a process and loading the plugins is paid once per worker, not
// once per run. The engine keeps no global state between runs, so a run's
// outputs do not depend on the runs before it in the same process.
//
// A coordinator (sweep_command.cc) hands out the runs as messages, one JSON
// object a line, and the worker answers each:
//   task   {"run": I, "seed": S, "sets": ["KEY=JSON", ...], "dir": DIR}
//   reply  {"run": I, "status": 0 | 1 | 2, "error": "..."}
// (status 0: done; 1: the run failed; 2: its input was refused). A run that
// crashes takes its worker down; the coordinator sees the worker end.
//
// Workers are either local processes that the coordinator started
// (RunLocalSweepWorker, over a socket) or the other ranks of an MPI job
// (sweep_mpi.h). Single-threaded: one run at a time.

#ifndef PAMS_APPS_PAMS_SWEEP_WORKER_H_
#define PAMS_APPS_PAMS_SWEEP_WORKER_H_

#include <string>
#include <vector>

#include "pams/config/json.h"
#include "pams/runners/class_registry.h"

namespace pams::cli {

// What every run of a sweep shares.
struct WorkerContext {
  std::string config_path;      // its directory is the config directory
  Json config;                  // the config with the sweep's --set applied
  std::vector<std::string> plugins;
  std::string runner;

  Json ToJson() const;
  // Throws ConfigError on a malformed context.
  static WorkerContext FromJson(const Json& json);
};

// A message channel between a worker and its coordinator: whole messages,
// in order.
class WorkerChannel {
 public:
  virtual ~WorkerChannel() = default;
  // Waits for the next message; false when the coordinator has gone or says
  // the sweep is over.
  virtual bool Receive(std::string* message) = 0;
  virtual void Send(const std::string& message) = 0;
};

// Carries out the task (a task message) in this process; returns the reply
// message. Never throws for a failed run: the reply says why.
std::string CarryOutRun(const ClassRegistry& registry, const WorkerContext& context,
                        const std::string& task);

// Answers tasks from the channel until it ends. Returns the process's exit
// status.
int ServeSweepWorker(const WorkerContext& context, WorkerChannel* channel);

// The argv[1] that makes `pams` a local sweep worker: pams __sweep-worker FD
// DIR, FD a connected socket whose first message is the WorkerContext (DIR,
// the sweep's --out, is only there to be seen in ps).
inline constexpr char kLocalWorkerCommand[] = "__sweep-worker";

// Runs a local sweep worker on argv (see kLocalWorkerCommand); returns the
// exit status.
int RunLocalSweepWorker(int argc, char** argv);

// A channel over a connected stream socket or pipe pair: messages end with
// '\n' (JSON text has none).
class FdChannel : public WorkerChannel {
 public:
  // Takes ownership of neither fd.
  FdChannel(int in_fd, int out_fd) : in_(in_fd), out_(out_fd) {}
  FdChannel(const FdChannel&) = delete;
  FdChannel& operator=(const FdChannel&) = delete;

  bool Receive(std::string* message) override;
  // Throws std::system_error if the write fails.
  void Send(const std::string& message) override;

  // For a coordinator that polls: reads what is there (the fd is readable);
  // returns false at end of file or on an error.
  bool ReadAvailable();
  // Takes the next whole message read so far.
  bool TakeMessage(std::string* message);

 private:
  int in_;
  int out_;
  std::string buffer_;
};

}  // namespace pams::cli

#endif  // PAMS_APPS_PAMS_SWEEP_WORKER_H_
