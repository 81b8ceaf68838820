// Worker CPU affinity: the plan from the config, and pinning a process.

#include "runners/cpu_affinity.h"

#include <dirent.h>
#include <sched.h>
#include <sys/types.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "pams/config/settings.h"
#include "support/int_ranges.h"

namespace pams {

std::vector<int> AllowedCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) cpus.push_back(0);  // cannot happen for a running process
  return cpus;
}

std::vector<std::vector<int>> SplitCpus(const std::vector<int>& allowed,
                                        int workers) {
  const int n = static_cast<int>(allowed.size());
  std::vector<std::vector<int>> blocks(static_cast<size_t>(workers));
  if (workers >= n) {
    for (int k = 0; k < workers; ++k) blocks[k].push_back(allowed[k % n]);
    return blocks;
  }
  int next = 0;
  for (int k = 0; k < workers; ++k) {
    const int size = n / workers + (k < n % workers ? 1 : 0);
    blocks[k].assign(allowed.begin() + next, allowed.begin() + next + size);
    next += size;
  }
  return blocks;
}

std::string FormatCpus(const std::vector<int>& cpus) { return FormatIntRanges(cpus); }

namespace {

int ReadCpu(const Settings& value, const std::vector<int>& allowed) {
  const int64_t cpu = value.as_int();
  if (!std::binary_search(allowed.begin(), allowed.end(), cpu)) {
    value.fail("CPU " + std::to_string(cpu) +
               " is not one this process may run on (it may run on " +
               FormatCpus(allowed) + ")");
  }
  return static_cast<int>(cpu);
}

}  // namespace

std::vector<std::vector<int>> PlanWorkerCpus(const Settings& value,
                                             const std::vector<int>& allowed,
                                             int workers) {
  const Json& json = value.json();
  if (json.is_boolean()) {
    return json.get<bool>() ? SplitCpus(allowed, workers)
                            : std::vector<std::vector<int>>{};
  }
  if (!json.is_array() || json.empty()) {
    value.fail(
        "expected true (each worker on its own share of the CPUs), false (no "
        "pinning) or a non-empty array of CPUs per worker (e.g. [0, 1] or "
        "[[0, 1], [2, 3]]), got " + json.dump());
  }
  std::vector<std::vector<int>> entries;
  for (size_t i = 0; i < value.size(); ++i) {
    const Settings entry = value.at(i);
    std::vector<int> cpus;
    if (entry.json().is_array()) {
      if (entry.size() == 0) entry.fail("expected a non-empty array of CPUs, got []");
      for (size_t j = 0; j < entry.size(); ++j) {
        cpus.push_back(ReadCpu(entry.at(j), allowed));
      }
    } else {
      cpus.push_back(ReadCpu(entry, allowed));
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    entries.push_back(std::move(cpus));
  }
  std::vector<std::vector<int>> plan;
  for (int k = 0; k < workers; ++k) plan.push_back(entries[k % entries.size()]);
  return plan;
}

std::string PinProcess(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  // sched_setaffinity applies to one thread: set every thread there is (a
  // worker usually has one by now; threads started later inherit it).
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) {
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
      return "cannot run on CPUs " + FormatCpus(cpus) + ": " + std::strerror(errno);
    }
    return {};
  }
  std::string error;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (sched_setaffinity(tid, sizeof set, &set) != 0 && errno != ESRCH) {
      error = "cannot run on CPUs " + FormatCpus(cpus) + ": " + std::strerror(errno);
      break;
    }
  }
  closedir(dir);
  return error;
}

}  // namespace pams
