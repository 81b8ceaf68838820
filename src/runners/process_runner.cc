// MultiProcessAgentParallelRunner: the main-process side. Workers are
// started by spawn (posix_spawn of /proc/self/exe, which becomes a worker in
// pams::InitWorkerProcess), by a forkserver (a spawned process that forks
// them), or by fork; each holds a replica of the simulation (worker.cc).

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <typeinfo>
#include <utility>
#include <vector>

#include "market/wire.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/runners/parallel_runners.h"
#include "pams/runners/worker.h"
#include "pams/util/state.h"
#include "runners/agent_task.h"
#include "runners/channel.h"
#include "runners/cpu_affinity.h"
#include "runners/host_error.h"
#include "runners/task_queues.h"
#include "runners/call_change.h"
#include "runners/worker_progress.h"
#include "runners/worker_protocol.h"
#include "simulator/simulation_journal.h"

extern char** environ;

namespace pams {

namespace {

// A worker that gets no task (its round had fewer agents than workers, or
// a session asks one agent a step) would otherwise keep the journal from
// being discarded: past this many bytes, lagging workers are sent what they
// miss, so the main process never holds more than about this much.
constexpr uint64_t kSyncBytes = uint64_t{1} << 20;

// The wall time of calls run in the main process after which it judges
// whether they wait off the CPUs enough to start more workers (a few calls
// could mislead: the first loads a model).
constexpr double kWaitSampleSeconds = 0.1;
// The most the journal holds from the run's start while that judgement is
// pending (see JournalMayShrink).
constexpr uint64_t kWholeJournalBytes = uint64_t{64} << 20;

// Chunks a worker holds at once (see RunRound). Two hide the round trip;
// more would only make the split of a round among workers less even.
constexpr size_t kQueuedChunks = 2;

// The most bytes of agents' subclass states (Agent::save_state) the main
// process keeps to tell whether a worker's replica of an agent is current
// (see Dispatch); agents beyond travel whole.
constexpr size_t kKeptStateBytes = size_t{256} << 20;

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  if (WIFSIGNALED(status)) {
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "stopped (wait status " + std::to_string(status) + ")";
}

// A connected pair of stream sockets, closed on exec.
void SocketPair(int fds[2]) {
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw SimulationError(std::string("cannot create a worker socket: ") +
                          std::strerror(errno));
  }
}

// Starts `program` (empty: this program again) as a worker, with
// env_name=3 naming its end of the channel.
pid_t SpawnWorker(const std::string& program, const std::vector<std::string>& args,
                  int child_fd, const char* env_name) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 onto fd 3 clears close-on-exec there; everything else is closed.
  posix_spawn_file_actions_adddup2(&actions, child_fd, 3);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.push_back(*e);
  env_strings.push_back(std::string(env_name) + "=3");
  std::vector<char*> env;
  for (std::string& s : env_strings) env.push_back(s.data());
  env.push_back(nullptr);
  std::vector<std::string> arg_strings = args;
  if (program.empty()) arg_strings = {"pams-worker"};
  std::vector<char*> argv;
  for (std::string& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, program.empty() ? "/proc/self/exe" : program.c_str(),
                             &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw SimulationError(std::string("cannot spawn a worker process: ") +
                          std::strerror(rc));
  }
  return pid;
}

// Reaps processes sent SIGKILL, on a thread of its own, which ends once all
// are reaped: a killed process ends when the kernel has torn it down, which
// for a large one (a worker importing TensorFlow) took up to half a second
// here, and a stopped run must not wait for that.
void ReapInBackground(std::vector<pid_t> pids) {
  if (pids.empty()) return;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);  // signals stay the program's
  std::thread([pids = std::move(pids)] {
    for (pid_t pid : pids) {
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }).detach();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// This process's CPU time, every thread's, in seconds.
double ProcessCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// The seconds the calling thread has waited, runnable, for a CPU (the
// kernel's schedstat); 0 where the kernel does not say.
double RunQueueWaitSeconds() {
  // A few microseconds, beside calls that take milliseconds (only costly
  // calls are measured).
  const int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[128];
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  unsigned long long on_cpu_ns = 0, waiting_ns = 0;  // NOLINT(runtime/int)
  if (std::sscanf(text, "%llu %llu", &on_cpu_ns, &waiting_ns) != 2) return 0;
  return static_cast<double>(waiting_ns) * 1e-9;
}

// What a call keeps of the machine: this process's CPU time and the time
// the calling thread waited for a CPU. A call that sleeps, waits for I/O or
// an accelerator adds little; a CPU-bound one about its wall time, however
// loaded the machine is.
double BusySeconds() { return ProcessCpuSeconds() + RunQueueWaitSeconds(); }

// Waits up to `seconds` for process pid (a child) to end; true once reaped.
bool ReapWithin(pid_t pid, double seconds) {
  const double until = MonotonicSeconds() + seconds;
  for (;;) {
    if (waitpid(pid, nullptr, WNOHANG) != 0) return true;
    if (MonotonicSeconds() >= until) return false;
    usleep(1000);
  }
}

}  // namespace

// The worker processes of one run.
class MultiProcessAgentParallelRunner::Workers {
 public:
  struct Worker {
    Channel channel;
    pid_t pid = -1;
    double started_at = 0;   // when its process was started
    double begun_at = 0;     // when this run's kInit was sent
    bool ready = false;      // its replica of this run is ready
    double ready_after = 0;  // seconds from kInit until its replica was ready
    bool via_forkserver = false;
    uint64_t synced = 0;  // journal position this worker has applied
    // Indices in the round of the tasks sent to it, the running one first,
    // and the sizes of the chunks they were sent in.
    std::deque<size_t> tasks;
    std::deque<size_t> chunks;
    // Which agent it is calling (null: it could not say).
    std::unique_ptr<WorkerProgress> progress;
  };

  ~Workers() { Stop(); }
  Workers() = default;
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  // The program "spawn" and "forkserver" start (empty: this one again),
  // and what starts a worker for "fork" (empty: fork()).
  void set_program(std::string program, std::vector<std::string> args,
                   std::function<int(int fd)> starter) {
    program_ = std::move(program);
    args_ = std::move(args);
    starter_ = std::move(starter);
  }
  // Worker k's CPUs (empty, or for k beyond the vector: any).
  void set_cpus(std::vector<std::vector<int>> cpus) { cpus_ = std::move(cpus); }

  // Starts `count` more worker processes by `method`; each waits for a run
  // (BeginRun), or builds the replica of the run in progress. `registry`:
  // what a worker forked without a starter builds its replicas with.
  // REQUIRES: the same method as the set's earlier workers; for "fork"
  // with a starter, only once (the starter is dropped).
  void Start(const std::string& method, size_t count, const ClassRegistry* registry) {
    method_ = method;
    if (method == "forkserver" && server_pid_ <= 0) StartForkServer();
    for (size_t i = 0; i < count; ++i) {
      int fds[2];
      SocketPair(fds);
      Worker w;
      w.channel = Channel(fds[0]);
      w.started_at = MonotonicSeconds();
      // The worker's end belongs to the worker once it is started; this
      // process closes its copy whether starting succeeded or not.
      struct CloseOnExit {
        int fd;
        ~CloseOnExit() { close(fd); }
      } child_end{fds[1]};
      if (method == "spawn") {
        w.pid = SpawnWorker(program_, args_, fds[1], "PAMS_WORKER_FD");
      } else if (method == "forkserver") {
        w.pid = ForkViaServer(fds[1]);
        w.via_forkserver = true;
      } else if (starter_) {
        w.pid = starter_(fds[1]);
      } else {
        std::fflush(nullptr);  // the child must not flush the parent's buffers
        w.pid = fork();
        if (w.pid < 0) {
          throw SimulationError(std::string("cannot fork a worker: ") +
                                std::strerror(errno));
        }
        if (w.pid == 0) {
          BecomeWorkerProcess();
          RunWorker(KeepOnlyDescriptor(fds[1]), registry);
        }
      }
      workers_.push_back(std::move(w));
      if (in_run_) SendInit(workers_.size() - 1);
    }
    // The starter is the program's (a Python function of the runner that
    // started them): kept workers must not hold on to it.
    starter_ = nullptr;
  }

