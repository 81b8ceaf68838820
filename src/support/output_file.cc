// How OutputFile keeps whole rows, even when a signal handler ends the
// process (ExitAfterWholeRows):
//
// Each open file has a slot: its descriptor, a fixed block of committed rows
// (never reallocated, never freed, so that a signal handler may read it at
// any time) and the number of committed bytes in it. The owner appends a row
// beyond that number and then publishes the new number (release); the bytes
// below it never change until the block is written out. Writing the block,
// by the owner or by ExitAfterWholeRows, needs the slot's state: the owner
// moves it from kIdle to kBusy for each write, ExitAfterWholeRows from kIdle
// to kTaken (for good: the process is ending). So a block is never written
// twice or while it is being reset, and ExitAfterWholeRows, finding a slot
// kBusy, leaves the exit to its owner, who checks for a pending exit after
// each write.
//
// Rows reach the file at least every kFlushSeconds: a process-wide flusher
// thread (started with the first file, one per process) writes each idle
// slot's committed rows out, taking the slot kIdle -> kBusy as the owner
// does, so a SIGKILL or the OOM killer loses at most the rows of the last
// second, even while the run waits in a long agent call. The owner takes the
// slot for each row it appends too (an uncontended compare-and-swap), since
// the flusher empties the block. A failed write of the flusher is kept in
// the slot and reported by the owner's next write.
//
// The process may fork (the multi-process runner's "fork" start method)
// while the flusher runs. A child forked in the middle of a flusher's pass
// would inherit that slot kBusy for good, and one forked while the thread
// was still starting could inherit a lock of the allocator held by it (the
// sanitizers' allocators do not take their locks around fork, as glibc's
// malloc does; a worker forked so hung for ever under AddressSanitizer). So
// StartFlusher returns once the thread has started, and fork waits for the
// flusher's pass to end (pthread_atfork), outside which the thread only
// sleeps.

#include "support/output_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>

#include "pams/errors.h"

