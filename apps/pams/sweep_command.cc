// pams sweep CONFIG --seeds 1-100 [--grid KEY=JSON_ARRAY ...] --out DIR: many
// runs of one config, one per grid point and seed (the cartesian product of
// the --grid values, each point with every seed), --jobs at a time, then a
// summary of their stylized facts. Run again on the same DIR, a sweep
// resumes where it stopped. Launched by mpirun or srun, the same sweep runs
// across the job's ranks (sweep_mpi.h) and writes the same DIR.
//
// The runs are carried out by sweep workers (sweep_worker.h), each exactly
// as `pams run CONFIG --seed S --steps-csv ... --agents-csv ...` (with the
// sweep's --set, the point's values as more --set, --plugin and --runner)
// would, so that its outputs are exactly those of `pams run` by hand. A
// worker is a process that does one run after another (locally --jobs of
// them, children of the sweep), so a run costs no process start; a run that
// crashes takes only its worker down, and the run is reported as failed.
// DIR holds:
//
//   sweep.json            the command: config (absolute path and content),
//                         --set, --grid, --plugin, --runner, and every seed
//                         run in DIR so far. A sweep on a DIR whose
//                         sweep.json records another command is refused, so
//                         that results of different commands never mix;
//                         other seeds are fine (1-100, then 1-120 runs
//                         101-120 and summarizes all 120).
//   sweep.lock            locked while a sweep or any of its workers is
//                         alive (the workers inherit the lock), so that a
//                         sweep never starts on a DIR where another still
//                         writes
//   runs/NAME/            a completed run: steps.csv, agents.csv, stdout.txt,
//                         stderr.txt (and params.json, the point's values,
//                         with a grid); NAME is seed-S, or pK-seed-S for the
//                         grid's point K
//   runs/NAME.partial/    a run in progress; renamed to NAME when it ends
//                         well (so NAME is always complete)
//   runs/NAME.failed/     a run that failed, kept to be looked at
//   summary.csv           one row per (point, seed, market) of completed runs
//   summary.json          every stylized fact of every completed run
//   aggregate.csv         per grid point and market: the mean and standard
//                         deviation of each fact across seeds
//
// A resumed sweep deletes *.partial and *.failed and runs what has no NAME.
// On SIGINT, SIGTERM or SIGHUP the sweep sends SIGTERM to its workers (a
// second signal, or 10 seconds, and SIGKILL), waits for them, deletes their
// .partial directories and exits with 128 + the signal. A sweep that dies
// without that (SIGKILL, a crash) takes its workers with it: each gets
// SIGKILL when the sweep dies (PR_SET_PDEATHSIG), so no worker goes on
// writing into a .partial directory that the next sweep deletes.
//
// Signals: the sweep blocks SIGINT, SIGTERM, SIGHUP and SIGCHLD and takes
// them from a signalfd in its one loop, which also reaps the workers; so
// there is no signal handler, no global state and no race between a signal
// and the wait for a child. The workers start with no signal blocked.

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "analysis/sweep_summary.h"
#include "commands.h"
#include "output_paths.h"
#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"
#include "progress_bar.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_run.h"
#include "sweep_mpi.h"
#include "sweep_worker.h"
#include "sweep_workers.h"

