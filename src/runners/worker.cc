// The worker side of the multi-process runners: InitWorkerProcess, the
// worker loop and the forkserver.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "runners/call_change.h"
#include "runners/agent_task.h"
#include "runners/channel.h"
#include "runners/cpu_affinity.h"
#include "runners/host_error.h"
#include "runners/runner_access.h"
#include "runners/worker_progress.h"
#include "pams/config/json.h"
#include "pams/errors.h"
#include "simulator/simulation_journal.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/parallel_runners.h"
#include "pams/runners/runner.h"
#include "pams/runners/worker.h"
#include "pams/util/state.h"
#include "market/wire.h"
#include "runners/worker_protocol.h"

namespace pams {

namespace {

// Set once by InitWorkerProcess, at the start of main, before any thread
// exists; read-only afterwards.
bool g_initialized = false;
RegisterClassesFn g_register_classes = nullptr;

std::optional<int> FdFromEnv(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  const int fd = std::atoi(v);
  unsetenv(name);  // programs the worker starts are not workers
  return fd;
}

}  // namespace

void InitWorkerProcess(int /*argc*/, char** /*argv*/,
                       RegisterClassesFn register_classes) {
  g_initialized = true;
  g_register_classes = register_classes;
  if (std::optional<int> fd = FdFromEnv("PAMS_WORKER_FD")) {
    BecomeWorkerProcess();
    RunWorker(*fd, nullptr);
  }
  if (std::optional<int> fd = FdFromEnv("PAMS_FORKSERVER_FD")) {
    BecomeWorkerProcess();
    RunForkServer(*fd);
  }
}

bool WorkerProcessesInitialized() { return g_initialized; }
RegisterClassesFn ProgramClassRegistration() { return g_register_classes; }

void BecomeWorkerProcess() {
  // A worker is stopped by its main process (which stops the run on a
  // signal and then shuts the workers down) and dies with it
  // (PR_SET_PDEATHSIG). So the signals that reach the whole process group
  // (Ctrl-C's SIGINT, a closed terminal's SIGHUP) are ignored here, a closed
  // channel is an EPIPE, not a SIGPIPE, and SIGTERM, sent to a worker
  // alone, ends it. Handlers inherited from the main process (fork, the
  // forkserver) are reset, and signals blocked by the thread that forked
  // are unblocked.
  signal(SIGINT, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGTERM, SIG_DFL);
  signal(SIGQUIT, SIG_DFL);
  signal(SIGALRM, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) _exit(0);  // the parent died before prctl
}

int KeepOnlyDescriptor(int fd) {
  constexpr int kFd = 3;
  if (fd != kFd) {
    if (dup2(fd, kFd) < 0) _exit(127);
  } else {
    fcntl(kFd, F_SETFD, 0);
  }
  close_range(kFd + 1, ~0U, 0);
  return kFd;
}

std::string WorkerInit::Encode() const {
  std::string out;
  StateWriter w(&out);
  w.write_string(settings_json);
  w.write_string(runner_class);
  w.write(prng_state);
  w.write<uint64_t>(plugins.size());
  for (const std::string& p : plugins) w.write_string(p);
  w.write_string(config_directory);
  w.write(worker_index);
  w.write<uint64_t>(cpus.size());
  for (int cpu : cpus) w.write(cpu);
  w.write_string(host_payload);
  w.write(run_id);
  w.write(nice);
  return out;
}

WorkerInit WorkerInit::Decode(const std::string& bytes) {
  StateReader r(bytes);
  WorkerInit init;
  init.settings_json = r.read_string();
  init.runner_class = r.read_string();
  init.prng_state = r.read<Random::State>();
  const uint64_t n = r.read<uint64_t>();
  for (uint64_t i = 0; i < n; ++i) init.plugins.push_back(r.read_string());
  init.config_directory = r.read_string();
  init.worker_index = r.read<int>();
  const uint64_t cpus = r.read<uint64_t>();
  for (uint64_t i = 0; i < cpus; ++i) init.cpus.push_back(r.read<int>());
  init.host_payload = r.read_string();
  init.run_id = r.read<uint64_t>();
  init.nice = r.read<int>();
  return init;
}

std::string WorkerReady::Encode() const {
  std::string out;
  StateWriter w(&out);
  w.write(run_id);
  w.write_string(progress_page);
  return out;
}

WorkerReady WorkerReady::Decode(const std::string& bytes) {
  StateReader r(bytes);
  WorkerReady ready;
  ready.run_id = r.read<uint64_t>();
  ready.progress_page = r.read_string();
  return ready;
}

[[noreturn]] void RunWorker(int fd, const ClassRegistry* inherited) {
  // The replica: the same runner class, config and seed, no logger.
  std::unique_ptr<ClassRegistry> own_registry;
  std::unique_ptr<Runner> runner;
  ServeWorker(fd, [&](const WorkerInit& init, bool first) -> Runner* {
    runner.reset();  // the previous run's
    const ClassRegistry* registry = inherited;
    if (registry == nullptr) {
      if (own_registry == nullptr) {
        own_registry = std::make_unique<ClassRegistry>(ClassRegistry::WithBuiltins());
        if (g_register_classes != nullptr) g_register_classes(own_registry.get());
        for (const std::string& plugin : init.plugins) {
          LoadPlugin(plugin, own_registry.get());
        }
      }
      registry = own_registry.get();
    }
    Random prng;
    prng.setstate(init.prng_state);
    runner = registry->create_runner(
        init.runner_class,
        RunnerSetUp{ParseJson(init.settings_json, "config"), std::move(prng), nullptr,
                    init.config_directory, {}},
        "runner");
    internal::RunnerAccess::SetReplica(runner.get());
    runner->setup();
    if (first) {
      if (auto* process = dynamic_cast<MultiProcessAgentParallelRunner*>(runner.get())) {
        process->prepare_worker_process();
      }
      runner->worker_initializer();
    }
    return runner.get();
  });
}

namespace {

// Runs chunks of tasks on a replica (see worker_protocol.h).
class ChunkRunner {
 public:
  ChunkRunner(Simulator* simulator, WorkerProgress* progress)
      : simulator_(simulator), markets_(simulator->markets()), progress_(progress) {}
  ChunkRunner(const ChunkRunner&) = delete;
  ChunkRunner& operator=(const ChunkRunner&) = delete;

