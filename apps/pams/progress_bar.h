// ProgressBar: one line on stderr that shows how far a long task is
// (`[=====>    ] 42% session 1  step 2520/6000  12.3k steps/s  ETA 0:03`),
// redrawn in place. For the pams tool's run and sweep commands.
//
// It draws only when enabled (stderr is a terminal and the user did not ask
// for --quiet) and only once the task has run for `delay` seconds, so short
// runs print nothing. Update() is cheap enough to call every step: it reads
// the clock only every few calls and redraws at most ten times a second.
// One thread.

#ifndef PAMS_APPS_PAMS_PROGRESS_BAR_H_
#define PAMS_APPS_PAMS_PROGRESS_BAR_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace pams::cli {

class ProgressBar {
 public:
  // unit: what is counted, plural ("steps", "runs").
  ProgressBar(bool enabled, std::string unit, double delay_seconds = 1.0);
  // Clears the line if one was drawn.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Whether to draw by default: stderr is a terminal.
  static bool StderrIsTerminal();

  // done of total units; label is shown before the counts (e.g. "session 1").
  void Update(int64_t done, int64_t total, const std::string& label = "") {
    if (!enabled_ || (++calls_ & kClockEvery) != 0) return;
    MaybeDraw(done, total, label);
  }
  // Draws now if enabled and past the delay (e.g. after a slow unit).
  void UpdateNow(int64_t done, int64_t total, const std::string& label = "") {
    if (enabled_) MaybeDraw(done, total, label);
  }
  // Removes the line (before other output, and at the end).
  void Clear();

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr uint64_t kClockEvery = 63;  // read the clock every 64 calls

  void MaybeDraw(int64_t done, int64_t total, const std::string& label);

  bool enabled_;
  std::string unit_;
  double delay_;
  uint64_t calls_ = 0;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
};

// "1:02:03" / "2:03" for a duration in seconds.
std::string FormatDuration(double seconds);

}  // namespace pams::cli

#endif  // PAMS_APPS_PAMS_PROGRESS_BAR_H_