  // Starts a run: sends each worker the replica's config (run `init`, as
  // worker k) without waiting for the replicas, which build in parallel
  // while the main process goes on (AwaitReady). A worker not ready within
  // `startup_timeout` s of this call fails the run. `stop` is asked while
  // the run waits for workers.
  void BeginRun(const WorkerInit& init, double startup_timeout, StopCheck stop) {
    stop_ = std::move(stop);
    startup_timeout_ = startup_timeout;
    init_ = init;
    init_.run_id = ++run_id_;
    in_run_ = true;
    for (size_t i = 0; i < workers_.size(); ++i) SendInit(i);
  }

  // Whether a run of this set found calls that spend most of their time
  // off the CPUs (every worker takes part in their rounds: see RunRound).
  bool calls_wait() const { return calls_wait_; }
  void set_calls_wait() { calls_wait_ = true; }

  // How many workers have their replica of this run ready.
  size_t ready_count() const {
    size_t n = 0;
    for (const Worker& w : workers_) n += w.ready ? 1 : 0;
    return n;
  }

  // Reads the answers of workers whose replica is not ready yet, waiting
  // until at least `want` workers are ready (0: reads what has arrived and
  // returns). Throws SimulationError (HostError for the host program's
  // errors) for a worker that failed or is past its start-up time.
  void AwaitReady(size_t want) {
    std::vector<pollfd> fds;
    std::vector<size_t> index;
    for (;;) {
      fds.clear();
      index.clear();
      for (size_t i = 0; i < workers_.size(); ++i) {
        Worker& w = workers_[i];
        if (w.ready) continue;
        if (w.channel.has_buffered()) {
          ReadReady(i);
          continue;
        }
        fds.push_back(pollfd{w.channel.fd(), POLLIN, 0});
        index.push_back(i);
      }
      if (fds.empty()) return;
      const bool wait = ready_count() < want;
      if (stop_ && stop_()) {
        Kill();
        throw SimulationError("interrupted while the worker processes started");
      }
      double left = Channel::kPollSeconds;
      for (size_t i : index) {
        left = std::min(left, workers_[i].begun_at + startup_timeout_ - MonotonicSeconds());
      }
      if (left <= 0) {
        // Past its start-up time: that worker's failure is the one to name.
        for (size_t i : index) {
          if (workers_[i].begun_at + startup_timeout_ <= MonotonicSeconds()) {
            FailToStart(i, Channel::Status::kTimeout);
          }
        }
      }
      const int r = poll(fds.data(), fds.size(),
                         wait ? static_cast<int>(left * 1000) + 1 : 0);
      if (r < 0 && errno != EINTR) FailToStart(index.front(), Channel::Status::kError);
      bool read = false;
      for (size_t k = 0; r > 0 && k < fds.size(); ++k) {
        if (fds[k].revents != 0) {
          ReadReady(index[k]);
          read = true;
        }
      }
      if (!wait && !read) return;
    }
  }

  // Ends a run whose workers are kept for the next one: each drops its
  // replica. REQUIRES: healthy().
  void EndRun() {
    in_run_ = false;
    init_ = WorkerInit{};  // its config and payload are the run's
    for (Worker& w : workers_) {
      // A worker that cannot take it now is found dead or stuck later.
      if (w.channel.Send(MessageType::kEndRun, {}, 0.5) != Channel::Status::kOk) {
        w.channel.Close();
      }
      w.tasks.clear();
      w.chunks.clear();
    }
    stop_ = nullptr;
  }

  // Whether the workers can serve another run: none was killed or failed,
  // none holds a task, every process is still there.
  bool healthy() {
    if (killed_) return false;
    for (Worker& w : workers_) {
      if (!w.tasks.empty() || !w.channel.is_open() || w.pid <= 0) return false;
      if (w.via_forkserver) {
        if (kill(w.pid, 0) != 0 || IsZombie(w.pid)) return false;
      } else if (waitpid(w.pid, nullptr, WNOHANG) != 0) {
        w.pid = -1;
        return false;
      }
    }
    return server_pid_ <= 0 || waitpid(server_pid_, nullptr, WNOHANG) == 0;
  }

  void set_start_hint(std::string hint) { start_hint_ = std::move(hint); }

  // For a kept set that is no longer healthy: throws the error a worker
  // sent when it could not start (a run that ended before its workers were
  // ready left it unread), so that the next run reports it instead of
  // starting workers that fail alike while the main process runs every
  // round alone. Returns if no worker said why. Reads without waiting.
  void ThrowStartError() {
    for (size_t i = 0; i < workers_.size(); ++i) {
      Worker& w = workers_[i];
      while (!w.ready && w.channel.is_open()) {
        pollfd p{w.channel.fd(), POLLIN, 0};
        if (!w.channel.has_buffered() && poll(&p, 1, 0) <= 0) break;
        MessageType type;
        std::string payload;
        if (w.channel.Receive(&type, &payload, 0.1) != Channel::Status::kOk) break;
        if (type != MessageType::kError) continue;  // an earlier run's kReady
        std::string message, host_error;
        DecodeWorkerError(payload, &message, &host_error);
        message = "worker process " + std::to_string(i) +
                  " (kept from an earlier run) could not build its replica: " + message;
        if (!host_error.empty()) throw HostError(message, host_error);
        throw SimulationError(message);
      }
    }
  }

 private:
  // Sends worker i this run's replica config (as worker i) without waiting
  // for the replica. A failure other than an interruption shows in the
  // answer awaited later. A spawned worker reads this first thing, before
  // it imports anything slow, so the wait is short even for a large config.
  void SendInit(size_t i) {
    Worker& w = workers_[i];
    w.ready = false;
    w.synced = 0;
    w.tasks.clear();
    w.chunks.clear();
    w.begun_at = MonotonicSeconds();
    WorkerInit mine = init_;
    mine.worker_index = static_cast<int>(i);
    if (i < cpus_.size()) mine.cpus = cpus_[i];
    if (w.channel.Send(MessageType::kInit, mine.Encode(), startup_timeout_, stop_) ==
        Channel::Status::kInterrupted) {
      Kill();
      throw SimulationError("interrupted while the worker processes started");
    }
  }

  // Reads worker i's answer to this run's kInit (kReady), or a late one to
  // an earlier run's (skipped). Throws if it failed.
  void ReadReady(size_t i) {
    Worker& w = workers_[i];
    MessageType type;
    std::string payload;
    const Channel::Status s = w.channel.Receive(&type, &payload, startup_timeout_, stop_);
    if (s == Channel::Status::kOk && type == MessageType::kReady) {
      WorkerReady ready;
      try {
        ready = WorkerReady::Decode(payload);
      } catch (const std::exception&) {
        FailToStart(i, Channel::Status::kError);
      }
      if (w.progress == nullptr) w.progress = WorkerProgress::Open(ready.progress_page);
      if (ready.run_id != run_id_) return;  // an earlier run's
      w.ready = true;
      w.ready_after = MonotonicSeconds() - w.begun_at;
      return;
    }
    if (s == Channel::Status::kOk && type == MessageType::kError) {
      std::string message, host_error;
      DecodeWorkerError(payload, &message, &host_error);
      Kill();
      message = "worker process " + std::to_string(i) +
                " could not build its replica: " + message;
      if (!host_error.empty()) throw HostError(message, host_error);
      throw SimulationError(message);
    }
    FailToStart(i, s == Channel::Status::kOk ? Channel::Status::kError : s);
  }

  [[noreturn]] void FailToStart(size_t i, Channel::Status s) {
    if (s == Channel::Status::kInterrupted) {
      Kill();
      throw SimulationError("interrupted while the worker processes started");
    }
    std::string why = Failure(i, s, startup_timeout_, "simulation.workerStartTimeout");
    Kill();
    std::string hint = start_hint_;
    if (hint.empty() && method_ != "fork") {
      hint = "does the program call pams::InitWorkerProcess(argc, argv) at the top of main?";
    }
    throw SimulationError("worker process " + std::to_string(i) + " did not start: " + why +
                          (hint.empty() ? "" : " (" + hint + ")"));
  }