  // Runs the chunk that r holds (after the journal) and writes its results
  // (kResults) to *reply. Returns the number of tasks run. Throws when the
  // replica cannot follow.
  size_t Run(StateReader& r, std::string* reply) {
    const double start = MonotonicSeconds();
    const uint32_t n = r.read<uint32_t>();
    reply->clear();
    StateWriter w(reply);
    ChunkResultsHeader header;
    w.write(header);  // filled in below
    while (header.done < n) {
      Agent& agent = LoadAgent(r);
      if (progress_ != nullptr) progress_->set(agent.agent_id());
      BeginCall(agent, &call_start_);
      result_.Clear();
      RunAgentTask(&agent, markets_, &result_.actions, &result_.error, &result_.warnings,
                   &result_.host_error);
      ++header.done;
      WriteTaskOutcome(result_.error, result_.host_error, result_.warnings, w);
      // The main process reports the round's first error, in round order,
      // and a chunk is in round order: what follows an error here would
      // not be used.
      if (!result_.error.empty()) break;
      WriteActions(result_.actions, w);
      WriteCallChange(agent, call_start_, &buffers_, w);
    }
    if (progress_ != nullptr) progress_->set(-1);
    header.seconds = MonotonicSeconds() - start;
    std::memcpy(reply->data(), &header, sizeof header);
    return header.done;
  }

 private:
  // The task's agent, its state loaded unless the replica has it as it is.
  Agent& LoadAgent(StateReader& r) {
    const TaskHeader task = r.read<TaskHeader>();
    if (task.agent_id < 0 || static_cast<size_t>(task.agent_id) >= simulator_->agents().size()) {
      throw SimulationError("task for agent " + std::to_string(task.agent_id) +
                            ", which the replica lacks");
    }
    Agent& agent = simulator_->agent(task.agent_id);
    if (task.state == TaskHeader::kWholeState) {
      agent.deserialize_state(r.read_string_view());
    } else if (task.state != TaskHeader::kCurrentState) {
      throw SimulationError("unknown task state");
    }
    return agent;
  }

