// pams sweep CONFIG --seeds 1-100 --out DIR: many runs of one config, one
// per seed, --jobs at a time, then a summary of their stylized facts. Run
// again on the same DIR, a sweep resumes where it stopped.
//
// Each run is a child process, the pams binary itself running
// `pams run CONFIG --seed S --steps-csv ... --agents-csv ...` (with the
// sweep's --set, --plugin and --runner), so that its outputs are exactly
// those of `pams run` by hand, and a run that crashes takes nothing else
// down. DIR holds:
//
//   sweep.json            the command: config (absolute path and content),
//                         --set, --plugin, --runner, and every seed run in
//                         DIR so far. A sweep on a DIR whose sweep.json
//                         records another command is refused, so that
//                         results of different commands never mix; other
//                         seeds are fine (1-100, then 1-120 runs 101-120 and
//                         summarizes all 120).
//   sweep.lock            locked while a sweep or any of its runs is alive
//                         (the runs inherit the lock), so that a sweep never
//                         starts on a DIR where runs of another still write
//   runs/seed-S/          a completed run: steps.csv, agents.csv, stdout.txt,
//                         stderr.txt
//   runs/seed-S.partial/  a run in progress; renamed to seed-S when it exits
//                         with status 0 (so seed-S is always complete)
//   runs/seed-S.failed/   a run that failed, kept to be looked at
//   summary.csv           one row per (seed, market) of completed runs
//   summary.json          every stylized fact of every completed run
//
// A resumed sweep deletes *.partial and *.failed and runs the seeds that have
// no seed-S. On SIGINT, SIGTERM or SIGHUP the sweep sends SIGTERM to its runs
// (a second signal, or 10 seconds, and SIGKILL), waits for them, deletes
// their .partial directories and exits with 128 + the signal. A sweep that
// dies without that (SIGKILL, a crash) takes its runs with it: each run
// gets SIGKILL when the sweep's thread that started it ends
// (PR_SET_PDEATHSIG), so no run goes on writing into a .partial directory
// that the next sweep deletes.
//
// Signals: the sweep blocks SIGINT, SIGTERM, SIGHUP and SIGCHLD and takes
// them with sigtimedwait in its one loop, which also reaps the children; so
// there is no signal handler, no global state and no race between a signal
// and the wait for a child. The children start with no signal blocked.

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "commands.h"
#include "output_paths.h"
#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/runners/runner.h"
#include "pams/simulator/simulator.h"
#include "progress_bar.h"
#include "sweep_summary.h"

extern char** environ;

namespace pams::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int64_t kMaxRuns = 1'000'000;
// How long runs may take to stop after SIGTERM before they are killed.
constexpr auto kStopGrace = std::chrono::seconds(10);
// Lines of a failed run's stderr that are printed.
constexpr int kStderrTailLines = 10;

struct SweepOptions {
  std::string config;
  std::string seeds;
  int jobs = 0;  // 0: one per CPU
  std::string out;
  std::vector<std::string> sets;
  std::vector<std::string> plugins;
  std::string runner = "SequentialRunner";
  std::vector<int64_t> sessions;  // --session: the summary's sessions (all if empty)
  bool quiet = false;
};

// A non-negative integer that fits in int64, or a ConfigError naming --seeds.
int64_t ParseSeed(const std::string& text, const std::string& item) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || text[0] == '+' || text[0] == '-' || error != std::errc() ||
      ptr != end) {
    throw ConfigError("--seeds", "expected a non-negative integer or a range A-B, "
                                 "got \"" + item + "\"");
  }
  return value;
}