 public:
  // Why worker i failed, for messages: how its process ended, or the timeout.
  std::string Failure(size_t i, Channel::Status s, double timeout,
                      const char* key = "simulation.workerTimeout") {
    Worker& w = workers_[i];
    if (s == Channel::Status::kTimeout) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", timeout);
      return std::string("it did not answer within ") + seconds + " s (" + key + ")";
    }
    if (s == Channel::Status::kInterrupted) return "interrupted";
    if (s == Channel::Status::kError) return "socket error: " + w.channel.error();
    w.channel.Close();
    const std::optional<int> status = Reap(i);
    if (!status) return "its process ended";
    return "its process " + DescribeWaitStatus(*status);
  }

  // With PAMS_WORKER_STATS set, prints each worker's start-up time and
  // memory to stderr (for benchmarks and tuning).
  void PrintStats() const {
    if (std::getenv("PAMS_WORKER_STATS") == nullptr) return;
    const auto [main_rss, main_peak] = Memory("self");
    std::fprintf(stderr, "# MAIN pid %d memory %s MiB (peak %s MiB, %ld kB)\n",
                 static_cast<int>(getpid()), main_rss.c_str(), main_peak.c_str(),
                 PeakKilobytes("self"));
    std::fprintf(stderr, "# CPU MAIN %s\n", CpuUse("self").c_str());
    for (size_t i = 0; i < workers_.size(); ++i) {
      const Worker& w = workers_[i];
      const auto [rss, peak] = Memory(std::to_string(w.pid));
      std::fprintf(stderr,
                   "# WORKER %zu pid %d ready after %.3f s, memory %s MiB (peak %s MiB, %ld kB)\n",
                   i, static_cast<int>(w.pid), w.ready_after, rss.c_str(), peak.c_str(),
                   PeakKilobytes(std::to_string(w.pid)));
      std::fprintf(stderr, "# CPU WORKER %zu %s\n", i, CpuUse(std::to_string(w.pid)).c_str());
    }
  }

  // The CPU time /proc/<pid> has used so far (user and system, all its
  // threads) and its context switches: where a round's time goes.
  static std::string CpuUse(const std::string& pid) {
    std::string out = "cpu ?";
    std::FILE* f = std::fopen(("/proc/" + pid + "/stat").c_str(), "r");
    if (f != nullptr) {
      char buf[1024];
      const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
      std::fclose(f);
      buf[n] = '\0';
      // Fields after the command's closing parenthesis: state is the 3rd,
      // utime and stime the 14th and 15th.
      const char* rest = std::strrchr(buf, ')');
      unsigned long user = 0, sys = 0;
      if (rest != nullptr &&
          std::sscanf(rest + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                      &user, &sys) == 2) {
        const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
        char text[96];
        std::snprintf(text, sizeof text, "cpu user %.2f s sys %.2f s", user / tick, sys / tick);
        out = text;
      }
    }
    f = std::fopen(("/proc/" + pid + "/status").c_str(), "r");
    if (f != nullptr) {
      char line[256];
      long voluntary = -1, involuntary = -1, value = 0;
      while (std::fgets(line, sizeof line, f) != nullptr) {
        if (std::sscanf(line, "voluntary_ctxt_switches: %ld", &value) == 1) voluntary = value;
        if (std::sscanf(line, "nonvoluntary_ctxt_switches: %ld", &value) == 1) {
          involuntary = value;
        }
      }
      std::fclose(f);
      out += ", switches " + std::to_string(voluntary) + " voluntary " +
             std::to_string(involuntary) + " forced";
    }
    return out;
  }

  static long PeakKilobytes(const std::string& pid) {
    long peak = -1;
    std::FILE* f = std::fopen(("/proc/" + pid + "/status").c_str(), "r");
    if (f != nullptr) {
      char line[256];
      long kb = 0;
      while (std::fgets(line, sizeof line, f) != nullptr) {
        if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) peak = kb;
      }
      std::fclose(f);
    }
    return peak;
  }

  // The resident and peak resident memory of /proc/<pid>, in MiB ("?" if
  // unknown).
  static std::pair<std::string, std::string> Memory(const std::string& pid) {
    std::string rss = "?", peak = "?";
    std::FILE* f = std::fopen(("/proc/" + pid + "/status").c_str(), "r");
    if (f != nullptr) {
      char line[256];
      while (std::fgets(line, sizeof line, f) != nullptr) {
        long kb = 0;
        if (std::sscanf(line, "VmRSS: %ld kB", &kb) == 1) rss = std::to_string(kb / 1024);
        if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) peak = std::to_string(kb / 1024);
      }
      std::fclose(f);
    }
    return {rss, peak};
  }

  // Stops every worker and reaps them; safe to call more than once.
  // Workers are told to exit and get 200 ms together to do so; those still
  // running then (inside a long call) are killed.
  void Stop() { Shutdown(0.2); }

  // Kills every worker at once (SIGKILL) and reaps them: for a run that
  // stops in the middle (interrupted, or a worker timed out), whose workers
  // may be inside calls that do not return. Safe to call more than once.
  void Kill() {
    killed_ = true;
    Shutdown(0);
  }

  std::vector<Worker>& workers() { return workers_; }

 private:
  void Shutdown(double grace_seconds) {
    if (getpid() != owner_) {
      // A copy in a process forked from the owner (a user's os.fork(), a
      // multiprocessing child exiting through atexit): the workers are the
      // owner's, which goes on using them. This process only lets go of
      // its copies of their sockets.
      for (Worker& w : workers_) w.channel.Close();
      workers_.clear();
      server_.Close();
      server_pid_ = -1;
      return;
    }
    for (Worker& w : workers_) {
      if (grace_seconds > 0 && w.channel.is_open()) {
        // A worker that cannot take the message now is killed below.
        w.channel.Send(MessageType::kShutdown, {}, 0.01);
      }
      w.channel.Close();
      if (grace_seconds <= 0 && w.pid > 0) kill(w.pid, SIGKILL);
    }
    // Workers exit when their socket closes. The forkserver's children are
    // its to reap; it reaps them and exits when its socket closes.
    const double until = MonotonicSeconds() + grace_seconds;
    for (;;) {
      bool running = false;
      for (Worker& w : workers_) {
        if (w.pid <= 0) continue;
        if (w.via_forkserver) {
          // Not this process's child: gone once kill(pid, 0) fails or
          // it is a zombie of the server (which reaps it below).
          if (kill(w.pid, 0) != 0 || IsZombie(w.pid)) {
            w.pid = -1;
          } else {
            running = true;
          }
          continue;
        }
        int st;
        if (waitpid(w.pid, &st, WNOHANG) != 0) {
          w.pid = -1;
        } else {
          running = true;
        }
      }
      if (!running) break;
      if (MonotonicSeconds() >= until) {
        // Killed; this process's children are reaped in the background if
        // they take more than a moment to go.
        std::vector<pid_t> killed;
        for (Worker& w : workers_) {
          if (w.pid <= 0) continue;
          kill(w.pid, SIGKILL);
          if (!w.via_forkserver && !ReapWithin(w.pid, 0.005)) killed.push_back(w.pid);
          w.pid = -1;
        }
        ReapInBackground(std::move(killed));
        break;
      }
      usleep(1000);
    }
    workers_.clear();
    if (server_pid_ > 0) {
      server_.Close();  // the server reaps its workers and exits
      // Killed at once too when there is no time: its workers are gone.
      if (grace_seconds <= 0) kill(server_pid_, SIGKILL);
      if (!ReapWithin(server_pid_, grace_seconds > 0 ? grace_seconds + 0.3 : 0.005)) {
        kill(server_pid_, SIGKILL);
        ReapInBackground({server_pid_});
      }
      server_pid_ = -1;
    }
  }

  // Whether process pid has ended and waits to be reaped (its parent, the
  // forkserver, reaps it).
  static bool IsZombie(pid_t pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    std::FILE* f = std::fopen(path, "r");
    if (f == nullptr) return true;
    char line[512];
    const bool read = std::fgets(line, sizeof line, f) != nullptr;
    std::fclose(f);
    if (!read) return true;
    // "pid (comm) S ...": the state follows the last ')'.
    const char* paren = std::strrchr(line, ')');
    return paren != nullptr && paren[1] == ' ' && paren[2] == 'Z';
  }

 public:
  // The agent worker i was calling when it last said (see WorkerProgress).
  std::optional<int> RunningAgent(size_t i) const {
    const Worker& w = workers_[i];
    if (w.progress == nullptr) return std::nullopt;
    return w.progress->get();
  }

  // Waits for a message from any worker with a running task. Returns the
  // worker's index, its message read (or the failure in *status). With
  // `wait` false, only a message that has arrived is read: SIZE_MAX if none.
  size_t WaitAny(double timeout, MessageType* type, std::string* payload,
                 Channel::Status* status, bool wait = true) {
    std::vector<pollfd> fds;
    std::vector<size_t> index;
    for (size_t i = 0; i < workers_.size(); ++i) {
      if (!workers_[i].tasks.empty()) {
        fds.push_back(pollfd{workers_[i].channel.fd(), POLLIN, 0});
        index.push_back(i);
      }
    }
    for (size_t i : index) {
      if (workers_[i].channel.has_buffered()) {
        *status = workers_[i].channel.Receive(type, payload, timeout, stop_);
        return i;
      }
    }
    if (!wait && index.empty()) return SIZE_MAX;
    const double deadline = timeout > 0 ? MonotonicSeconds() + timeout : 0;
    for (;;) {
      if (wait && stop_ && stop_()) {
        *status = Channel::Status::kInterrupted;
        return index.front();
      }
      int wait_ms = static_cast<int>(Channel::kPollSeconds * 1000);
      if (deadline > 0) {
        const double left = deadline - MonotonicSeconds();
        if (left <= 0) {
          *status = Channel::Status::kTimeout;
          return index.front();
        }
        wait_ms = static_cast<int>(std::min(left, Channel::kPollSeconds) * 1000) + 1;
      }
      const int r = poll(fds.data(), fds.size(), wait ? wait_ms : 0);
      if (!wait && r <= 0) return SIZE_MAX;
      if (r < 0 && errno != EINTR) {
        *status = Channel::Status::kError;
        return index.front();
      }
      for (size_t k = 0; r > 0 && k < fds.size(); ++k) {
        if (fds[k].revents != 0) {
          *status = workers_[index[k]].channel.Receive(type, payload, timeout, stop_);
          return index[k];
        }
      }
    }
  }

 private:
  void StartForkServer() {
    int fds[2];
    SocketPair(fds);
    server_pid_ = SpawnWorker(program_, args_, fds[1], "PAMS_FORKSERVER_FD");
    close(fds[1]);
    server_ = Channel(fds[0]);
  }

  pid_t ForkViaServer(int fd) {
    char op = 'F';
    iovec iov{&op, 1};
    char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    int32_t pid = -1;
    if (sendmsg(server_.fd(), &msg, MSG_NOSIGNAL) != 1 ||
        !ReadServer(&pid) || pid <= 0) {
      throw SimulationError(
          "the forkserver could not start a worker (does the program call "
          "pams::InitWorkerProcess(argc, argv) at the top of main?)");
    }
    return pid;
  }

  bool ReadServer(int32_t* value) {
    size_t done = 0;
    while (done < sizeof *value) {
      const ssize_t n = read(server_.fd(), reinterpret_cast<char*>(value) + done,
                             sizeof *value - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  // The wait status of worker i once its process has ended.
  std::optional<int> Reap(size_t i) {
    Worker& w = workers_[i];
    if (w.pid <= 0) return std::nullopt;
    if (w.via_forkserver) {
      char op = 'W';
      int32_t pid = w.pid;
      int32_t status = -1;
      if (write(server_.fd(), &op, 1) != 1 ||
          write(server_.fd(), &pid, sizeof pid) != sizeof pid ||
          !ReadServer(&status) || status < 0) {
        return std::nullopt;
      }
      w.pid = -1;
      return status;
    }
    for (int k = 0; k < 200; ++k) {  // it closed its socket: it is ending
      int st = 0;
      if (waitpid(w.pid, &st, WNOHANG) == w.pid) {
        w.pid = -1;
        return st;
      }
      usleep(5000);
    }
    return std::nullopt;
  }

  std::vector<Worker> workers_;
  std::string method_;
  StopCheck stop_;
  double startup_timeout_ = 0;  // set by BeginRun
  uint64_t run_id_ = 0;
  WorkerInit init_;      // this run's (BeginRun), for workers started during it
  bool in_run_ = false;  // between BeginRun and EndRun
  bool calls_wait_ = false;
  bool killed_ = false;
  std::string start_hint_;
  Channel server_;
  pid_t server_pid_ = -1;
  // The process that started these workers: only it stops them.
  const pid_t owner_ = getpid();
  std::string program_;
  std::vector<std::string> args_;
  std::function<int(int fd)> starter_;
  std::vector<std::vector<int>> cpus_;
};

// Workers kept between runs, for the process's later runners with the same
// worker set-up (as joblib's reusable executor keeps its workers): a loop
// over seeds starts them once. Each kept set goes after its idle timeout
// (a thread of its own stops it), when the program asks
// (ShutdownKeptWorkers), or at exit. Thread-safe; never destroyed (the
// reaper thread may still wait on it when static objects go).
class WorkerPool {
 public:
  static WorkerPool& Get() {
    static WorkerPool* pool = [] {
      auto* p = new WorkerPool;
      std::atexit([] { Get().ShutdownAll(); });
      // A child forked while the reaper held the lock would find it held
      // forever. The kept workers are the parent's, not the child's.
      pthread_atfork([] { Get().mu_.lock(); }, [] { Get().mu_.unlock(); },
                     [] { Get().ForgetInForkedChild(); });
      return p;
    }();
    return *pool;
  }

  // A kept set for `key` whose processes are all still there (others are
  // stopped), or null.
  std::unique_ptr<MultiProcessAgentParallelRunner::Workers> Take(const std::string& key) {
    std::vector<std::unique_ptr<MultiProcessAgentParallelRunner::Workers>> dead;
    std::unique_ptr<MultiProcessAgentParallelRunner::Workers> found;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = kept_.begin(); it != kept_.end();) {
        if (it->key != key) {
          ++it;
          continue;
        }
        std::unique_ptr<MultiProcessAgentParallelRunner::Workers> w = std::move(it->workers);
        it = kept_.erase(it);
        if (w->healthy()) {
          found = std::move(w);
          break;
        }
        dead.push_back(std::move(w));
      }
    }
    for (auto& w : dead) {
      w->ThrowStartError();
      w->Kill();
    }
    return found;
  }

  // Keeps `workers` for `idle_seconds` (> 0).
  void Keep(std::string key, std::unique_ptr<MultiProcessAgentParallelRunner::Workers> workers,
            double idle_seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    kept_.push_back(Entry{std::move(key), std::move(workers),
                          MonotonicSeconds() + idle_seconds});
    if (!reaper_started_) {
      reaper_started_ = true;
      // Signals stay the program's threads'.
      sigset_t all, old;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, &old);
      std::thread([this] { Reap(); }).detach();
      pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }
    cv_.notify_all();
  }

  // Stops the kept sets of `key` (every kept set when null).
  void Shutdown(const std::string* key) {
    std::vector<std::unique_ptr<MultiProcessAgentParallelRunner::Workers>> going;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = kept_.begin(); it != kept_.end();) {
        if (key == nullptr || it->key == *key) {
          going.push_back(std::move(it->workers));
          it = kept_.erase(it);
        } else {
          ++it;
        }
      }
    }
    // Idle workers exit when told to (at once); they are killed after 0.2 s.
    for (auto& w : going) w->Stop();
  }
  void ShutdownAll() { Shutdown(nullptr); }

  // In a child just forked (the lock held by the forking thread): lets go
  // of the parent's workers without stopping them (Workers::Shutdown only
  // closes a forked copy's sockets), and of the reaper, which is not in
  // the child.
  void ForgetInForkedChild() {
    std::vector<Entry> parents = std::move(kept_);
    kept_.clear();
    reaper_started_ = false;
    mu_.unlock();
  }

  size_t kept_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return kept_.size();
  }

 private:
  struct Entry {
    std::string key;
    std::unique_ptr<MultiProcessAgentParallelRunner::Workers> workers;
    double deadline;
  };

  void Reap() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      double next = 0;
      std::vector<std::unique_ptr<MultiProcessAgentParallelRunner::Workers>> going;
      const double now = MonotonicSeconds();
      for (auto it = kept_.begin(); it != kept_.end();) {
        if (it->deadline <= now) {
          going.push_back(std::move(it->workers));
          it = kept_.erase(it);
          continue;
        }
        if (next == 0 || it->deadline < next) next = it->deadline;
        ++it;
      }
      if (!going.empty()) {
        lock.unlock();
        for (auto& w : going) w->Stop();
        lock.lock();
        continue;
      }
      if (next == 0) {
        cv_.wait(lock);
      } else {
        cv_.wait_for(lock, std::chrono::duration<double>(next - now));
      }
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry> kept_;
  bool reaper_started_ = false;
};