  Simulator* simulator_;
  const Markets markets_;
  WorkerProgress* progress_;
  AgentTaskResult result_;
  CallStart call_start_;
  CallBuffers buffers_;
};

// Serves the tasks of one run on `runner`'s replica until the main process
// ends the run (kEndRun: returns); exits the process when the main process
// says so or goes away, or when the replica cannot follow it. `progress`
// (may be null) shows the main process which agent is being called.
void ServeRun(Channel& channel, Runner* runner, WorkerProgress* progress) {
  Simulator& simulator = runner->simulator();
  ChunkRunner chunk_runner(&simulator, progress);
  std::string reply;
  MessageType type;
  std::string payload;
  // With PAMS_WORKER_STATS set, where this run's time went, printed when
  // the run ends (for tuning: what a task costs beyond the agent's call).
  const bool stats = std::getenv("PAMS_WORKER_STATS") != nullptr;
  size_t tasks = 0;
  size_t chunks = 0;
  double waiting = 0, replaying = 0, working = 0, sending = 0;
  double mark = MonotonicSeconds();
  auto lap = [&](double* into) {
    if (!stats) return;
    const double now = MonotonicSeconds();
    *into += now - mark;
    mark = now;
  };
  for (;;) {
    lap(&sending);  // the previous chunk's results, sent
    if (channel.Receive(&type, &payload) != Channel::Status::kOk) _exit(0);
    // The main process has opened the page by now (it read kReady first).
    if (progress != nullptr) progress->Unlink();
    lap(&waiting);
    if (type == MessageType::kShutdown || type == MessageType::kEndRun) {
      if (stats) {
        std::fprintf(stderr,
                     "# WORKER pid %d run: %zu tasks in %zu chunks; %.3f s waiting, %.3f s "
                     "replaying, %.3f s running tasks (states and calls), %.3f s sending\n",
                     static_cast<int>(getpid()), tasks, chunks, waiting, replaying, working,
                     sending);
      }
      if (type == MessageType::kShutdown) _exit(0);
      return;
    }
    try {
      StateReader r(payload);
      SimulationJournal::Replay(r.read_string_view(), &simulator);
      lap(&replaying);
      if (type == MessageType::kSync) continue;
      if (type != MessageType::kTasks) throw SimulationError("unexpected message");
      tasks += chunk_runner.Run(r, &reply);
      ++chunks;
      lap(&working);
      if (channel.Send(MessageType::kResults, reply) != Channel::Status::kOk) _exit(0);
    } catch (const std::exception& e) {
      // The replica could not follow the main process (a journal it could not
      // apply, a state it could not load): nothing sensible can follow.
      const auto* host = dynamic_cast<const HostError*>(&e);
      channel.Send(MessageType::kError,
                   EncodeWorkerError(std::string("the worker's replica failed: ") + e.what(),
                                     host != nullptr ? host->payload() : std::string()));
      _exit(1);
    }
  }
}

}  // namespace

[[noreturn]] void ServeWorker(int fd, const ReplicaBuilder& build) {
  Channel channel(fd);
  MessageType type;
  std::string payload;
  std::unique_ptr<WorkerProgress> progress;
  for (bool first = true;; first = false) {
    // Between runs a kept worker waits here, for as long as the main
    // process keeps it.
    if (channel.Receive(&type, &payload) != Channel::Status::kOk) _exit(0);
    if (type == MessageType::kShutdown) _exit(0);
    if (type != MessageType::kInit) _exit(3);
    Runner* runner = nullptr;
    uint64_t run_id = 0;
    try {
      const WorkerInit init = WorkerInit::Decode(payload);
      run_id = init.run_id;
      // Lower than the main process (simulation.workerNice): once for
      // good, since an unprivileged process cannot raise it again.
      if (first && init.nice > 0) {
        errno = 0;
        if (nice(init.nice) == -1 && errno != 0) {
          throw SimulationError(std::string("simulation.workerNice: ") + std::strerror(errno));
        }
      }
      runner = build(init, first);
      // Pinned once started, not before: a worker pinned while it starts
      // (importing a framework: seconds of CPU) shares its CPU with the
      // main process and slows the rounds it runs meanwhile; unpinned, the
      // scheduler runs the starting workers on the other CPUs.
      // PinProcess pins the threads the start made too (a framework's
      // pools); kept workers serve runs of the same CPUs.
      if (first && !init.cpus.empty()) {
        const std::string error = PinProcess(init.cpus);
        if (!error.empty()) {
          throw SimulationError("simulation.workerCpuAffinity: " + error);
        }
      }
    } catch (const HostError& e) {
      channel.Send(MessageType::kError, EncodeWorkerError(e.what(), e.payload()));
      _exit(1);
    } catch (const std::exception& e) {
      channel.Send(MessageType::kError, EncodeWorkerError(e.what(), {}));
      _exit(1);
    }
    if (first) progress = WorkerProgress::Create();
    WorkerReady ready;
    ready.run_id = run_id;
    if (progress != nullptr) ready.progress_page = progress->name();
    if (channel.Send(MessageType::kReady, ready.Encode()) != Channel::Status::kOk) _exit(0);
    ServeRun(channel, runner, progress.get());
  }
}

// --- The forkserver ---
//
// Requests on its socket: 'F' with a descriptor attached (SCM_RIGHTS): fork a
// worker serving that descriptor, reply with its pid; 'W' + pid: wait for
// that worker (at most 2 s) and reply with its wait status (-1: unknown).

[[noreturn]] void RunForkServer(int fd, const std::function<void(int fd)>& serve) {
  for (;;) {
    char op = 0;
    char control[CMSG_SPACE(sizeof(int))];
    iovec iov{&op, 1};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = recvmsg(fd, &msg, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (op == 'F') {
      int passed = -1;
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
          std::memcpy(&passed, CMSG_DATA(c), sizeof passed);
        }
      }
      int32_t pid = -1;
      if (passed >= 0) {
        const pid_t child = fork();
        if (child == 0) {
          BecomeWorkerProcess();
          if (serve) {
            serve(KeepOnlyDescriptor(passed));
            _exit(0);
          }
          RunWorker(KeepOnlyDescriptor(passed), nullptr);
        }
        close(passed);
        pid = child;
      }
      if (write(fd, &pid, sizeof pid) != sizeof pid) break;
    } else if (op == 'W') {
      int32_t pid = 0;
      if (read(fd, &pid, sizeof pid) != sizeof pid) break;
      int32_t status = -1;
      for (int i = 0; i < 200; ++i) {
        int st = 0;
        const pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
          status = st;
          break;
        }
        if (r < 0) break;
        usleep(10000);
      }
      if (write(fd, &status, sizeof status) != sizeof status) break;
    }
  }
  // The runner is gone: its workers see their sockets close and exit.
  while (wait(nullptr) > 0) {
  }
  _exit(0);
}

}  // namespace pams
