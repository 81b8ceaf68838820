// The workers of a sweep (see sweep_workers.h).

#include "sweep_workers.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace pams::cli {

namespace {

// How long Close waits for idle workers to exit before killing them.
constexpr auto kCloseGrace = std::chrono::seconds(10);

}  // namespace

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return fmt::format("killed by signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  }
  return fmt::format("wait status {}", status);
}

SignalFd::SignalFd(bool children) {
  sigemptyset(&all_);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (sig == SIGTERM || old.sa_handler != SIG_IGN) sigaddset(&all_, sig);
  }
  if (children) sigaddset(&all_, SIGCHLD);
  sigprocmask(SIG_BLOCK, &all_, &old_);
  fd_ = signalfd(-1, &all_, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd_ < 0) {
    const int error = errno;
    sigprocmask(SIG_SETMASK, &old_, nullptr);
    throw std::system_error(error, std::generic_category(), "signalfd");
  }
}

SignalFd::~SignalFd() {
  // Take what is pending (ignored anyway) so that restoring the mask
  // delivers nothing stale.
  bool child = false;
  Take(&child);
  close(fd_);
  sigprocmask(SIG_SETMASK, &old_, nullptr);
}

int SignalFd::Take(bool* child) {
  int stop = 0;
  signalfd_siginfo info;
  while (read(fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    const int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGCHLD) {
      *child = true;
    } else if (stop == 0) {
      stop = sig;
    }
  }
  return stop;
}

LocalWorkers::LocalWorkers(int size, WorkerContext context, std::string out_dir,
                           int lock_fd, SignalFd* signals)
    : workers_(static_cast<size_t>(size)),
      context_(context.ToJson().dump()),
      out_dir_(std::move(out_dir)),
      lock_fd_(lock_fd),
      signals_(signals) {}

LocalWorkers::~LocalWorkers() {
  for (Worker& w : workers_) {
    if (w.pid > 0) kill(w.pid, SIGKILL);
  }
  for (Worker& w : workers_) {
    if (w.pid > 0) {
      int status = 0;
      waitpid(w.pid, &status, 0);
    }
    Forget(&w);
  }
}

