#include "progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pams::cli {

namespace {

// "12.3k" for a rate.
std::string FormatRate(double rate) {
  char buf[32];
  if (rate >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.1fM", rate / 1e6);
  } else if (rate >= 1e4) {
    std::snprintf(buf, sizeof buf, "%.1fk", rate / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f", rate);
  }
  return buf;
}

}  // namespace

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const int64_t s = static_cast<int64_t>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld",
                  static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60),
                  static_cast<long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  }
  return buf;
}

ProgressBar::ProgressBar(bool enabled, std::string unit, double delay_seconds)
    : enabled_(enabled),
      unit_(std::move(unit)),
      delay_(delay_seconds),
      start_(Clock::now()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() { Clear(); }

bool ProgressBar::StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

void ProgressBar::Clear() {
  if (!drawn_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

void ProgressBar::MaybeDraw(int64_t done, int64_t total, const std::string& label) {
  const Clock::time_point now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < delay_) return;
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double fraction =
      total > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) : 0.0;
  constexpr int kWidth = 24;
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(kWidth, ' ');
  for (int i = 0; i < filled; ++i) bar[i] = '=';
  if (filled < kWidth) bar[filled] = '>';
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total - done) / rate : NAN;
  std::fprintf(stderr, "\r\033[K[%s] %3d%% %s%s%lld/%lld %s  %s %s/s  ETA %s", bar.c_str(),
               static_cast<int>(fraction * 100), label.c_str(), label.empty() ? "" : "  ",
               static_cast<long long>(done), static_cast<long long>(total), unit_.c_str(),
               FormatRate(rate).c_str(), unit_.c_str(), FormatDuration(eta).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace pams::cli