void ShutdownKeptWorkers() { WorkerPool::Get().ShutdownAll(); }

size_t KeptWorkerSets() { return WorkerPool::Get().kept_count(); }

// A round's tasks for the workers: handed out in chunks (TaskQueues), each
// agent to the worker whose replica has it as it is where one has (see
// call_change.h), and the answers read. Persistent across the rounds of a
// run: which worker holds which agent. Hidden: nested in an exported
// class, it would be exported with it.
struct __attribute__((visibility("hidden"))) MultiProcessAgentParallelRunner::Dispatch {
  explicit Dispatch(MultiProcessAgentParallelRunner* r) : runner(r) {}

  void BeginRun(size_t agents);
  void EndRun();
  // Starts handing out `remote` (indices in `agents`, results in *results)
  // to at most `helpers` ready workers: a chunk to each, then a second.
  void BeginRound(std::span<Agent* const> agents, const std::vector<size_t>& remote,
                  size_t helpers, std::vector<TaskResult>* results);
  // Sends worker w chunks until it holds `depth` (none to one that is
  // gone, or once the run is told to stop).
  void TopUp(size_t w, size_t depth = kQueuedChunks);
  // Reads worker w's answer (`type`, `payload`) to its oldest chunk.
  void Receive(size_t w, MessageType type, const std::string& payload);
  // Ends the run for worker w's failure s, naming the agent it was calling.
  [[noreturn]] void Fail(size_t w, Channel::Status s);
  // After the round: the workers' changes applied to the agents if every
  // task succeeded (and the holders recorded), else the holders forgotten.
  void EndRound(bool succeeded);

