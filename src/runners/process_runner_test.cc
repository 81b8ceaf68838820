// MultiProcessAgentParallelRunner: what the end-to-end tests
// (tests/parallel_test.py) cannot reach: a worker that cannot be started
// leaves no socket behind.

#include "pams/runners/parallel_runners.h"

#include <dirent.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"

namespace pams {
namespace {

int OpenDescriptors() {
  int n = 0;
  DIR* dir = opendir("/proc/self/fd");
  while (dirent* e = readdir(dir)) n += e->d_name[0] != '.';
  closedir(dir);
  return n - 1;  // the directory itself
}

// Makes every later fork, vfork, clone and clone3 of this process fail
// with EAGAIN, as when a system runs out of processes.
void ForbidNewProcesses() {
  const sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 4, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 3, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fork, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_vfork, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAGAIN),
  };
  sock_fprog program{static_cast<unsigned short>(sizeof filter / sizeof filter[0]),
                     const_cast<sock_filter*>(filter)};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    _exit(90);
  }
}

const char* kConfig = R"({
  "simulation": {"markets": ["Market"], "agents": ["FCNAgents"],
                 "numParallel": 2, "startMethod": "fork",
                 "sessions": [{"sessionName": 0, "iterationSteps": 5,
                               "withOrderPlacement": true, "withOrderExecution": true,
                               "withPrint": true, "maxNormalOrders": 2}]},
  "Market": {"class": "Market", "tickSize": 0.01, "marketPrice": 300.0},
  "FCNAgents": {"class": "FCNAgent", "numAgents": 4, "markets": ["Market"],
                "assetVolume": 50, "cashAmount": 10000, "fundamentalWeight": 1.0,
                "chartWeight": 0.0, "noiseWeight": 1.0, "noiseScale": 0.001,
                "timeWindowSize": 10, "orderMargin": 0.01}
})";

TEST(ProcessRunnerTest, AFailedStartLeavesNoSocket) {
  // In a child process: the filter cannot be lifted once installed.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const ClassRegistry registry = ClassRegistry::WithBuiltins();
    MultiProcessAgentParallelRunner runner(Json::parse(kConfig), Random(1), nullptr,
                                           registry);
    runner.setup();
    const int before = OpenDescriptors();
    ForbidNewProcesses();
    try {
      runner.run();
      _exit(91);  // the run needed no worker?
    } catch (const SimulationError& e) {
      if (std::string(e.what()).find("cannot fork a worker") == std::string::npos) {
        _exit(92);
      }
    }
    _exit(OpenDescriptors() == before ? 0 : 93);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "90: no seccomp; 91: no worker needed; 92: another error; "
         "93: a descriptor leaked";
}

}  // namespace
}  // namespace pams