// Parses --seeds: comma-separated seeds and ranges A-B (A <= B, both
// included), e.g. "1-100", "1,5,9", "1-10,20-30", into the seeds in the given
// order. Throws ConfigError naming --seeds on anything else, on a seed given
// twice, and on more than kMaxRuns seeds.
std::vector<int64_t> ParseSeeds(const std::string& text) {
  std::vector<int64_t> seeds;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) {
      throw ConfigError("--seeds", "an empty item in \"" + text + "\"");
    }
    const size_t dash = item.find('-');
    int64_t first = 0;
    int64_t last = 0;
    if (dash == std::string::npos) {
      first = last = ParseSeed(item, item);
    } else {
      first = ParseSeed(item.substr(0, dash), item);
      last = ParseSeed(item.substr(dash + 1), item);
      if (first > last) {
        throw ConfigError("--seeds", "a range A-B needs A <= B, got \"" + item + "\"");
      }
    }
    // Checked before the range is expanded, so that 0-999999999999 fails
    // at once.
    if (last - first >= kMaxRuns - static_cast<int64_t>(seeds.size())) {
      throw ConfigError("--seeds", fmt::format("at most {} runs", kMaxRuns));
    }
    for (int64_t k = 0; k <= last - first; ++k) seeds.push_back(first + k);
  }
  if (!text.empty() && text.back() == ',') {
    throw ConfigError("--seeds", "an empty item in \"" + text + "\"");
  }
  if (seeds.empty()) {
    throw ConfigError("--seeds", "expected seeds such as 1-100 or 1,5,9, got \"" +
                                     text + "\"");
  }
  std::vector<int64_t> sorted = seeds;
  std::sort(sorted.begin(), sorted.end());
  const auto repeated = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeated != sorted.end()) {
    throw ConfigError("--seeds", fmt::format("seed {} is given twice", *repeated));
  }
  return seeds;
}

// The seeds as the shortest --seeds text in their order ("1-40,50").
std::string FormatSeeds(const std::vector<int64_t>& seeds) {
  std::string text;
  for (size_t i = 0; i < seeds.size();) {
    size_t j = i;
    while (j + 1 < seeds.size() && seeds[j + 1] == seeds[j] + 1) ++j;
    text += (text.empty() ? "" : ",") + std::to_string(seeds[i]);
    if (j > i) text += "-" + std::to_string(seeds[j]);
    i = j + 1;
  }
  return text;
}

// The CPUs this process may run on.
int CpuCount() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// What sweep.json records: everything a run's outputs depend on (config is
// the config with the --set applied).
Json CommandRecord(const SweepOptions& options, const std::vector<int64_t>& seeds,
                   const Json& config) {
  return Json{
      {"config", fs::absolute(options.config).lexically_normal().string()},
      {"config_content", config},
      {"seeds", FormatSeeds(seeds)},
      {"sets", options.sets},
      {"plugins", options.plugins},
      {"runner", options.runner},
  };
}

// Empty if the recorded command is the same as the new one; otherwise what
// differs, for the error message. The seeds may differ: each seed's run
// depends only on the rest.
std::string CommandDifference(const Json& recorded, const Json& current) {
  std::string differences;
  for (const auto& [key, value] : current.items()) {
    if (key == "seeds") continue;
    if (recorded.contains(key) && recorded[key] == value) continue;
    std::string what;
    if (key == "config_content") {
      what = "the config's content differs";
    } else {
      what = fmt::format("{}: {} there, {} here", key,
                         recorded.contains(key) ? recorded[key].dump() : "none",
                         value.dump());
    }
    differences += (differences.empty() ? "" : "; ") + what;
  }
  return differences;
}

// The last n lines of a file (empty if it cannot be read), each indented.
std::string TailLines(const fs::path& path, int n) {
  std::ifstream file(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(file, line)) {
    lines.push_back(line);
    if (static_cast<int>(lines.size()) > n) lines.erase(lines.begin());
  }
  std::string tail;
  for (const std::string& l : lines) tail += "  " + l + "\n";
  return tail;
}

// "exit status 1" / "killed by signal 9" for a waitpid status.
std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return fmt::format("killed by signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  }
  return fmt::format("wait status {}", status);
}

// Blocks SIGINT, SIGTERM, SIGHUP and SIGCHLD for its lifetime (see the file
// comment); a SIGINT or SIGHUP ignored when pams started (nohup) stays
// ignored.
class SignalBlock {
 public:
  SignalBlock() {
    sigemptyset(&stop_);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      sigaction(sig, nullptr, &old);
      if (sig == SIGTERM || old.sa_handler != SIG_IGN) sigaddset(&stop_, sig);
    }
    all_ = stop_;
    sigaddset(&all_, SIGCHLD);
    sigprocmask(SIG_BLOCK, &all_, &old_);
  }
  ~SignalBlock() {
    // Take the SIGCHLDs of the children reaped (ignored anyway) so that
    // restoring the mask delivers nothing stale.
    const timespec zero{0, 0};
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    while (sigtimedwait(&chld, nullptr, &zero) > 0) {
    }
    sigprocmask(SIG_SETMASK, &old_, nullptr);
  }
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

  // The signals taken.
  const sigset_t& all() const { return all_; }
  bool IsStop(int signal) const { return signal > 0 && sigismember(&stop_, signal) == 1; }
  // Takes a pending SIGINT, SIGTERM or SIGHUP without waiting; 0 if none.
  int TakeStopSignal() const {
    const timespec zero{0, 0};
    const int signal = sigtimedwait(&stop_, nullptr, &zero);
    return signal > 0 ? signal : 0;
  }

 private:
  sigset_t all_;
  sigset_t stop_;
  sigset_t old_;
};