  MultiProcessAgentParallelRunner* runner;
  TaskQueues queues;
  // By agent id: the worker whose replica of the agent is as this
  // process's agent was after that worker's last call of it (-1: none),
  // and the agent's prng mark and subclass state then: while they stay so,
  // the agent's tasks go to that worker without its state.
  std::vector<int> holder;
  std::vector<AgentMark> mark;
  std::vector<std::string> extra;
  size_t extra_bytes = 0;
  // This round: its agents and results, the workers taking part, each
  // worker's place among them (SIZE_MAX: none) and whether it is gone (it
  // answered kError and exited), chunks sent and not answered; by index in
  // the round, the worker each task went to (-1: none) and the agent's
  // subclass state when it went, and what the call changed.
  std::span<Agent* const> agents;
  std::vector<TaskResult>* results = nullptr;
  const std::vector<size_t>* remote = nullptr;
  std::vector<size_t> takers;
  std::vector<size_t> place;
  std::vector<char> gone;
  size_t running = 0;
  std::vector<int> ran_on;
  std::vector<std::string> sent_extra;
  std::vector<std::string> changes;
  // Buffers.
  std::vector<int> round_holders;
  std::vector<size_t> chunk;
  std::string payload;
  std::string scratch;

 private:
  // Whether a worker's replica may keep `agent` between its calls.
  bool MayKeep(const Agent& agent) const {
    return runner->keep_agent_states_ && agent.replicas_may_keep_state();
  }
  void Send(size_t w);
  // Records that agent `id`'s call ran on worker w (its replica is as the
  // agent now), with subclass state *state (taken).
  void Held(int id, int w, const Agent& agent, std::string* state);
};

MultiProcessAgentParallelRunner::MultiProcessAgentParallelRunner(
    Json settings, Random prng, Logger* logger, const ClassRegistry& registry)
    : AgentParallelRunner(std::move(settings), std::move(prng), logger,
                          registry) {
  set_class_name("MultiProcessAgentParallelRunner");
}

MultiProcessAgentParallelRunner::~MultiProcessAgentParallelRunner() = default;

std::vector<std::string> MultiProcessAgentParallelRunner::SimulationKeys() {
  std::vector<std::string> keys = AgentParallelRunner::SimulationKeys();
  for (const char* key : {"startMethod", "workerTimeout", "workerStartTimeout",
                          "workerIdleTimeout", "runRoundsWhileWorkersStart", "workerNice",
                          "workerCpuAffinity", "workerKeepsAgentStates"}) {
    keys.push_back(key);
  }
  return keys;
}

void MultiProcessAgentParallelRunner::configure(const Settings& simulation) {
  AgentParallelRunner::configure(simulation);
  start_method_ = default_start_method_set_.empty() ? default_start_method()
                                                   : default_start_method_set_;
  if (auto m = simulation.find("startMethod")) {
    start_method_ = m->as_string();
  }
  if (start_method_ != "spawn" && start_method_ != "forkserver" &&
      start_method_ != "fork") {
    throw ConfigError(simulation.child_path("startMethod"),
                      "expected \"spawn\", \"forkserver\" or \"fork\", got \"" +
                          start_method_ + "\"");
  }
  if (auto t = simulation.find("workerTimeout")) {
    worker_timeout_ = t->as_float();
    if (!(worker_timeout_ >= 0) || worker_timeout_ > 1e9) {
      t->fail("must be a number of seconds from 0 to 1e9 (0: no limit), got " +
              t->json().dump());
    }
  }
  if (auto t = simulation.find("workerStartTimeout")) {
    worker_start_timeout_ = t->as_float();
    if (!(worker_start_timeout_ > 0) || worker_start_timeout_ > 1e9) {
      t->fail("must be a number of seconds > 0 and <= 1e9, got " + t->json().dump());
    }
  }
  if (auto t = simulation.find("workerIdleTimeout")) {
    worker_idle_timeout_ = t->as_float();
    if (!(worker_idle_timeout_ >= 0) || worker_idle_timeout_ > 1e9) {
      t->fail("must be a number of seconds from 0 to 1e9 (0: workers end with the run), got " +
              t->json().dump());
    }
  }
  if (auto r = simulation.find("runRoundsWhileWorkersStart")) {
    rounds_while_workers_start_ = r->as_bool();
  }
  if (auto k = simulation.find("workerKeepsAgentStates")) {
    keep_agent_states_ = k->as_bool();
  }
  if (auto n = simulation.find("workerNice")) {
    const int64_t v = n->as_int();
    if (v < 0 || v > 19) n->fail("must be an integer between 0 and 19, got " + n->json().dump());
    worker_nice_ = static_cast<int>(v);
  }

  // Planned in the main process only: a worker's replica, already pinned,
  // may run on fewer CPUs than the config names.
  worker_cpus_.clear();
  const bool pin = default_worker_cpu_affinity_set_.value_or(default_worker_cpu_affinity());
  if (auto a = simulation.find("workerCpuAffinity"); a && !is_replica()) {
    worker_cpus_ = PlanWorkerCpus(*a, AllowedCpus(), concurrency());
  } else if (pin && !is_replica()) {
    worker_cpus_ = SplitCpus(AllowedCpus(), concurrency());
  }
  if (start_method_ != "fork" && !is_replica() && !WorkerProcessesInitialized() &&
      worker_program_.empty()) {
    throw ConfigError(simulation.child_path("startMethod"),
                      "\"" + start_method_ +
                          "\" starts the program again as a worker, which needs "
                          "pams::InitWorkerProcess(argc, argv) at the top of its "
                          "main(); use \"fork\" or add that call");
  }
}

bool MultiProcessAgentParallelRunner::prepare_main_process() {
  // A worker initializer prepares the workers in a way this process is not
  // (a model loaded into a cache of the worker's).
  return !has_worker_initializer_function();
}

bool MultiProcessAgentParallelRunner::KeepsWorkers() const {
  // Workers forked by this program (no starter) are copies of it as it was
  // at the fork; a later runner's replicas may need what it has since.
  return worker_idle_timeout_ > 0 && !(start_method_ == "fork" && !worker_starter_);
}

