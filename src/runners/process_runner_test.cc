// MultiProcessAgentParallelRunner: what the end-to-end tests
// (tests/parallel_test.py) cannot reach: a worker that cannot be started
// leaves no socket behind; workers kept between runs serve later runners
// of the same set-up (and only those) with the sequential results.

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

#include <set>
#include <type_traits>
#include <utility>
#include <string>
#include <vector>

#include "pams/agents/fcn_agent.h"
#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"
#include "pams/util/state.h"
#include "runners/worker_protocol.h"

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

// An FCNAgent (not one of the built-in classes, whose calls the main
// process runs itself) that records the processes its calls ran in.
class PidAgent : public FCNAgent {
 public:
  using FCNAgent::FCNAgent;
  void submit_orders(Markets markets, std::vector<Action>* orders) override {
    pids_.push_back(getpid());
    FCNAgent::submit_orders(markets, orders);
  }
  void save_state(StateWriter& out) const override { out.write_vector(pids_); }
  void load_state(StateReader& in) override { pids_ = in.read_vector<int>(); }
  const std::vector<int>& pids() const { return pids_; }

 private:
  std::vector<int> pids_;
};

const char* kConfig = R"({
  "simulation": {"markets": ["Market"], "agents": ["FCNAgents"],
                 "numParallel": 2, "startMethod": "fork",
                 "sessions": [{"sessionName": 0, "iterationSteps": 5,
                               "withOrderPlacement": true, "withOrderExecution": true,
                               "withPrint": true, "maxNormalOrders": 2}]},
  "Market": {"class": "Market", "tickSize": 0.01, "marketPrice": 300.0},
  "FCNAgents": {"class": "PidAgent", "numAgents": 4, "markets": ["Market"],
                "assetVolume": 50, "cashAmount": 10000, "fundamentalWeight": 1.0,
                "chartWeight": 0.0, "noiseWeight": 1.0, "noiseScale": 0.001,
                "timeWindowSize": 10, "orderMargin": 0.01}
})";

TEST(ProcessRunnerTest, AFailedStartLeavesNoSocket) {
  // In a child process: the filter cannot be lifted once installed.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ClassRegistry registry = ClassRegistry::WithBuiltins();
    registry.add_agent<PidAgent>("PidAgent");
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

const char* kKeptConfig = R"({
  "simulation": {"markets": ["Market"], "agents": ["PidAgents"],
                 "numParallel": 2, "startMethod": "fork",
                 "runRoundsWhileWorkersStart": false,
                 "sessions": [{"sessionName": 0, "iterationSteps": 40,
                               "withOrderPlacement": true, "withOrderExecution": true,
                               "withPrint": true, "maxNormalOrders": 4}]},
  "Market": {"class": "Market", "tickSize": 0.01, "marketPrice": 300.0},
  "PidAgents": {"class": "PidAgent", "numAgents": 8, "markets": ["Market"],
                "assetVolume": 50, "cashAmount": 10000, "fundamentalWeight": 1.0,
                "chartWeight": 0.0, "noiseWeight": 1.0, "noiseScale": 0.001,
                "timeWindowSize": 10, "orderMargin": 0.01}
})";

// The worker processes a run's calls ran in, and every agent's cash and
// last price, for a runner of class T.
template <typename T>
std::pair<std::set<int>, std::vector<double>> KeptRun(const ClassRegistry& registry,
                                                      int seed, bool starter,
                                                      const char* extra = nullptr) {
  Json config = Json::parse(kKeptConfig);
  if (extra != nullptr) config["simulation"].update(Json::parse(extra));
  T runner(config, Random(seed), nullptr, registry);
  if constexpr (std::is_same_v<T, MultiProcessAgentParallelRunner>) {
    // Forked by a starter (as the Python package forks): kept.
    if (starter) {
      runner.set_worker_starter([&registry](int fd) {
        const pid_t pid = fork();
        if (pid == 0) {
          BecomeWorkerProcess();
          RunWorker(KeepOnlyDescriptor(fd), &registry);
        }
        return static_cast<int>(pid);
      });
    }
  }
  runner.setup();
  runner.run();
  std::set<int> pids;
  std::vector<double> outcome;
  for (const auto& agent : runner.simulator().agents()) {
    for (int pid : static_cast<const PidAgent&>(*agent).pids()) {
      if (pid != getpid()) pids.insert(pid);
    }
    outcome.push_back(agent->cash_amount());
  }
  outcome.push_back(runner.simulator().markets()[0]->get_market_price());
  return {pids, outcome};
}