void LocalWorkers::Start(Worker* worker) {
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
    throw std::system_error(errno, std::generic_category(), "cannot start a sweep worker");
  }
  // The child reports a failure before exec (its errno) on this pipe; exec
  // closes it (O_CLOEXEC), so reading 0 bytes means the worker started.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    const int error = errno;
    close(sockets[0]);
    close(sockets[1]);
    throw std::system_error(error, std::generic_category(), "cannot start a sweep worker");
  }
  std::string fd_text = "3";
  std::vector<std::string> args = {"pams", kLocalWorkerCommand, fd_text, out_dir_};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    for (int fd : {sockets[0], sockets[1], report[0], report[1]}) close(fd);
    throw std::system_error(error, std::generic_category(), "cannot start a sweep worker");
  }
  if (pid == 0) {
    // The child: async-signal-safe calls only until exec.
    auto fail = [&](int error) {
      [[maybe_unused]] const ssize_t n = write(report[1], &error, sizeof error);
      _exit(127);
    };
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the sweep died before prctl
    const int in = open("/dev/null", O_RDWR);
    if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(in, STDOUT_FILENO) < 0) fail(errno);
    // The socket as fd 3 and the lock, both without O_CLOEXEC.
    if (dup2(sockets[1], 3) < 0) fail(errno);
    if (dup(lock_fd_) < 0) fail(errno);
    // No signal blocked, and the default actions: SIGTERM and SIGINT end a
    // worker at once (its run's directory is deleted anyway).
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    sigemptyset(&defaults.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE}) {
      sigaction(sig, &defaults, nullptr);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    // /proc/self/exe: this very binary, even if the file was replaced since.
    execve("/proc/self/exe", argv.data(), environ);
    fail(errno);
  }
  close(report[1]);
  close(sockets[1]);
  int error = 0;
  ssize_t n;
  do {
    n = read(report[0], &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n > 0) {
    close(sockets[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    throw std::system_error(error, std::generic_category(), "cannot start a sweep worker");
  }
  worker->pid = pid;
  worker->fd = sockets[0];
  worker->channel = std::make_unique<FdChannel>(sockets[0], sockets[0]);
  worker->eof = false;
  worker->channel->Send(context_);
}

void LocalWorkers::Forget(Worker* worker) {
  if (worker->fd >= 0) close(worker->fd);
  worker->fd = -1;
  worker->pid = -1;
  worker->channel.reset();
  worker->busy = false;
  worker->eof = false;
}

void LocalWorkers::Send(int w, const std::string& task) {
  Worker& worker = workers_[static_cast<size_t>(w)];
  if (worker.pid < 0 || worker.eof) {
    if (worker.pid > 0) {
      // It closed its end but has not been reaped yet: wait for it.
      int status = 0;
      waitpid(worker.pid, &status, 0);
      Forget(&worker);
    }
    Start(&worker);
  }
  worker.channel->Send(task);
  worker.busy = true;
}

int LocalWorkers::Find(pid_t pid) const {
  for (size_t w = 0; w < workers_.size(); ++w) {
    if (workers_[w].pid == pid) return static_cast<int>(w);
  }
  return -1;
}

void LocalWorkers::Reap() {
  for (;;) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;  // none exited (0), or no children left (-1)
    const int w = Find(pid);
    if (w < 0) continue;  // not a worker (none are expected)
    Worker& worker = workers_[static_cast<size_t>(w)];
    // A reply it sent before it ended still counts. Only what is there is
    // read: a process it started may still hold the socket open.
    std::string reply;
    pollfd readable = {worker.fd, POLLIN, 0};
    while (worker.busy && !worker.eof && poll(&readable, 1, 0) > 0 &&
           worker.channel->ReadAvailable()) {
    }
    if (worker.busy && worker.channel->TakeMessage(&reply)) {
      events_.push_back({Event::kReply, w, reply, 0});
      worker.busy = false;
    }
    if (worker.busy) events_.push_back({Event::kLost, w, DescribeStatus(status), 0});
    Forget(&worker);
  }
}

WorkerPool::Event LocalWorkers::Wait(std::chrono::milliseconds timeout) {
  if (events_.empty()) {
    std::vector<pollfd> fds = {{signals_->fd(), POLLIN, 0}};
    std::vector<int> polled;
    for (size_t w = 0; w < workers_.size(); ++w) {
      if (workers_[w].busy && !workers_[w].eof) {
        fds.push_back({workers_[w].fd, POLLIN, 0});
        polled.push_back(static_cast<int>(w));
      }
    }
    const int ready = poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
    if (ready > 0) {
      bool child = false;
      const int stop = (fds[0].revents & POLLIN) ? signals_->Take(&child) : 0;
      if (stop != 0) events_.push_back({Event::kSignal, -1, "", stop});
      for (size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents == 0) continue;
        Worker& worker = workers_[static_cast<size_t>(polled[i - 1])];
        if (!worker.channel->ReadAvailable()) worker.eof = true;
        std::string reply;
        if (worker.busy && worker.channel->TakeMessage(&reply)) {
          worker.busy = false;
          events_.push_back({Event::kReply, polled[i - 1], reply, 0});
        }
      }
      if (child) Reap();
    }
  }
  if (events_.empty()) return {};
  Event event = std::move(events_.front());
  events_.pop_front();
  return event;
}

bool LocalWorkers::Abandon(int signal) {
  for (const Worker& worker : workers_) {
    if (worker.pid > 0 && worker.busy) kill(worker.pid, signal);
  }
  return true;
}

void LocalWorkers::Close() {
  // An idle worker ends when its socket closes.
  for (Worker& worker : workers_) {
    if (worker.pid > 0 && !worker.busy && worker.fd >= 0) {
      close(worker.fd);
      worker.fd = -1;
      worker.channel.reset();
      worker.eof = true;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + kCloseGrace;
  for (Worker& worker : workers_) {
    if (worker.pid <= 0 || worker.busy) continue;
    int status = 0;
    while (waitpid(worker.pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(worker.pid, SIGKILL);
        waitpid(worker.pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    Forget(&worker);
  }
}

}  // namespace pams::cli