std::string MultiProcessAgentParallelRunner::WorkerPoolKey() const {
  // Everything a worker process is made of, beyond one run's replica: its
  // program, the classes its runner prepares it with, its CPUs, the
  // plugins it loaded, and what the program says (the Python package: its
  // runner class, environment, initializer).
  std::string key;
  StateWriter w(&key);
  w.write_string(class_name());
  w.write_string(start_method_);
  w.write(concurrency());
  w.write<uint64_t>(worker_cpus_.size());
  for (const auto& cpus : worker_cpus_) w.write_vector(cpus);
  w.write(worker_nice_);
  w.write_string(worker_program_);
  w.write<uint64_t>(worker_argv_.size());
  for (const std::string& a : worker_argv_) w.write_string(a);
  const std::vector<std::string> plugins = registry().plugin_paths();
  w.write<uint64_t>(plugins.size());
  for (const std::string& p : plugins) w.write_string(p);
  w.write_string(worker_process_key());
  w.write_string(worker_pool_key_extra_);
  w.write<uint8_t>(worker_starter_ ? 1 : 0);
  return key;
}

void MultiProcessAgentParallelRunner::close_workers() {
  if (start_method_.empty()) return;  // not set up: it has no workers
  const std::string key = WorkerPoolKey();
  WorkerPool::Get().Shutdown(&key);
}

void MultiProcessAgentParallelRunner::on_run_start() {
  if (is_replica()) return;
  tasks_here_ = worker_timeout_ == 0 && rounds_while_workers_start_ &&
                main_process_runs_tasks_.value_or(true) && prepare_main_process();
  // Nothing can run in parallel (the warning of configure() said so): every
  // round has one task, which runs here, prepared as a worker. Or no round
  // has a task for a worker (every agent is built in or batches its model
  // calls): a worker started anyway would only cost its start (a second
  // TensorFlow importing beside this one).
  if ((concurrency() == 1 && tasks_here_) || !AgentsNeedWorkers()) return;
  journal_ = std::make_unique<SimulationJournal>();
  SimulationJournal::Attach(&simulator(), journal_.get());
  WorkerInit init;
  init.settings_json = settings().dump();
  init.runner_class = class_name();
  init.prng_state = initial_prng_state();
  init.plugins = registry().plugin_paths();
  init.config_directory = simulator().config_directory();
  init.host_payload = host_payload_;
  init.nice = worker_nice_;
  // Once a run, not a round: it asks the kernel.
  max_helpers_ = AllowedCpus().size() - 1;
  if (KeepsWorkers()) workers_ = WorkerPool::Get().Take(WorkerPoolKey());
  if (workers_ == nullptr) {
    workers_ = std::make_unique<Workers>();
    workers_->set_cpus(worker_cpus_);
    workers_->set_program(worker_program_, worker_argv_, worker_starter_);
  }
  // While this process runs tasks and the calls keep the CPUs busy, at
  // most CPUs - 1 workers take part in a round beside it (RunRound):
  // starting more only slows its rounds (on 2 CPUs, a second interpreter
  // importing TensorFlow for seconds). They start once calls turn out to
  // wait off the CPUs. Forked workers start in milliseconds (and a
  // starter serves one start): all at once.
  size_t want = static_cast<size_t>(concurrency());
  if (tasks_here_ && start_method_ != "fork" && !workers_->calls_wait()) {
    want = std::min(want, std::max<size_t>(max_helpers_, 1));
  }
  if (workers_->workers().size() < want) {
    workers_->Start(start_method_, want - workers_->workers().size(), &registry());
  }
  workers_->set_start_hint(worker_start_hint_);
  workers_->BeginRun(init, worker_start_timeout_, [this] { return StopRequested(); });
  if (dispatch_ == nullptr) dispatch_ = std::make_unique<Dispatch>(this);
  dispatch_->BeginRun(simulator().agents().size());
}

void MultiProcessAgentParallelRunner::on_run_end() {
  if (workers_) {
    workers_->PrintStats();
    if (std::getenv("PAMS_WORKER_STATS") != nullptr) {
      const RoundTimes& t = round_times_;
      std::fprintf(stderr,
                   "# ROUNDS %zu with workers' tasks; tasks %zu here, %zu in workers; "
                   "%.3f s in those rounds: %.3f s sending, %.3f s reading, %.3f s "
                   "running here, %.3f s waiting\n",
                   t.rounds, t.local_tasks, t.remote_tasks, t.round_seconds,
                   t.send_seconds, t.read_seconds, t.here_seconds, t.wait_seconds);
    }
    // A stopped run's workers go with it (Ctrl-C stops everything).
    if (KeepsWorkers() && !StopRequested() && workers_->healthy()) {
      workers_->EndRun();
      WorkerPool::Get().Keep(WorkerPoolKey(), std::move(workers_), worker_idle_timeout_);
    } else {
      workers_->Stop();
    }
  }
  workers_.reset();
  if (dispatch_ != nullptr) dispatch_->EndRun();
  round_times_ = RoundTimes{};
  here_busy_seconds_ = here_wall_seconds_ = 0;
  unmeasured_calls_ = 0;
  SimulationJournal::Attach(&simulator(), nullptr);
  journal_.reset();
}

void MultiProcessAgentParallelRunner::on_step_end() {
  if (journal_ == nullptr || journal_->size() < kSyncBytes || !JournalMayShrink()) return;
  // Rounds of one task, which run here, never look for ready workers.
  if (workers_->ready_count() < workers_->workers().size()) workers_->AwaitReady(0);
  // Some worker has had no task for a while: bring every lagging one up to
  // date (a kSync message has no reply), then forget what all of them have.
  const uint64_t end = journal_->end();
  std::string payload;
  uint64_t oldest = end;
  for (auto& worker : workers_->workers()) {
    // A worker still building its replica reads nothing yet: it gets all
    // it missed with its first task.
    if (!worker.ready) {
      oldest = std::min(oldest, worker.synced);
      continue;
    }
    if (worker.synced == end) continue;
    payload.clear();
    StateWriter out(&payload);
    out.write_string(journal_->since(worker.synced));
    worker.synced = end;
    // A worker that is gone is reported when its next task is awaited.
    if (worker.channel.Send(MessageType::kSync, payload, worker_timeout_,
                            [this] { return StopRequested(); }) ==
        Channel::Status::kInterrupted) {
      workers_->Kill();
      throw SimulationError("interrupted at step " + std::to_string(simulator().time()));
    }
  }
  journal_->discard_before(oldest);
}

bool MultiProcessAgentParallelRunner::AgentsNeedWorkers() {
  for (const Agent* agent : simulator().normal_frequency_agents()) {
    if (!agent->has_cheap_submit_orders() && !batches_calls_of(*agent)) return true;
  }
  return false;
}

bool MultiProcessAgentParallelRunner::JournalMayShrink() const {
  // Until this process has run kWaitSampleSeconds of calls it cannot tell
  // whether they wait off the CPUs, and the workers that answer may start
  // build their replicas from the run's start (StartWorkersForWaitingCalls):
  // the journal stays whole until then, so that the answer does not depend
  // on how fast the first worker happened to start. Calls so short that the
  // journal outgrows kWholeJournalBytes first keep the CPUs busy anyway.
  if (!tasks_here_ || workers_->calls_wait() ||
      workers_->workers().size() >= static_cast<size_t>(concurrency())) {
    return true;
  }
  return here_wall_seconds_ >= kWaitSampleSeconds || journal_->size() >= kWholeJournalBytes;
}

void MultiProcessAgentParallelRunner::StartWorkersForWaitingCalls() {
  const size_t started = workers_->workers().size();
  if (workers_->calls_wait() || started >= static_cast<size_t>(concurrency())) return;
  workers_->set_calls_wait();
  // A worker builds its replica from the run's start and the whole journal
  // since; once some of it is discarded, the rest start with the next run
  // of this set (calls_wait).
  if (journal_->begin() == 0) {
    workers_->Start(start_method_, concurrency() - started, &registry());
  }
}

// --- Rounds ---