TEST(ProcessRunnerTest, KeptWorkersServeLaterRunsOfTheSameSetUp) {
  ClassRegistry registry = ClassRegistry::WithBuiltins();
  registry.add_agent<PidAgent>("PidAgent");
  ShutdownKeptWorkers();
  std::set<int> all;
  for (int seed = 1; seed <= 3; ++seed) {
    const auto [pids, outcome] =
        KeptRun<MultiProcessAgentParallelRunner>(registry, seed, /*starter=*/true);
    EXPECT_EQ(outcome, KeptRun<SequentialRunner>(registry, seed, false).second);
    all.insert(pids.begin(), pids.end());
    EXPECT_EQ(KeptWorkerSets(), 1u);
  }
  EXPECT_EQ(all.size(), 2u);  // the same two workers for the three runs
  // Another set-up (three workers) starts others; both sets are kept.
  const auto [three, outcome] = KeptRun<MultiProcessAgentParallelRunner>(
      registry, 1, true, R"({"numParallel": 3})");
  for (int pid : three) EXPECT_EQ(all.count(pid), 0u);
  EXPECT_EQ(KeptWorkerSets(), 2u);
  ShutdownKeptWorkers();
  EXPECT_EQ(KeptWorkerSets(), 0u);
  // Forked without a starter: copies of this program, not kept; nor with
  // workerIdleTimeout 0.
  KeptRun<MultiProcessAgentParallelRunner>(registry, 1, false);
  KeptRun<MultiProcessAgentParallelRunner>(registry, 1, true, R"({"workerIdleTimeout": 0})");
  EXPECT_EQ(KeptWorkerSets(), 0u);
}

TEST(ProcessRunnerTest, AgentsKeptInWorkersOrSentWholeGiveTheSequentialResults) {
  // PidAgent's state grows at every call, so each answer carries it; its
  // prng moves through refills in a run this long.
  ClassRegistry registry = ClassRegistry::WithBuiltins();
  registry.add_agent<PidAgent>("PidAgent");
  const auto sequential = KeptRun<SequentialRunner>(registry, 5, false).second;
  for (const char* keep : {R"({"workerKeepsAgentStates": true, "workerIdleTimeout": 0})",
                           R"({"workerKeepsAgentStates": false, "workerIdleTimeout": 0})"}) {
    const auto [pids, outcome] =
        KeptRun<MultiProcessAgentParallelRunner>(registry, 5, false, keep);
    EXPECT_EQ(outcome, sequential) << keep;
    EXPECT_EQ(pids.size(), 2u) << keep;
  }
  Json config = Json::parse(kKeptConfig);
  config["simulation"]["workerKeepsAgentStates"] = "yes";
  try {
    MultiProcessAgentParallelRunner runner(config, Random(1), nullptr, registry);
    runner.setup();
    ADD_FAILURE() << "a string for a bool was taken";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("workerKeepsAgentStates"), std::string::npos)
        << e.what();
  }
}

TEST(ProcessRunnerTest, ARunOfBuiltInAgentsStartsNoWorker) {
  // Their calls are engine code and run in the main process: a worker
  // would only cost its start.
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  Json config = Json::parse(kConfig);
  config["FCNAgents"]["class"] = "FCNAgent";
  config["simulation"]["workerIdleTimeout"] = 300;
  ShutdownKeptWorkers();
  MultiProcessAgentParallelRunner runner(config, Random(1), nullptr, registry);
  runner.set_worker_starter([](int) -> int { throw SimulationError("a worker was started"); });
  runner.setup();
  runner.run();
  SequentialRunner sequential(config, Random(1), nullptr, registry);
  sequential.setup();
  sequential.run();
  EXPECT_EQ(runner.simulator().markets()[0]->get_market_price(),
            sequential.simulator().markets()[0]->get_market_price());
  EXPECT_EQ(KeptWorkerSets(), 0u);
}

TEST(ProcessRunnerTest, AForkedChildLeavesItsParentsKeptWorkersAlone) {
  ClassRegistry registry = ClassRegistry::WithBuiltins();
  registry.add_agent<PidAgent>("PidAgent");
  ShutdownKeptWorkers();
  const auto [before, outcome] =
      KeptRun<MultiProcessAgentParallelRunner>(registry, 1, /*starter=*/true);
  ASSERT_EQ(KeptWorkerSets(), 1u);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child sees no kept workers, and ending them ends nothing.
    const size_t seen = KeptWorkerSets();
    ShutdownKeptWorkers();
    _exit(seen == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(KeptWorkerSets(), 1u);
  const auto [after, again] =
      KeptRun<MultiProcessAgentParallelRunner>(registry, 2, /*starter=*/true);
  EXPECT_EQ(after, before);  // the same workers served the next run
  ShutdownKeptWorkers();
}

}  // namespace
}  // namespace pams