namespace pams::cli {

namespace {

namespace fs = std::filesystem;
using analysis::AggregateCsv;
using analysis::ComputeRunFacts;
using analysis::FormatAggregate;
using analysis::RunFacts;
using analysis::SummaryCsv;
using analysis::SummaryJson;
using analysis::WriteFileAtomically;
using sweep::FormatSeeds;
using sweep::ParseSeeds;
using sweep::SweepPlan;
using sweep::SweepRun;
using Clock = std::chrono::steady_clock;

// The options of `pams sweep`.
struct SweepOptions {
  std::string config;
  std::string seeds;
  int jobs = 0;  // 0: one per CPU
  std::string out;
  std::vector<std::string> sets;
  std::vector<std::string> grid;  // --grid KEY=JSON_ARRAY, in the order given
  std::vector<std::string> plugins;
  std::string runner = "SequentialRunner";
  std::vector<int64_t> sessions;  // --session: the summary's sessions (all if empty)
  bool quiet = false;
};

// The plan's input from the flags: --set KEY=JSON and --grid KEY=JSON_ARRAY
// split at their '=' (the sweep core reads the rest, as pams_cpp.sweep's).
sweep::SweepSpec SpecOf(const SweepOptions& options) {
  return {options.seeds,
          sweep::SplitAssignments(options.grid, "--grid", "KEY=JSON_ARRAY",
                                  "FCNAgents.fundamentalWeight=[0.5,1.0]"),
          sweep::SplitAssignments(options.sets, "--set", "KEY=JSON"), sweep::CliNames()};
}

// How long runs may take to stop after SIGTERM before they are killed.
constexpr auto kStopGrace = std::chrono::seconds(10);
// Lines of a failed run's stderr that are printed.
constexpr int kStderrTailLines = 10;

// The CPUs this process may run on.
int CpuCount() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// What sweep.json records: everything a run's outputs depend on (config is
// the config with the --set applied). "grid" only with a grid, so that the
// DIR of a sweep without one, made before grids existed, still resumes.
Json CommandRecord(const SweepOptions& options, const SweepPlan& plan, const Json& config) {
  Json record = {
      {"config", fs::absolute(options.config).lexically_normal().string()},
      {"config_content", config},
      {"seeds", FormatSeeds(plan.seeds())},
      {"sets", options.sets},
      {"plugins", options.plugins},
      {"runner", options.runner},
  };
  if (!plan.grid().empty()) record["grid"] = plan.GridRecord();
  return record;
}

// Empty if the recorded command is the same as the new one; otherwise what
// differs, for the error message. The seeds may differ: each seed's run
// depends only on the rest.
std::string CommandDifference(const Json& recorded, const Json& current) {
  std::string differences;
  auto differ = [&](const std::string& key) {
    std::string what;
    if (key == "config_content") {
      what = "the config's content differs";
    } else {
      what = fmt::format("{}: {} there, {} here", key,
                         recorded.contains(key) ? recorded[key].dump() : "none",
                         current.contains(key) ? current[key].dump() : "none");
    }
    differences += (differences.empty() ? "" : "; ") + what;
  };
  for (const auto& [key, value] : current.items()) {
    if (key == "seeds") continue;
    if (!recorded.contains(key) || recorded[key] != value) differ(key);
  }
  for (const auto& [key, value] : recorded.items()) {
    if (key != "seeds" && !current.contains(key)) differ(key);
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

// Holds an exclusive lock on a file while alive, so that two sweeps never run
// on one DIR. The workers inherit it: it is free only once the sweep and all
// its workers are gone.
class DirLock {
 public:
  // How long a new sweep waits for the workers of one that was killed to go
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

// One sweep: the runs that are not done yet, then the summary.
class Sweep {
 public:
  // REQUIRES: plan and mpi (if not null) outlive the sweep.
  Sweep(const SweepOptions& options, const SweepPlan& plan, Json command,
        WorkerContext context, MpiSession* mpi)
      : options_(options),
        plan_(plan),
        command_(std::move(command)),
        context_(std::move(context)),
        mpi_(mpi),
        out_(options.out),
        runs_dir_(out_ / "runs"),
        progress_(!options.quiet && ProgressBar::StderrIsTerminal(), "runs") {}

  // Runs the sweep; returns the exit status. Throws ConfigError for bad input
  // found before any run (DIR, sweep.json).
  int Main();

 private:
  fs::path FinalDir(size_t run) const { return runs_dir_ / plan_.RunName(Run(run)); }
  fs::path PartialDir(size_t run) const {
    return runs_dir_ / (plan_.RunName(Run(run)) + ".partial");
  }
  fs::path FailedDir(size_t run) const {
    return runs_dir_ / (plan_.RunName(Run(run)) + ".failed");
  }
  const SweepRun& Run(size_t run) const { return plan_.runs()[run]; }
  // "seed 3", or "seed 3 (KEY=1, KEY2=0.5)" with a grid.
  std::string Label(size_t run) const;

  // Refuses a DIR holding another command's runs; deletes stale .partial and
  // .failed directories.
  void CheckAndCleanDir();
  // Writes sweep.json if it is not there yet, or if it lacks seeds of this
  // sweep (before the first run starts, so that completed runs always have
  // their command recorded).
  void RecordCommand();
  void StartRun(WorkerPool* pool, int worker, size_t run);
  void HandleEvent(WorkerPool* pool, const WorkerPool::Event& event);
  // A run ended: status is its exit status (-1 if its worker was lost; how
  // says how).
  void HandleEnd(WorkerPool* pool, size_t run, int status, const std::string& how);
  // Stops the sweep: no more runs start, and the running ones get `signal`.
  void Stop(WorkerPool* pool, int signal);
  // Prints a message on stderr without garbling the progress bar.
  void Print(const std::string& message);
  int WriteSummary();
  size_t Busy() const {
    return static_cast<size_t>(
        std::count_if(assigned_.begin(), assigned_.end(), [](auto& a) { return a.has_value(); }));
  }

  const SweepOptions& options_;
  const SweepPlan& plan_;
  const Json command_;
  const WorkerContext context_;
  MpiSession* mpi_;
  const fs::path out_;
  const fs::path runs_dir_;
  ProgressBar progress_;
  int lock_fd_ = -1;  // DIR's lock, while Main runs

  bool recorded_ = false;         // sweep.json exists and has every seed
  bool wrote_record_ = false;     // this sweep wrote the first sweep.json
  std::string recorded_seeds_;    // the seeds in sweep.json
  std::vector<std::optional<size_t>> assigned_;  // per worker, its run
  int64_t to_run_ = 0;            // runs this sweep has to do
  int64_t finished_ = 0;          // of those, ended (well or not)
  int64_t completed_ = 0;         // of those, ended well
  std::vector<size_t> failed_;
  int stop_signal_ = 0;           // SIGINT/SIGTERM received
  bool bad_input_ = false;        // the first run refused its input
  bool internal_error_ = false;   // the sweep itself failed (disk, spawn)
  bool stopping_ = false;
  Clock::time_point kill_deadline_;
  bool killed_ = false;           // SIGKILL sent
};

std::string Sweep::Label(size_t run) const {
  std::string label = fmt::format("seed {}", Run(run).seed);
  if (plan_.grid().empty()) return label;
  return label + " (" + plan_.PointText(Run(run).point) + ")";
}

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
    recorded_ = std::all_of(plan_.seeds().begin(), plan_.seeds().end(), [&](int64_t seed) {
      return std::binary_search(known.begin(), known.end(), seed);
    });
  }
  std::vector<fs::path> stale;
  for (const fs::directory_entry& entry : fs::directory_iterator(runs_dir_)) {
    const fs::path& path = entry.path();
    if (!SweepPlan::IsRunName(path.filename().string())) continue;
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
  std::vector<int64_t> seeds = plan_.seeds();
  if (!recorded_seeds_.empty()) {
    for (int64_t seed : ParseSeeds(recorded_seeds_)) seeds.push_back(seed);
  }
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  Json record = command_;
  record["seeds"] = FormatSeeds(seeds);
  WriteFileAtomically((out_ / "sweep.json").string(), record.dump(2) + "\n");
  wrote_record_ = recorded_seeds_.empty();
  recorded_ = true;
}

void Sweep::StartRun(WorkerPool* pool, int worker, size_t run) {
  // Recorded before the first run can complete: a worker renames its run's
  // directory to the final name itself, and a completed run always has its
  // command on record.
  RecordCommand();
  // The worker makes the run's directory and renames it when the run ends
  // well, so that the coordinator's own work per run is a message each way
  // (it would otherwise be the limit of an MPI job: metadata operations are
  // slow on many filesystems).
  Json task = {{"run", run},
               {"seed", Run(run).seed},
               {"sets", plan_.PointSets(Run(run).point)},
               {"dir", fs::absolute(PartialDir(run)).string()},
               {"final", fs::absolute(FinalDir(run)).string()}};
  if (!plan_.grid().empty()) {
    task["params"] = {{"point", Run(run).point},
                      {"seed", Run(run).seed},
                      {"set", plan_.PointObject(Run(run).point)}};
  }
  pool->Send(worker, task.dump());
  assigned_[static_cast<size_t>(worker)] = run;
}

void Sweep::HandleEvent(WorkerPool* pool, const WorkerPool::Event& event) {
  switch (event.kind) {
    case WorkerPool::Event::kTimeout:
      return;
    case WorkerPool::Event::kSignal:
      if (stop_signal_ == 0 && !options_.quiet) {
        Print(fmt::format("# stopping {} runs (again to kill them now)", Busy()));
      }
      if (stop_signal_ == 0) stop_signal_ = event.signal;
      Stop(pool, SIGTERM);
      return;
    case WorkerPool::Event::kReply:
    case WorkerPool::Event::kLost:
      break;
  }
  std::optional<size_t>& assigned = assigned_.at(static_cast<size_t>(event.worker));
  if (!assigned) return;  // not expected: a worker answers only its task
  const size_t run = *assigned;
  assigned.reset();
  if (event.kind == WorkerPool::Event::kLost) {
    HandleEnd(pool, run, -1, "its worker ended: " + event.message);
    return;
  }
  const Json reply = Json::parse(event.message);
  const int status = reply.at("status").get<int>();
  const std::string error = reply.value("error", "");
  HandleEnd(pool, run, status, error.empty() ? fmt::format("exit status {}", status) : error);
}

void Sweep::HandleEnd(WorkerPool* pool, size_t run, int status, const std::string& how) {
  const bool first = finished_ == 0;
  ++finished_;
  const fs::path partial = PartialDir(run);
  if (status == 0) {
    ++completed_;  // the worker has renamed it to FinalDir(run)
    return;
  }
  if (stopping_) {
    // Stopped by us (or by the same Ctrl-C): not a failure, rerun on resume.
    fs::remove_all(partial);
    return;
  }
  if (first && status == kExitBadInput) {
    // Bad input (config, --set, --plugin, --runner) fails every run alike:
    // stop at once and show why.
    Print(fmt::format("error: pams run refused its input ({}, exit status {}):\n{}",
                      Label(run), kExitBadInput,
                      TailLines(partial / "stderr.txt", kStderrTailLines)));
    fs::remove_all(partial);
    bad_input_ = true;
    Stop(pool, SIGTERM);
    return;
  }
  failed_.push_back(run);
  fs::remove_all(FailedDir(run));
  if (fs::exists(partial)) fs::rename(partial, FailedDir(run));
  const fs::path failed_stderr = FailedDir(run) / "stderr.txt";
  Print(fmt::format("error: the run of {} failed ({}); {} ends with:\n{}", Label(run), how,
                    failed_stderr.string(), TailLines(failed_stderr, kStderrTailLines)));
}

void Sweep::Stop(WorkerPool* pool, int signal) {
  if (!stopping_) {
    stopping_ = true;
    kill_deadline_ = Clock::now() + kStopGrace;
    pool->Abandon(signal);
  } else if (!killed_) {
    // A second Ctrl-C: do not wait for the runs to stop by themselves.
    killed_ = true;
    pool->Abandon(SIGKILL);
  }
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

  std::vector<size_t> pending;
  for (size_t run = 0; run < plan_.runs().size(); ++run) {
    if (!fs::exists(FinalDir(run))) pending.push_back(run);
  }
  to_run_ = static_cast<int64_t>(pending.size());
  const Clock::time_point start = Clock::now();
  Clock::duration waiting{};  // in pool->Wait: what the coordinator does not do

  {
    SignalFd signals(/*children=*/mpi_ == nullptr);
    std::unique_ptr<WorkerPool> pool;
    if (mpi_ != nullptr) {
      pool = std::make_unique<MpiWorkers>(mpi_, context_, &signals);
    } else {
      const int jobs = options_.jobs > 0 ? options_.jobs : CpuCount();
      // No more workers than runs: each costs a process start.
      const int workers = static_cast<int>(
          std::clamp<size_t>(pending.size(), 1, static_cast<size_t>(jobs)));
      pool = std::make_unique<LocalWorkers>(workers, context_, out_.string(), lock_fd_,
                                            &signals);
    }
    assigned_.assign(static_cast<size_t>(pool->size()), std::nullopt);
    if (!options_.quiet) {
      const size_t done_before = plan_.runs().size() - pending.size();
      Print(fmt::format("# sweep: {} runs{}, {} at a time{}, in {}", pending.size(),
                        done_before > 0 ? fmt::format(" ({} done before)", done_before) : "",
                        pool->size(),
                        mpi_ != nullptr ? fmt::format(" on {} MPI ranks", mpi_->size()) : "",
                        options_.out));
    }
    size_t next = 0;
    while (Busy() > 0 || (!stopping_ && next < pending.size())) {
      // Any error here still reaps the runs that are going, so that none is
      // left behind.
      try {
        for (size_t w = 0; w < assigned_.size() && !stopping_ && next < pending.size(); ++w) {
          if (!assigned_[w]) StartRun(pool.get(), static_cast<int>(w), pending[next++]);
        }
        progress_.UpdateNow(finished_, to_run_, fmt::format("{} running", Busy()));
        if (Busy() == 0) continue;
        // At most 0.2 s: the progress bar and the kill deadline need the time.
        const Clock::time_point wait = Clock::now();
        const WorkerPool::Event event = pool->Wait(std::chrono::milliseconds(200));
        waiting += Clock::now() - wait;
        HandleEvent(pool.get(), event);
        if (stopping_ && !killed_ && Clock::now() > kill_deadline_) {
          killed_ = true;
          pool->Abandon(SIGKILL);
        }
      } catch (const std::exception& e) {
        Print(fmt::format("error: {}", e.what()));
        internal_error_ = true;
        Stop(pool.get(), SIGTERM);
        // A pool that cannot stop its runs (MPI) waits for their replies;
        // one that cannot reach them either has nothing more to wait for.
        if (mpi_ != nullptr) break;
      }
    }
    pool->Close();
  }
  progress_.Clear();
  if (!options_.quiet && completed_ > 0) {
    // What a sweep costs its coordinator (this process, not its workers),
    // for judging how many workers or ranks one coordinator can serve: its
    // CPU time (with a pool that polls, MPI's, the polling's too) and the
    // time it spent on anything but waiting for its workers (set-up,
    // directories, messages, the summary): 1 / that is its limit.
    const double seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    const double working = seconds - std::chrono::duration<double>(waiting).count();
    Print(fmt::format("# sweep: {} runs in {:.3f} s ({:.1f} runs/s); the coordinator used "
                      "{:.3f} s of CPU ({:.1f} us a run) and worked {:.1f} us a run",
                      completed_, seconds, static_cast<double>(completed_) / seconds, cpu,
                      cpu / static_cast<double>(completed_) * 1e6,
                      working / static_cast<double>(completed_) * 1e6));
  }

  if (stop_signal_ != 0) {
    int64_t done = 0;
    for (size_t run = 0; run < plan_.runs().size(); ++run) done += fs::exists(FinalDir(run));
    Print(fmt::format("interrupted: {} of {} runs are done ({} in this sweep); run the "
                      "same command again to resume",
                      done, plan_.runs().size(), completed_));
    return 128 + stop_signal_;
  }
  if (bad_input_) {
    // The record this sweep wrote would refuse the corrected command.
    if (wrote_record_ && completed_ == 0) fs::remove(out_ / "sweep.json");
    return kExitBadInput;
  }
  if (internal_error_) return kExitFailure;
  const int status = WriteSummary();
  if (!failed_.empty()) {
    std::sort(failed_.begin(), failed_.end());
    std::string which;
    if (plan_.grid().empty()) {
      std::vector<int64_t> seeds;
      for (size_t run : failed_) seeds.push_back(Run(run).seed);
      which = "seeds " + FormatSeeds(seeds);
    } else {
      for (size_t run : failed_) which += (which.empty() ? "" : ", ") + plan_.RunName(Run(run));
    }
    Print(fmt::format("error: {} of {} runs failed ({}); run the same command again to "
                      "retry them",
                      failed_.size(), plan_.runs().size(), which));
    return kExitFailure;
  }
  return status;
}

// The summary of every completed run of the plan, this sweep's and earlier
// ones'.
int Sweep::WriteSummary() {
  std::vector<int64_t> seeds;
  std::vector<sweep::RunRecord> records;
  std::vector<size_t> done;
  for (size_t run = 0; run < plan_.runs().size(); ++run) {
    if (!fs::exists(FinalDir(run))) continue;
    done.push_back(run);
    seeds.push_back(Run(run).seed);
    records.push_back({Run(run).point, plan_.PointValues(Run(run).point), Run(run).seed,
                       (FinalDir(run) / "steps.csv").string()});
  }
  if (done.empty()) return 0;  // every run failed: nothing to summarize
  const int threads = options_.jobs > 0 ? options_.jobs : CpuCount();
  std::vector<RunFacts> runs = sweep::RunsFacts(records, threads, options_.sessions);
  const std::vector<std::string> keys = plan_.Keys();
  int status = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].error.empty()) continue;
    Print(fmt::format("error: {}: {}", Label(done[i]), runs[i].error));
    status = kExitFailure;
  }
  WriteFileAtomically((out_ / "summary.csv").string(), SummaryCsv(runs, keys));
  WriteFileAtomically((out_ / "summary.json").string(), SummaryJson(runs, keys));
  WriteFileAtomically((out_ / "aggregate.csv").string(), AggregateCsv(runs, keys));
  std::string sessions;
  for (int64_t session : options_.sessions) {
    sessions += (sessions.empty() ? ", sessions " : ",") + std::to_string(session);
  }
  std::vector<int64_t> done_seeds = seeds;
  std::sort(done_seeds.begin(), done_seeds.end());
  done_seeds.erase(std::unique(done_seeds.begin(), done_seeds.end()), done_seeds.end());
  const std::string points =
      plan_.grid().empty() ? "" : fmt::format(" at {} grid points", plan_.points());
  std::fputs(fmt::format("{} runs of {}{} (seeds {}{}); summary in {}\n", done.size(),
                         options_.config, points, FormatSeeds(done_seeds), sessions,
                         (out_ / "summary.csv").string())
                 .c_str(),
             stdout);
  std::fputs(FormatAggregate(runs, keys).c_str(), stdout);
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
  std::unique_ptr<MpiSession> mpi;
  try {
    mpi = MpiSession::StartIfLaunched();
  } catch (const ConfigError&) {
    if (LaunchedRank() != 0) return kExitBadInput;  // rank 0 says why
    throw;
  }
  if (mpi != nullptr && mpi->rank() != 0) return ServeMpiWorkerRank(mpi.get());
  // From here on, rank 0 of a job ends its workers however it returns
  // (~MpiSession).
  if (mpi != nullptr && options.jobs > 0) {
    throw ConfigError("--jobs", "does not apply under MPI: every rank but rank 0 does "
                                "one run at a time; choose the ranks with mpirun -n or "
                                "srun -n");
  }
  CheckSweepPaths(options);
  const SweepPlan plan(SpecOf(options));
  // Bad input found here (the config file, --set, --grid, --plugin) fails
  // before any run; the rest (--runner) by the first run.
  const Json config = plan.ApplySets(ParseJsonFile(options.config));
  {
    // Each grid point's errors stop the sweep before any run starts, and
    // its warnings are printed once instead of in every run's stderr.
    std::set<std::string, std::less<>> warned;
    sweep::CheckPoints(LoadRegistry(options.plugins), plan, config,
                       {fs::path(options.config).parent_path().string(), options.runner,
                        plan.names()},
                       [&warned](std::string_view message) {
                         if (warned.emplace(message).second) {
                           std::fprintf(stderr, "warning: %.*s\n",
                                        static_cast<int>(message.size()), message.data());
                         }
                       });
  }
  WorkerContext context{fs::absolute(options.config).string(), config, options.plugins,
                        options.runner};
  Json command = CommandRecord(options, plan, config);
  try {
    Sweep sweep(options, plan, std::move(command), std::move(context), mpi.get());
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
      "Run a config for many seeds (and a grid of parameters) on all cores, or on "
      "every rank of an MPI job (mpirun -n N pams sweep ...), write each run's "
      "outputs and a summary of their stylized facts; run again on the same --out "
      "to resume.");
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
  sweep->add_option("--grid", options->grid,
                    "Run every value of a config key: KEY=JSON_ARRAY, KEY as in --set, "
                    "e.g. 'FCNAgents.fundamentalWeight=[0.5,1.0]' (repeatable: the "
                    "cartesian product of the keys, each point with every seed)")
      ->type_name("KEY=JSON_ARRAY");
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