// Holds an exclusive lock on a file while alive, so that two sweeps never run
// on one DIR. The runs inherit it (see SpawnRun): it is free only once the
// sweep and all its runs are gone.
class DirLock {
 public:
  // How long a new sweep waits for the runs of one that was killed to go
  // (they get SIGKILL at once; the lock is free when the last has died).
  static constexpr auto kWait = std::chrono::seconds(3);

  // Throws ConfigError if the lock is held by another process.
  explicit DirLock(const fs::path& path) {
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      throw ConfigError(path.string(), std::string("cannot open: ") + strerror(errno));
    }
    const auto deadline = Clock::now() + kWait;
    while (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (Clock::now() > deadline) {
        close(fd_);
        throw ConfigError("--out " + path.parent_path().string(),
                          "another pams sweep (or a run of one) is running on this "
                          "directory");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  ~DirLock() { close(fd_); }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

  int fd() const { return fd_; }

 private:
  int fd_;
};

// Starts `pams run` for one seed with its outputs in dir (which exists).
// The run dies with the sweep (PR_SET_PDEATHSIG) and holds the DIR lock
// (lock_fd) while it lives. Throws std::system_error if the process cannot
// be started.
pid_t SpawnRun(const SweepOptions& options, int64_t seed, const fs::path& dir,
               int lock_fd) {
  std::vector<std::string> args = {
      "pams",        "run",
      options.config, "--seed",
      std::to_string(seed), "--steps-csv",
      (dir / "steps.csv").string(), "--agents-csv",
      (dir / "agents.csv").string(), "--runner",
      options.runner};
  for (const std::string& set : options.sets) {
    args.push_back("--set");
    args.push_back(set);
  }
  for (const std::string& plugin : options.plugins) {
    args.push_back("--plugin");
    args.push_back(plugin);
  }
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const std::string out = (dir / "stdout.txt").string();
  const std::string err = (dir / "stderr.txt").string();

  // The child reports a failure before exec (its errno) on this pipe; exec
  // closes it (O_CLOEXEC), so reading 0 bytes means the run started.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "cannot start pams run");
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(report[0]);
    close(report[1]);
    throw std::system_error(error, std::generic_category(), "cannot start pams run");
  }
  if (pid == 0) {
    // The child: async-signal-safe calls only until exec.
    auto fail = [&](int error) {
      [[maybe_unused]] const ssize_t n = write(report[1], &error, sizeof error);
      _exit(127);
    };
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the sweep died before prctl
    const int in = open("/dev/null", O_RDONLY);
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || o < 0 || e < 0) fail(errno);
    if (dup2(in, STDIN_FILENO) < 0 || dup2(o, STDOUT_FILENO) < 0 ||
        dup2(e, STDERR_FILENO) < 0) {
      fail(errno);
    }
    // The lock, without O_CLOEXEC, for the run's lifetime.
    if (dup(lock_fd) < 0) fail(errno);
    // No signal blocked, and the default actions for those the sweep takes
    // itself (pams run sets its own).
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
  int error = 0;
  ssize_t n;
  do {
    n = read(report[0], &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n > 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    throw std::system_error(error, std::generic_category(), "cannot start pams run");
  }
  return pid;
}

// One sweep: the runs of the seeds that are not done yet, then the summary.
class Sweep {
 public:
  Sweep(const SweepOptions& options, std::vector<int64_t> seeds, Json command)
      : options_(options),
        seeds_(std::move(seeds)),
        command_(std::move(command)),
        out_(options.out),
        runs_dir_(out_ / "runs"),
        progress_(!options.quiet && ProgressBar::StderrIsTerminal(), "runs") {}

  // Runs the sweep; returns the exit status. Throws ConfigError for bad input
  // found before any run (DIR, sweep.json).
  int Main();

 private:
  fs::path FinalDir(int64_t seed) const {
    return runs_dir_ / fmt::format("seed-{}", seed);
  }
  fs::path PartialDir(int64_t seed) const {
    return runs_dir_ / fmt::format("seed-{}.partial", seed);
  }
  fs::path FailedDir(int64_t seed) const {
    return runs_dir_ / fmt::format("seed-{}.failed", seed);
  }

  // Refuses a DIR holding another command's runs; deletes stale .partial and
  // .failed directories.
  void CheckAndCleanDir();
  // Writes sweep.json if it is not there yet, or if it lacks seeds of this
  // sweep (before the first run completes, so that completed runs always
  // have their command recorded).
  void RecordCommand();
  void StartRun(int64_t seed);
  // Reaps every child that has exited and handles its outcome.
  void ReapChildren();
  void HandleExit(int64_t seed, int status);
  // Stops the sweep: no more runs start, and the running ones get `signal`.
  void Stop(int signal);
  void SignalChildren(int signal);
  // Prints a message on stderr without garbling the progress bar.
  void Print(const std::string& message);
  int WriteSummary();

  const SweepOptions& options_;
  const std::vector<int64_t> seeds_;
  const Json command_;
  const fs::path out_;
  const fs::path runs_dir_;
  ProgressBar progress_;
  int lock_fd_ = -1;  // DIR's lock, while Main runs

  bool recorded_ = false;         // sweep.json exists and has every seed
  std::string recorded_seeds_;    // the seeds in sweep.json
  std::map<pid_t, int64_t> running_;
  int64_t to_run_ = 0;            // runs this sweep has to do
  int64_t finished_ = 0;          // of those, ended (well or not)
  int64_t completed_ = 0;         // of those, ended well
  std::vector<int64_t> failed_;
  int stop_signal_ = 0;           // SIGINT/SIGTERM received
  bool bad_input_ = false;        // the first run refused its input
  bool internal_error_ = false;   // the sweep itself failed (disk, spawn)
  bool stopping_ = false;
  Clock::time_point kill_deadline_;
  bool killed_ = false;           // SIGKILL sent
};

void Sweep::CheckAndCleanDir() {
  const fs::path record = out_ / "sweep.json";
  bool has_record = false;
  if (fs::exists(record)) {
    const Json recorded = ParseJsonFile(record.string());
    if (!recorded.is_object() || !recorded.contains("seeds") ||
        !recorded["seeds"].is_string()) {
      throw ConfigError(record.string(), "not a sweep record (no \"seeds\"); use another "
                                         "--out directory, or delete this one to start over");
    }
    const std::string difference = CommandDifference(recorded, command_);
    if (!difference.empty()) {
      throw ConfigError(
          "--out " + options_.out,
          "this directory holds a sweep of another command (" + difference +
              "); use another --out directory, or delete this one to start over");
    }
    has_record = true;
    recorded_seeds_ = recorded["seeds"].get<std::string>();
    // Up to date when it has every seed of this sweep already.
    std::vector<int64_t> known = ParseSeeds(recorded_seeds_);
    std::sort(known.begin(), known.end());
    recorded_ = std::all_of(seeds_.begin(), seeds_.end(), [&](int64_t seed) {
      return std::binary_search(known.begin(), known.end(), seed);
    });
  }
  std::vector<fs::path> stale;
  for (const fs::directory_entry& entry : fs::directory_iterator(runs_dir_)) {
    const fs::path& path = entry.path();
    if (path.filename().string().rfind("seed-", 0) != 0) continue;
    if (path.extension() == ".partial" || path.extension() == ".failed") {
      stale.push_back(path);
    } else if (!has_record) {
      throw ConfigError("--out " + options_.out,
                        "this directory has runs but no sweep.json saying how they "
                        "were made; use another --out directory");
    }
  }
  for (const fs::path& path : stale) fs::remove_all(path);
}

void Sweep::RecordCommand() {
  if (recorded_) return;
  // Every seed run in DIR: those recorded before and this sweep's.
  std::vector<int64_t> seeds = seeds_;
  if (!recorded_seeds_.empty()) {
    for (int64_t seed : ParseSeeds(recorded_seeds_)) seeds.push_back(seed);
  }
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  Json record = command_;
  record["seeds"] = FormatSeeds(seeds);
  WriteFileAtomically((out_ / "sweep.json").string(), record.dump(2) + "\n");
  recorded_ = true;
}

void Sweep::StartRun(int64_t seed) {
  const fs::path dir = PartialDir(seed);
  fs::remove_all(dir);
  fs::create_directories(dir);
  try {
    running_[SpawnRun(options_, seed, dir, lock_fd_)] = seed;
  } catch (const std::system_error&) {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    throw;
  }
}

void Sweep::ReapChildren() {
  for (;;) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;  // none exited (0), or no children left (-1)
    const auto it = running_.find(pid);
    if (it == running_.end()) continue;  // not a run (none are expected)
    const int64_t seed = it->second;
    running_.erase(it);
    HandleExit(seed, status);
  }
}

void Sweep::HandleExit(int64_t seed, int status) {
  const bool first = finished_ == 0;
  ++finished_;
  const fs::path partial = PartialDir(seed);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    RecordCommand();
    fs::rename(partial, FinalDir(seed));
    ++completed_;
    return;
  }
  if (stopping_) {
    // Stopped by us (or by the same Ctrl-C): not a failure, rerun on resume.
    fs::remove_all(partial);
    return;
  }
  if (first && WIFEXITED(status) && WEXITSTATUS(status) == kExitBadInput) {
    // Bad input (config, --set, --plugin, --runner) fails every run alike:
    // stop at once and show why.
    Print(fmt::format("error: pams run refused its input (seed {}, exit status {}):\n{}",
                      seed, kExitBadInput,
                      TailLines(partial / "stderr.txt", kStderrTailLines)));
    fs::remove_all(partial);
    bad_input_ = true;
    Stop(SIGTERM);
    return;
  }
  failed_.push_back(seed);
  fs::remove_all(FailedDir(seed));
  fs::rename(partial, FailedDir(seed));
  const fs::path failed_stderr = FailedDir(seed) / "stderr.txt";
  Print(fmt::format("error: the run of seed {} failed ({}); {} ends with:\n{}", seed,
                    DescribeStatus(status), failed_stderr.string(),
                    TailLines(failed_stderr, kStderrTailLines)));
}