void MultiProcessAgentParallelRunner::RunRound(std::span<Agent* const> agents,
                                               std::vector<TaskResult>* results) {
  // Which tasks run here and which in workers (results do not depend on
  // where a task runs, since this process's agents and markets are what
  // the replicas copy). The built-in agents' calls always run here: they
  // are engine code, and take microseconds, less than handing them to a
  // worker. Calls of other agents (user code) run here only when this
  // process is prepared as the workers are and may (tasks_here_): a
  // round's lone call to a worker (nothing to run beside it), and every
  // call while no worker is ready.
  local_.clear();
  remote_.clear();
  for (size_t i = 0; i < agents.size(); ++i) {
    const bool here = workers_ == nullptr || agents[i]->has_cheap_submit_orders();
    (here ? local_ : remote_).push_back(i);
  }
  if (remote_.size() == 1 && tasks_here_) {
    local_.push_back(remote_.front());
    remote_.clear();
  }
  // A failed round changes no agent, as in PAMS's process runner: the
  // agents that ran here are put back as they were before the round (their
  // states saved first), and the changes workers sent are applied only once
  // every task of the round succeeded. A round of built-in agents only
  // (whose calls fail only on an engine error, and take about as long as
  // saving a state) saves none.
  snapshots_.resize(agents.size());
  ran_here_.clear();
  save_states_ = std::any_of(agents.begin(), agents.end(),
                             [](const Agent* a) { return !a->has_cheap_submit_orders(); });
  round_times_.local_tasks += local_.size();
  if (remote_.empty()) {
    if (!RunHere(agents, local_, results)) UndoHere(agents);
    return;
  }
  // Workers beyond those CPU-bound calls can use start for calls that
  // clearly wait off the CPUs: starting processes costs more than using
  // those there. (BusySeconds counts the time a call waited for a CPU as
  // busy: on a loaded machine a CPU-bound call spends most of its wall time
  // so, which more workers would not shorten.)
  if (tasks_here_ && here_wall_seconds_ >= kWaitSampleSeconds &&
      here_busy_seconds_ < 0.25 * here_wall_seconds_) {
    StartWorkersForWaitingCalls();
  }
  if (workers_->ready_count() < workers_->workers().size()) {
    // Unless this process runs rounds while they start: every worker
    // before the first round, as PAMS's runner starts them.
    workers_->AwaitReady(tasks_here_ ? 0 : workers_->workers().size());
  }
  if (workers_->ready_count() == 0 && RunUntilAWorkerIsReady(agents, results)) return;
  RunWithWorkers(agents, results);
  if (!JournalMayShrink()) return;
  uint64_t oldest = journal_->end();
  for (const auto& worker : workers_->workers()) oldest = std::min(oldest, worker.synced);
  journal_->discard_before(oldest);
}

bool MultiProcessAgentParallelRunner::RunHere(std::span<Agent* const> agents,
                                              std::vector<size_t>& which,
                                              std::vector<TaskResult>* results) {
  // In round order, up to the first error, which stops the run as it
  // would in SequentialRunner (a KeyboardInterrupt in a Python agent too:
  // the next call must not start).
  std::sort(which.begin(), which.end());
  for (size_t i : which) {
    TaskResult& r = (*results)[i];
    if (save_states_) {
      snapshots_[i].clear();
      agents[i]->serialize_state(&snapshots_[i]);
      ran_here_.push_back(i);
    }
    // Every costly call until the first kWaitSampleSeconds of them are
    // measured, then one in 16: measuring takes syscalls worth tens of
    // microseconds, as long as a built-in-like call itself.
    const bool measured = !agents[i]->has_cheap_submit_orders() &&
                          (here_wall_seconds_ < kWaitSampleSeconds ||
                           ++unmeasured_calls_ % 16 == 0);
    const double busy_before = measured ? BusySeconds() : 0;
    const double wall_before = measured ? MonotonicSeconds() : 0;
    RunAgentTask(agents[i], markets(), &r.actions, &r.error, &r.warnings, &r.host_error);
    if (measured) {
      here_busy_seconds_ += BusySeconds() - busy_before;
      here_wall_seconds_ += MonotonicSeconds() - wall_before;
    }
    if (!r.error.empty() || StopRequested()) return false;
  }
  return true;
}

void MultiProcessAgentParallelRunner::UndoHere(std::span<Agent* const> agents) {
  for (size_t i : ran_here_) agents[i]->deserialize_state(snapshots_[i]);
  ran_here_.clear();
}

bool MultiProcessAgentParallelRunner::RunUntilAWorkerIsReady(std::span<Agent* const> agents,
                                                             std::vector<TaskResult>* results) {
  // This process runs the round's tasks in round order, looking again
  // after each costly one, and hands the rest over as soon as a worker is
  // ready. A forked worker is ready within milliseconds and a Python call
  // may take far longer: running whole rounds here made 5 rounds of three
  // 0.2 s calls take 2.2 s instead of 1.0 s (PAMS's
  // test_parallel_efficiency).
  std::vector<size_t> order = local_;
  order.insert(order.end(), remote_.begin(), remote_.end());
  std::sort(order.begin(), order.end());
  size_t k = 0;
  while (k < order.size() && workers_->ready_count() == 0) {
    std::vector<size_t> one{order[k]};
    const bool costly = !agents[order[k]]->has_cheap_submit_orders();
    ++k;
    if (!RunHere(agents, one, results)) {
      UndoHere(agents);
      return true;
    }
    if (costly) {
      ++round_times_.local_tasks;
      workers_->AwaitReady(0);
    }
  }
  local_.clear();
  remote_.clear();
  for (; k < order.size(); ++k) {
    (agents[order[k]]->has_cheap_submit_orders() ? local_ : remote_).push_back(order[k]);
  }
  if (remote_.size() > 1) return false;
  round_times_.local_tasks += remote_.size();
  local_.insert(local_.end(), remote_.begin(), remote_.end());
  if (!RunHere(agents, local_, results)) UndoHere(agents);
  return true;
}

void MultiProcessAgentParallelRunner::RunWithWorkers(std::span<Agent* const> agents,
                                                     std::vector<TaskResult>* results) {
  // The main process works as one more worker, as the thread runner's
  // calling thread does, and at most as many take part as there are CPUs:
  // the main process and up to CPUs - 1 workers. On 2 CPUs, two
  // TensorFlow workers and the main process calling Keras at once were
  // slower than two of them. Calls that spent at least half their time off
  // the CPUs (measured on those run here) leave them free: every ready
  // worker takes part.
  size_t helpers = workers_->ready_count();
  if (tasks_here_ && here_busy_seconds_ >= 0.5 * here_wall_seconds_) {
    helpers = std::min(helpers, max_helpers_);
  }
  Dispatch& d = *dispatch_;
  const double round_start = MonotonicSeconds();
  d.BeginRound(agents, remote_, helpers, results);
  // This process's own tasks (the built-in agents'), while the workers run
  // theirs; then, if it may, chunks of the rest, reading what the workers
  // sent between them.
  double start = MonotonicSeconds();
  bool succeeded = RunHere(agents, local_, results);
  round_times_.here_seconds += MonotonicSeconds() - start;
  MessageType type = MessageType::kResults;
  Channel::Status status = Channel::Status::kOk;
  for (;;) {
    size_t w;
    while (d.running > 0 &&
           (w = workers_->WaitAny(worker_timeout_, &type, &d.payload, &status,
                                  /*wait=*/false)) != SIZE_MAX) {
      if (status != Channel::Status::kOk) d.Fail(w, status);
      d.Receive(w, type, d.payload);
      d.TopUp(w);
    }
    if (tasks_here_ && succeeded && d.queues.left() > 0 && !StopRequested()) {
      start = MonotonicSeconds();
      d.queues.TakeHere(&d.chunk);
      round_times_.local_tasks += d.chunk.size();
      round_times_.remote_tasks -= d.chunk.size();
      succeeded = RunHere(agents, d.chunk, results);
      round_times_.here_seconds += MonotonicSeconds() - start;
      continue;
    }
    if (d.running == 0) break;
    start = MonotonicSeconds();
    w = workers_->WaitAny(worker_timeout_, &type, &d.payload, &status);
    round_times_.wait_seconds += MonotonicSeconds() - start;
    if (status != Channel::Status::kOk) d.Fail(w, status);
    d.Receive(w, type, d.payload);
    d.TopUp(w);
  }
  for (size_t i : remote_) succeeded = succeeded && (*results)[i].error.empty();
  succeeded = succeeded && !StopRequested();
  if (!succeeded) UndoHere(agents);
  d.EndRound(succeeded);
  round_times_.round_seconds += MonotonicSeconds() - round_start;
}

// --- Dispatch ---

