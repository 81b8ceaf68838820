// The workers a sweep's coordinator hands its runs to (sweep_worker.h):
// local worker processes that it starts itself (LocalWorkers), or the other
// ranks of an MPI job (sweep_mpi.h). The coordinator's loop is the same for
// both: hand a task to each idle worker, wait for an event, handle it.
//
// A pool belongs to the coordinator's one thread.

#ifndef PAMS_APPS_PAMS_SWEEP_WORKERS_H_
#define PAMS_APPS_PAMS_SWEEP_WORKERS_H_

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sweep_worker.h"

namespace pams::cli {

class WorkerPool {
 public:
  struct Event {
    enum Kind { kTimeout, kReply, kLost, kSignal };
    Kind kind = kTimeout;
    int worker = -1;      // kReply, kLost
    std::string message;  // kReply: the reply; kLost: how the worker ended
    int signal = 0;       // kSignal: SIGINT, SIGTERM or SIGHUP
  };

  virtual ~WorkerPool() = default;

  // How many runs may go at once.
  virtual int size() const = 0;
  // Hands a task message to worker w.
  // REQUIRES: w has no task whose reply (or loss) has not come.
  // Throws std::system_error if the worker cannot be started or reached.
  virtual void Send(int worker, const std::string& task) = 0;
  // Waits at most `timeout` for the next event.
  virtual Event Wait(std::chrono::milliseconds timeout) = 0;
  // Stops the runs in progress, if the pool can: each worker that has one
  // then comes back as kLost (or, if its run ended first, kReply).
  // Returns false if it cannot, and the runs go on to their replies.
  virtual bool Abandon(int signal) = 0;
  // Ends every worker that has no task (all, at the end of a sweep).
  virtual void Close() = 0;
};

// Blocks SIGINT, SIGTERM, SIGHUP (and, with `children`, SIGCHLD) for its
// lifetime and delivers them on a file descriptor (signalfd), so that a
// coordinator takes signals and children's ends in its one loop: no signal
// handler, no global state. A SIGINT or SIGHUP ignored when pams started
// (nohup) stays ignored.
class SignalFd {
 public:
  explicit SignalFd(bool children);
  ~SignalFd();
  SignalFd(const SignalFd&) = delete;
  SignalFd& operator=(const SignalFd&) = delete;

  // Readable when a signal is pending (non-blocking).
  int fd() const { return fd_; }
  // Takes every pending signal; returns the first stop signal (0 if none)
  // and sets *child if a SIGCHLD was among them.
  int Take(bool* child);

 private:
  int fd_ = -1;
  sigset_t all_;
  sigset_t old_;
};

// Local worker processes: `pams __sweep-worker` children of this process,
// started when first needed (and again after one ends), each holding the
// sweep's DIR lock (lock_fd) while it lives and killed with SIGKILL if this
// process dies (PR_SET_PDEATHSIG).
class LocalWorkers : public WorkerPool {
 public:
  // REQUIRES: signals outlives the pool and was made with children = true.
  LocalWorkers(int size, WorkerContext context, std::string out_dir, int lock_fd,
               SignalFd* signals);
  // Kills and reaps the workers still alive.
  ~LocalWorkers() override;
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;

  int size() const override { return static_cast<int>(workers_.size()); }
  void Send(int worker, const std::string& task) override;
  Event Wait(std::chrono::milliseconds timeout) override;
  bool Abandon(int signal) override;
  void Close() override;

 private:
  struct Worker {
    pid_t pid = -1;
    int fd = -1;
    std::unique_ptr<FdChannel> channel;
    bool busy = false;
    bool eof = false;  // its end of the socket closed; its exit is due
  };

  void Start(Worker* worker);
  void Forget(Worker* worker);
  void Reap();
  int Find(pid_t pid) const;

  std::vector<Worker> workers_;
  const std::string context_;  // the first message to each worker
  const std::string out_dir_;
  const int lock_fd_;
  SignalFd* signals_;
  std::deque<Event> events_;
};

// "exit status 1" / "killed by signal 9 (Killed)" for a waitpid status.
std::string DescribeStatus(int status);

}  // namespace pams::cli

#endif  // PAMS_APPS_PAMS_SWEEP_WORKERS_H_