void Sweep::Stop(int signal) {
  if (!stopping_) {
    stopping_ = true;
    kill_deadline_ = Clock::now() + kStopGrace;
    SignalChildren(signal);
  } else if (!killed_) {
    // A second Ctrl-C: do not wait for the runs to stop by themselves.
    killed_ = true;
    SignalChildren(SIGKILL);
  }
}

void Sweep::SignalChildren(int signal) {
  for (const auto& [pid, seed] : running_) kill(pid, signal);
}

void Sweep::Print(const std::string& message) {
  progress_.Clear();
  std::fputs(message.c_str(), stderr);
  if (!message.empty() && message.back() != '\n') std::fputc('\n', stderr);
  std::fflush(stderr);
}

int Sweep::Main() {
  std::error_code error;
  fs::create_directories(runs_dir_, error);
  if (error) {
    throw ConfigError("--out " + options_.out,
                      "cannot create " + runs_dir_.string() + ": " + error.message());
  }
  DirLock lock(out_ / "sweep.lock");
  lock_fd_ = lock.fd();
  CheckAndCleanDir();

  std::vector<int64_t> pending;
  for (int64_t seed : seeds_) {
    if (!fs::exists(FinalDir(seed))) pending.push_back(seed);
  }
  to_run_ = static_cast<int64_t>(pending.size());
  const int jobs = options_.jobs > 0 ? options_.jobs : CpuCount();
  if (!options_.quiet) {
    const size_t done_before = seeds_.size() - pending.size();
    Print(fmt::format("# sweep: {} runs{}, {} at a time, in {}", pending.size(),
                      done_before > 0 ? fmt::format(" ({} done before)", done_before) : "",
                      jobs, options_.out));
  }

  {
    SignalBlock block;
    size_t next = 0;
    while (running_.size() > 0 || (!stopping_ && next < pending.size())) {
      // Any error here still reaps the runs that are going, so that none is
      // left behind.
      try {
        while (!stopping_ && next < pending.size() &&
               running_.size() < static_cast<size_t>(jobs)) {
          StartRun(pending[next++]);
        }
        progress_.UpdateNow(finished_, to_run_,
                            fmt::format("{} running", running_.size()));
        if (running_.empty()) continue;
        // Wait for a child to exit or a signal, at most 0.2 s (the progress
        // bar and the kill deadline need the time).
        const timespec timeout{0, 200'000'000};
        int signal = sigtimedwait(&block.all(), nullptr, &timeout);
        // A SIGINT may be pending behind a SIGCHLD: take it first, so that
        // runs stopped by the same Ctrl-C are not taken for failures.
        if (!block.IsStop(signal)) signal = block.TakeStopSignal();
        if (signal != 0) {
          if (stop_signal_ == 0 && !options_.quiet) {
            Print(fmt::format("# stopping {} runs (again to kill them now)",
                              running_.size()));
          }
          if (stop_signal_ == 0) stop_signal_ = signal;
          Stop(SIGTERM);
        }
        ReapChildren();
        if (stopping_ && !killed_ && Clock::now() > kill_deadline_) {
          killed_ = true;
          SignalChildren(SIGKILL);
        }
      } catch (const std::exception& e) {
        Print(fmt::format("error: {}", e.what()));
        internal_error_ = true;
        Stop(SIGTERM);
      }
    }
  }
  progress_.Clear();

  if (stop_signal_ != 0) {
    int64_t done = 0;
    for (int64_t seed : seeds_) done += fs::exists(FinalDir(seed)) ? 1 : 0;
    Print(fmt::format("interrupted: {} of {} runs are done ({} in this sweep); run the "
                      "same command again to resume",
                      done, seeds_.size(), completed_));
    return 128 + stop_signal_;
  }
  if (bad_input_) return kExitBadInput;
  if (internal_error_) return kExitFailure;
  const int status = WriteSummary();
  if (!failed_.empty()) {
    std::sort(failed_.begin(), failed_.end());
    Print(fmt::format("error: {} of {} runs failed (seeds {}); run the same command "
                      "again to retry them",
                      failed_.size(), seeds_.size(), FormatSeeds(failed_)));
    return kExitFailure;
  }
  return status;
}