void MultiProcessAgentParallelRunner::Dispatch::BeginRun(size_t agents) {
  holder.assign(agents, -1);
  mark.assign(agents, AgentMark{});
  extra.assign(agents, std::string());
  extra_bytes = 0;
  queues.ResetCost();
}

void MultiProcessAgentParallelRunner::Dispatch::EndRun() {
  holder.clear();
  mark.clear();
  extra.clear();
  extra.shrink_to_fit();
  extra_bytes = 0;
}

void MultiProcessAgentParallelRunner::Dispatch::BeginRound(std::span<Agent* const> round,
                                                           const std::vector<size_t>& tasks,
                                                           size_t helpers,
                                                           std::vector<TaskResult>* out) {
  agents = round;
  results = out;
  remote = &tasks;
  auto& workers = runner->workers_->workers();
  takers.clear();
  place.assign(workers.size(), SIZE_MAX);
  for (size_t w = 0; w < workers.size() && takers.size() < helpers; ++w) {
    if (!workers[w].ready) continue;
    place[w] = takers.size();
    takers.push_back(w);
  }
  round_holders.clear();
  for (size_t i : tasks) {
    const int h = holder[agents[i]->agent_id()];
    round_holders.push_back(h >= 0 && place[h] != SIZE_MAX ? static_cast<int>(place[h]) : -1);
  }
  queues.Begin(tasks, round_holders, takers.size(), runner->tasks_here_);
  gone.assign(workers.size(), 0);
  running = 0;
  ran_on.assign(agents.size(), -1);
  sent_extra.resize(agents.size());
  changes.resize(agents.size());
  runner->round_times_.remote_tasks += tasks.size();
  ++runner->round_times_.rounds;
  // A chunk to each, then a second to each: with fewer tasks than twice
  // the workers, every worker still gets some.
  for (size_t depth = 1; depth <= kQueuedChunks; ++depth) {
    for (size_t w : takers) TopUp(w, depth);
  }
}

void MultiProcessAgentParallelRunner::Dispatch::TopUp(size_t w, size_t depth) {
  // Two chunks ahead, a worker starts the next as soon as it has sent a
  // chunk's results, without waiting for this process to read them.
  auto& workers = runner->workers_->workers();
  while (!gone[w] && workers[w].chunks.size() < depth && queues.left() > 0 &&
         !runner->StopRequested()) {
    Send(w);
  }
}

void MultiProcessAgentParallelRunner::Dispatch::Send(size_t w) {
  const double sent_at = MonotonicSeconds();
  Workers::Worker& worker = runner->workers_->workers()[w];
  queues.TakeForWorker(place[w], &chunk);
  payload.clear();
  StateWriter out(&payload);
  out.write_string(runner->journal_->since(worker.synced));
  out.write(static_cast<uint32_t>(chunk.size()));
  for (size_t i : chunk) {
    // No state when w's replica has the agent as it is, else whole.
    const Agent& agent = *agents[i];
    const int id = agent.agent_id();
    TaskHeader task;
    task.agent_id = id;
    task.state = TaskHeader::kWholeState;
    std::string& state = sent_extra[i];
    state.clear();
    if (MayKeep(agent)) {
      StateWriter e(&state);
      agent.save_state(e);
      if (holder[id] == static_cast<int>(w) && MarkOf(agent) == mark[id] && state == extra[id]) {
        task.state = TaskHeader::kCurrentState;
      }
    }
    out.write(task);
    if (task.state == TaskHeader::kWholeState) {
      scratch.clear();
      agent.serialize_state(&scratch);
      out.write_string(scratch);
    }
    ran_on[i] = static_cast<int>(w);
    worker.tasks.push_back(i);
  }
  worker.chunks.push_back(chunk.size());
  worker.synced = runner->journal_->end();
  ++running;
  // The worker may be busy with its previous chunk and its socket full:
  // Send waits (reading what the worker sends meanwhile), as long as the
  // answer may take. A worker that is gone is reported when its answer
  // is awaited (it may have said why before it went).
  const Channel::Status s = worker.channel.Send(MessageType::kTasks, payload,
                                                runner->worker_timeout_,
                                                [this] { return runner->StopRequested(); });
  if (s == Channel::Status::kInterrupted || s == Channel::Status::kTimeout) Fail(w, s);
  runner->round_times_.send_seconds += MonotonicSeconds() - sent_at;
}

void MultiProcessAgentParallelRunner::Dispatch::Receive(size_t w, MessageType type,
                                                        const std::string& message) {
  const double read_at = MonotonicSeconds();
  Workers::Worker& worker = runner->workers_->workers()[w];
  const size_t n = worker.chunks.front();
  worker.chunks.pop_front();
  --running;
  if (type == MessageType::kError) {
    // The worker could not run the chunk at all (e.g. its replica failed)
    // and has exited: its other chunks fail alike.
    TaskResult& result = (*results)[worker.tasks.front()];
    DecodeWorkerError(message, &result.error, &result.host_error);
    for (size_t j : worker.tasks) (*results)[j].error = result.error;
    gone[w] = 1;
    running -= worker.chunks.size();
    worker.tasks.clear();
    worker.chunks.clear();
    return;
  }
  StateReader in(message);
  const auto header = in.read<ChunkResultsHeader>();
  if (header.done > n) {
    throw SimulationError("worker process " + std::to_string(w) +
                          " answered for more tasks than it got");
  }
  queues.Measured(header.done, header.seconds);
  for (size_t k = 0; k < n; ++k) {
    const size_t i = worker.tasks.front();
    worker.tasks.pop_front();
    if (k >= header.done) {  // after a failed task: not run
      ran_on[i] = -1;
      continue;
    }
    TaskResult& result = (*results)[i];
    ReadTaskOutcome(in, &result.error, &result.host_error, &result.warnings);
    if (!result.error.empty()) continue;
    ReadActions(in, &result.actions);
    changes[i].assign(ReadCallChange(in));
  }
  runner->round_times_.read_seconds += MonotonicSeconds() - read_at;
}

void MultiProcessAgentParallelRunner::Dispatch::Fail(size_t w, Channel::Status s) {
  // Workers are killed at once, since some may be inside long calls.
  runner->UndoHere(agents);
  const int64_t step = runner->simulator().time();
  Workers& workers = *runner->workers_;
  if (s == Channel::Status::kInterrupted) {
    workers.Kill();
    throw SimulationError("interrupted at step " + std::to_string(step));
  }
  const std::deque<size_t>& tasks = workers.workers()[w].tasks;
  const Agent* agent = agents[tasks.front()];
  if (const std::optional<int> id = workers.RunningAgent(w)) {
    for (size_t i : tasks) {
      if (agents[i]->agent_id() == *id) agent = agents[i];
    }
  }
  std::string message = "worker process " + std::to_string(w) + " running agent " +
                        agent->name() + " (" + agent->class_name() + ") at step " +
                        std::to_string(step) +
                        " failed: " + workers.Failure(w, s, runner->worker_timeout_);
  workers.Kill();
  // A signal that stopped the worker may be this process's to handle too
  // (SIGTERM or SIGINT to the process group): that is the reason to give.
  if (runner->StopRequested(/*now=*/true)) {
    throw SimulationError("interrupted at step " + std::to_string(step));
  }
  throw SimulationError(message);
}

void MultiProcessAgentParallelRunner::Dispatch::EndRound(bool succeeded) {
  if (!succeeded) {
    // The workers' replicas may have moved on from these agents.
    for (size_t i : *remote) holder[agents[i]->agent_id()] = -1;
    return;
  }
  for (size_t i : *remote) {
    if (ran_on[i] < 0) continue;
    bool extra_changed = false;
    ApplyCallChange(changes[i], agents[i], &extra_changed, &scratch);
    if (MayKeep(*agents[i])) {
      Held(agents[i]->agent_id(), ran_on[i], *agents[i],
           extra_changed ? &scratch : &sent_extra[i]);
    }
  }
}

void MultiProcessAgentParallelRunner::Dispatch::Held(int id, int w, const Agent& agent,
                                                     std::string* state) {
  extra_bytes -= extra[id].size();
  if (extra_bytes + state->size() > kKeptStateBytes) {
    holder[id] = -1;
    extra[id].clear();
    return;
  }
  holder[id] = w;
  mark[id] = MarkOf(agent);
  extra[id].swap(*state);
  extra_bytes += extra[id].size();
}

}  // namespace pams