namespace pams {

namespace output_file_internal {

enum State : int { kFree, kIdle, kBusy, kTaken };

struct Slot {
  std::atomic<int> state{kFree};
  int fd = -1;
  bool owns_fd = false;   // not stdout
  bool regular = false;   // a regular file: cut back to whole rows on error
  off_t written = 0;      // bytes written so far (whole rows)
  char* block = nullptr;  // kBlockBytes, allocated at first use
  std::atomic<size_t> committed{0};
  // The errno of a write the flusher thread made and failed (0: none),
  // reported by the owner.
  std::atomic<int> deferred_error{0};
};

}  // namespace output_file_internal

namespace {

using output_file_internal::Slot;
using output_file_internal::kBusy;
using output_file_internal::kFree;
using output_file_internal::kIdle;
using output_file_internal::kTaken;

constexpr size_t kBlockBytes = 1 << 16;
// Slots for the files open at once; a run has at most four (steps, agents,
// events, and a temporary steps file for --plot). Files beyond them get a
// slot of their own, which ExitAfterWholeRows does not see.
constexpr int kSlots = 32;
Slot g_slots[kSlots];
std::atomic<int> g_exit_status{-1};
std::atomic<bool> g_alarm_armed{false};
// How often the flusher writes committed rows out (so rows are on disk at
// most about this old, plus a write).
constexpr long kFlushNanoseconds = 500'000'000;
// The process whose flusher thread runs (a forked child has none).
std::atomic<pid_t> g_flusher_pid{0};
// The process whose flusher thread has started (StartFlusher waits for it).
std::atomic<pid_t> g_flusher_started{0};
// Held by the flusher for each pass over the slots, and by fork.
pthread_mutex_t g_pass_mutex = PTHREAD_MUTEX_INITIALIZER;

// write(2) of all of data; 0 or the errno of the failure. Async-signal-safe.
int WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

// Writes the committed rows of a slot held kBusy or kTaken and empties the
// block; 0 or the errno. A failed write to a regular file (a full disk) is
// cut back to the rows written before it. Async-signal-safe.
int WriteCommitted(Slot* s) {
  const size_t n = s->committed.load(std::memory_order_acquire);
  if (n == 0) return 0;
  const int error = WriteAll(s->fd, s->block, n);
  if (error == 0) {
    s->written += static_cast<off_t>(n);
  } else if (s->regular && ftruncate(s->fd, s->written) == 0) {
    lseek(s->fd, s->written, SEEK_SET);
  }
  s->committed.store(0, std::memory_order_release);
  return error;
}

void ExitOnAlarm(int) { _exit(g_exit_status.load()); }

// Takes the slot for a write (kIdle -> kBusy). When ExitAfterWholeRows has
// taken it, the process is ending: wait for that. The flusher holds a slot
// for one write: yield to it before sleeping.
void Acquire(Slot* s) {
  for (int tries = 0;; ++tries) {
    int expected = kIdle;
    if (s->state.compare_exchange_strong(expected, kBusy)) return;
    const int status = g_exit_status.load();
    if (status >= 0) OutputFile::ExitAfterWholeRows(status);
    if (tries < 100) {
      sched_yield();
      continue;
    }
    const timespec pause{0, 1'000'000};
    nanosleep(&pause, nullptr);
  }
}

// Ends a write; ends the process if an exit waited for it.
void Release(Slot* s, int state) {
  s->state.store(state);
  const int status = g_exit_status.load();
  if (status >= 0) OutputFile::ExitAfterWholeRows(status);
}

// The flusher thread: every kFlushNanoseconds, writes out the committed
// rows of every slot not in use.
[[noreturn]] void FlushLoop() {
  g_flusher_started.store(getpid());
  g_flusher_started.notify_all();
  for (;;) {
    const timespec pause{0, kFlushNanoseconds};
    nanosleep(&pause, nullptr);
    pthread_mutex_lock(&g_pass_mutex);
    for (Slot& s : g_slots) {
      if (s.committed.load(std::memory_order_relaxed) == 0) continue;
      int expected = kIdle;
      if (!s.state.compare_exchange_strong(expected, kBusy)) continue;
      // Not stdout, whose rows must stay in order with what the program
      // prints there through stdio.
      if (!s.owns_fd) {
        Release(&s, kIdle);
        continue;
      }
      if (const int error = WriteCommitted(&s)) {
        int none = 0;
        s.deferred_error.compare_exchange_strong(none, error);
      }
      Release(&s, kIdle);
    }
    pthread_mutex_unlock(&g_pass_mutex);
  }
}

void LockPass() { pthread_mutex_lock(&g_pass_mutex); }
void UnlockPass() { pthread_mutex_unlock(&g_pass_mutex); }

// Starts this process's flusher thread, unless it runs.
void StartFlusher() {
  const pid_t self = getpid();
  if (g_flusher_started.load() == self) return;
  pid_t running = g_flusher_pid.load();
  if (running != self && g_flusher_pid.compare_exchange_strong(running, self)) {
    // Signals go to the program's own threads, not to this one.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    static const int registered = pthread_atfork(LockPass, UnlockPass, UnlockPass);
    (void)registered;
    std::thread(FlushLoop).detach();
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
  // Whichever thread started it, this one may fork next: wait until it runs.
  for (pid_t started = g_flusher_started.load(); started != self;
       started = g_flusher_started.load()) {
    g_flusher_started.wait(started);
  }
}

}  // namespace

void OutputFile::ExitAfterWholeRows(int status) noexcept {
  int none = -1;
  g_exit_status.compare_exchange_strong(none, status);  // the first status wins
  bool busy = false;
  for (Slot& s : g_slots) {
    int expected = kIdle;
    if (s.state.compare_exchange_strong(expected, kTaken)) {
      WriteCommitted(&s);
    } else if (expected == kBusy) {
      busy = true;
    }
  }
  if (!busy) _exit(g_exit_status.load());
  // Its owner ends the process after the write; a write that never ends
  // (a pipe nobody reads) is cut short by the alarm.
  if (!g_alarm_armed.exchange(true)) {
    struct sigaction action {};
    action.sa_handler = ExitOnAlarm;
    sigemptyset(&action.sa_mask);
    sigaction(SIGALRM, &action, nullptr);
    alarm(2);
  }
}

OutputFile::OutputFile(const std::string& path) : path_(path), slot_(nullptr) {
  int fd = STDOUT_FILENO;
  if (path != "-") {
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
      const int error = errno;
      throw ConfigError(path, std::string("cannot open for writing: ") +
                                  std::strerror(error));
    }
  }
  for (Slot& s : g_slots) {
    int expected = kFree;
    if (s.state.compare_exchange_strong(expected, kBusy)) {
      slot_ = &s;
      break;
    }
  }
  if (slot_ == nullptr) {
    slot_ = new Slot;
    slot_->state.store(kBusy);
    owns_slot_ = true;
  }
  if (slot_->block == nullptr) slot_->block = new char[kBlockBytes];
  struct stat st {};
  slot_->fd = fd;
  slot_->owns_fd = path != "-";
  slot_->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  slot_->written = slot_->regular ? lseek(fd, 0, SEEK_CUR) : 0;
  slot_->committed.store(0);
  slot_->deferred_error.store(0);
  slot_->state.store(kIdle);
  if (!owns_slot_) StartFlusher();
}

OutputFile::~OutputFile() {
  try {
    close();
  } catch (const SimulationError&) {
    // Reported by the close() that a run makes at its end.
  }
}

int OutputFile::WriteBlock() {
  Acquire(slot_);
  // Text that stdio holds for stdout goes first.
  if (slot_->fd == STDOUT_FILENO) std::fflush(stdout);
  int error = WriteCommitted(slot_);
  if (error == 0) error = slot_->deferred_error.exchange(0);
  Release(slot_, kIdle);
  return error;
}

void OutputFile::commit_row() {
  if (closed_) {
    row_.clear();
    throw OutputError(path_, "a row was logged after the file was closed (the "
                             "logger's flush() at the end of the run closes it)",
                      0);
  }
  // The flusher thread writes the block out whenever the slot is not held:
  // append under the slot, where the committed size stays put.
  Acquire(slot_);
  int error = 0;
  size_t used = slot_->committed.load(std::memory_order_relaxed);
  if (used + row_.size() > kBlockBytes) {
    // Text that stdio holds for stdout goes first.
    if (slot_->fd == STDOUT_FILENO) std::fflush(stdout);
    error = WriteCommitted(slot_);
    used = 0;
  }
  if (error == 0 && row_.size() > kBlockBytes) {
    // Longer than a block (a huge name): written on its own, still whole.
    error = WriteAll(slot_->fd, row_.data(), row_.size());
    if (error == 0) {
      slot_->written += static_cast<off_t>(row_.size());
    } else if (slot_->regular && ftruncate(slot_->fd, slot_->written) == 0) {
      lseek(slot_->fd, slot_->written, SEEK_SET);
    }
  } else if (error == 0) {
    std::memcpy(slot_->block + used, row_.data(), row_.size());
    slot_->committed.store(used + row_.size(), std::memory_order_release);
  }
  if (error == 0) error = slot_->deferred_error.exchange(0);
  Release(slot_, kIdle);
  row_.clear();
  if (error != 0) throw OutputError(path_, "writing failed", error);
}

void OutputFile::flush() {
  if (closed_) return;
  if (const int error = WriteBlock()) throw OutputError(path_, "writing failed", error);
}

void OutputFile::close() {
  if (closed_) return;
  closed_ = true;
  Slot* s = slot_;
  Acquire(s);
  if (s->fd == STDOUT_FILENO) std::fflush(stdout);
  int write_error = WriteCommitted(s);
  if (write_error == 0) write_error = s->deferred_error.exchange(0);
  int close_error = 0;
  // close(2) reports what a file system could only find out then (NFS
  // writes back on close). EINTR: the descriptor is closed all the same.
  if (s->owns_fd && ::close(s->fd) != 0 && errno != EINTR) close_error = errno;
  s->fd = -1;
  slot_ = nullptr;
  if (owns_slot_) {
    delete[] s->block;
    delete s;
  } else {
    Release(s, kFree);
  }
  if (write_error != 0) throw OutputError(path_, "writing failed", write_error);
  if (close_error != 0) throw OutputError(path_, "closing failed", close_error);
}

}  // namespace pams