// The summary of every completed run of the seeds, this sweep's and earlier
// ones'.
int Sweep::WriteSummary() {
  std::vector<int64_t> done;
  std::vector<std::string> steps_csv;
  for (int64_t seed : seeds_) {
    if (!fs::exists(FinalDir(seed))) continue;
    done.push_back(seed);
    steps_csv.push_back((FinalDir(seed) / "steps.csv").string());
  }
  if (done.empty()) return 0;  // every run failed: nothing to summarize
  const int threads = options_.jobs > 0 ? options_.jobs : CpuCount();
  const std::vector<RunFacts> runs =
      ComputeRunFacts(done, steps_csv, threads, options_.sessions);
  int status = 0;
  for (const RunFacts& run : runs) {
    if (run.error.empty()) continue;
    Print(fmt::format("error: seed {}: {}", run.seed, run.error));
    status = kExitFailure;
  }
  WriteFileAtomically((out_ / "summary.csv").string(), SummaryCsv(runs));
  WriteFileAtomically((out_ / "summary.json").string(), SummaryJson(runs));
  std::string sessions;
  for (int64_t session : options_.sessions) {
    sessions += (sessions.empty() ? ", sessions " : ",") + std::to_string(session);
  }
  std::fputs(fmt::format("{} runs of {} (seeds {}{}); summary in {}\n", done.size(),
                         options_.config, FormatSeeds(done), sessions,
                         (out_ / "summary.csv").string())
                 .c_str(),
             stdout);
  std::fputs(FormatAggregate(runs).c_str(), stdout);
  std::fflush(stdout);
  return status;
}

// Refuses what would make the runs fail alike or destroy an input: a config
// that the runs cannot read again (stdin, a pipe), an --out that is not a
// directory, and an input inside DIR/runs (which resuming cleans).
void CheckSweepPaths(const SweepOptions& options) {
  struct stat st {};
  if (options.config == "-" ||
      (stat(options.config.c_str(), &st) == 0 && !S_ISREG(st.st_mode) &&
       !S_ISDIR(st.st_mode))) {
    throw ConfigError(options.config == "-" ? "CONFIG -" : options.config,
                      "a sweep's config must be a file: every run reads it again "
                      "(save it to a file first)");
  }
  std::error_code error;
  if (fs::exists(options.out, error) && !fs::is_directory(options.out, error)) {
    throw ConfigError("--out " + options.out,
                      "is a file, not a directory: --out names the directory for the "
                      "runs and the summary (created if missing)");
  }
  const fs::path runs = fs::weakly_canonical(fs::absolute(options.out) / "runs", error);
  std::vector<NamedPath> inputs = {{"CONFIG", options.config}};
  for (const std::string& plugin : options.plugins) inputs.push_back({"--plugin", plugin});
  for (const NamedPath& input : inputs) {
    const fs::path path = fs::weakly_canonical(fs::absolute(input.path), error);
    const std::string prefix = runs.string() + "/";
    if (!runs.empty() && path.string().rfind(prefix, 0) == 0) {
      throw ConfigError("--out " + options.out,
                        "holds " + input.what + " " + input.path +
                            " among its runs, which a sweep deletes and rewrites; "
                            "choose another --out directory or move it");
    }
  }
}

int RunSweep(const SweepOptions& options) {
  CheckSweepPaths(options);
  std::vector<int64_t> seeds = ParseSeeds(options.seeds);
  // Bad input found here (the config file, --set, --plugin) fails before
  // any run; the rest (the config's keys, --runner) by the first run.
  Json config = LoadConfig(options.config, options.sets);
  {
    // Set up once here as every run will: the config's errors stop the
    // sweep before any run starts, and its warnings (keys no class reads,
    // deprecated keys) are printed once instead of in every run's stderr.
    const ClassRegistry registry = LoadRegistry(options.plugins);
    std::unique_ptr<Runner> runner = registry.create_runner(
        options.runner, config, Random::FromDecimalSeed(std::to_string(seeds.front())),
        nullptr, "--runner");
    runner->simulator().set_config_directory(
        fs::path(options.config).parent_path().string());
    runner->setup();
  }
  Json command = CommandRecord(options, seeds, std::move(config));
  try {
    Sweep sweep(options, std::move(seeds), std::move(command));
    return sweep.Main();
  } catch (const fs::filesystem_error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  }
}

}  // namespace

std::function<int()> AddSweepCommand(CLI::App* app) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* sweep = app->add_subcommand(
      "sweep",
      "Run a config for many seeds on all cores, write each run's outputs and a "
      "summary of their stylized facts; run again on the same --out to resume.");
  sweep->add_option("config", options->config, "PAMS JSON config file")
      ->type_name("CONFIG")
      ->required();
  sweep->add_option("--seeds", options->seeds,
                    "Seeds to run: 1-100, 1,5,9 or 1-10,20-30 (non-negative integers)")
      ->type_name("SEEDS")
      ->required();
  sweep->add_option("--out", options->out,
                    "Output directory (created if missing; a sweep run again on it "
                    "resumes)")
      ->type_name("DIR")
      ->required();
  sweep->add_option("--jobs", options->jobs,
                    "Runs at a time (default: one per CPU)")
      ->type_name("INT")
      ->check([](const std::string& s) -> std::string {
        int jobs = 0;
        const auto [ptr, error] = std::from_chars(s.data(), s.data() + s.size(), jobs);
        if (error != std::errc() || ptr != s.data() + s.size() || jobs < 1) {
          return "expected a number of runs at a time >= 1, got \"" + s + "\"";
        }
        return "";
      });
  sweep->add_option("--set", options->sets,
                    "Override a config key in every run: KEY=JSON (repeatable; as in "
                    "pams run)")
      ->type_name("KEY=JSON");
  sweep->add_option("--plugin", options->plugins,
                    "Shared library registering user classes (repeatable)")
      ->type_name("LIB");
  sweep->add_option("--runner", options->runner,
                    "Runner class of each run (as in pams run; default "
                    "SequentialRunner)")
      ->type_name("NAME");
  sweep->add_option("--session", options->sessions,
                    "Summarize only the steps of this session_id (repeatable), e.g. "
                    "--session 1 to leave out a warm-up session 0 without trades (as "
                    "pams stats --session); the runs are the same")
      ->type_name("ID");
  sweep->add_flag("--quiet", options->quiet, "No progress bar or status lines");
  return [options] { return RunSweep(*options); };
}

}  // namespace pams::cli
