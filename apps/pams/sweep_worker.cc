// A sweep worker (see sweep_worker.h).

#include "sweep_worker.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <system_error>

#include <fmt/format.h>

#include "commands.h"
#include "pams/errors.h"
#include "pams/logs/csv_loggers.h"
#include "pams/logs/market_step_loggers.h"
#include "pams/runners/runner.h"
#include "pams/simulator/simulator.h"
#include "pams/tensorflow/tensorflow_runner.h"
#include "sweep/sweep_run.h"

namespace pams::cli {

namespace {

// Points this process's stdout and stderr at two files for its lifetime,
// as the shell does for a `pams run` child; restores them after.
class RedirectOutput {
 public:
  // Throws std::system_error naming the file that cannot be created.
  RedirectOutput(const std::string& out, const std::string& err) {
    std::fflush(stdout);
    std::fflush(stderr);
    saved_out_ = dup(STDOUT_FILENO);
    saved_err_ = dup(STDERR_FILENO);
    Point(out, STDOUT_FILENO);
    Point(err, STDERR_FILENO);
  }
  ~RedirectOutput() {
    std::fflush(stdout);
    std::fflush(stderr);
    Restore(saved_out_, STDOUT_FILENO);
    Restore(saved_err_, STDERR_FILENO);
  }
  RedirectOutput(const RedirectOutput&) = delete;
  RedirectOutput& operator=(const RedirectOutput&) = delete;

 private:
  static void Restore(int saved, int fd) {
    if (saved < 0) return;
    dup2(saved, fd);
    close(saved);
  }
  static void Point(const std::string& path, int fd) {
    const int file = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (file < 0) throw std::system_error(errno, std::generic_category(), path);
    dup2(file, fd);
    close(file);
  }

  int saved_out_ = -1;
  int saved_err_ = -1;
};

// The run itself, as run_command.cc's Run: the same loggers (the print
// logger last), the same runner calls; its config and runner as every
// sweep's run has them (the sweep core's PointConfig and MakeRunner).
// Returns the exit status `pams run` would have; prints an error as it
// would.
int Run(const ClassRegistry& registry, const WorkerContext& context, int64_t seed,
        const std::vector<std::string>& sets, const std::filesystem::path& dir) {
  try {
    const sweep::RunSite site{
        std::filesystem::path(context.config_path).parent_path().string(), context.runner,
        sweep::CliNames()};
    Json settings = sweep::PointConfig(
        context.config, sweep::SplitAssignments(sets, "--set", "KEY=JSON"), site.names);
    tensorflow::ConfigureFromSettings(settings);
    Loggers loggers;
    MarketStepPrintLogger print_logger(stdout);
    StepsCsvLogger steps((dir / "steps.csv").string());
    loggers.add(&steps);
    AgentsCsvLogger agents((dir / "agents.csv").string());
    loggers.add(&agents);
    loggers.add(&print_logger);
    std::unique_ptr<Runner> runner =
        sweep::MakeRunner(registry, std::move(settings), seed, site, &loggers, {});
    runner->main(stdout);
    std::fflush(stdout);
    return 0;
  } catch (const ConfigError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n",
                 ShortenForMessage(e.what(), kMaxMessageBytes).c_str());
    return kExitFailure;
  }
}

}  // namespace

Json WorkerContext::ToJson() const {
  return Json{{"config_path", config_path},
              {"config", config},
              {"plugins", plugins},
              {"runner", runner}};
}

WorkerContext WorkerContext::FromJson(const Json& json) {
  try {
    WorkerContext context;
    context.config_path = json.at("config_path").get<std::string>();
    context.config = json.at("config");
    context.plugins = json.at("plugins").get<std::vector<std::string>>();
    context.runner = json.at("runner").get<std::string>();
    return context;
  } catch (const Json::exception& e) {
    throw ConfigError("sweep worker", std::string("malformed context: ") + e.what());
  }
}

std::string CarryOutRun(const ClassRegistry& registry, const WorkerContext& context,
                        const std::string& task) {
  Json reply = {{"run", -1}, {"status", kExitFailure}, {"error", ""}};
  try {
    const Json message = Json::parse(task);
    reply["run"] = message.at("run");
    const std::filesystem::path dir = message.at("dir").get<std::string>();
    const int64_t seed = message.at("seed").get<int64_t>();
    const auto sets = message.at("sets").get<std::vector<std::string>>();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    if (message.contains("params")) {
      std::ofstream params(dir / "params.json");
      params << message["params"].dump(2) << "\n";
      if (!params.flush()) throw std::runtime_error((dir / "params.json").string() + ": cannot write");
    }
    int status = 0;
    {
      RedirectOutput redirect((dir / "stdout.txt").string(), (dir / "stderr.txt").string());
      status = Run(registry, context, seed, sets, dir);
    }
    if (status == 0) {
      // Complete: under its final name, which only complete runs have.
      std::filesystem::rename(dir, message.at("final").get<std::string>());
    }
    reply["status"] = status;
    if (status != 0) reply["error"] = fmt::format("exit status {}", status);
  } catch (const std::exception& e) {
    reply["error"] = e.what();
  }
  return reply.dump();
}

int ServeSweepWorker(const WorkerContext& context, WorkerChannel* channel) {
  const ClassRegistry registry = LoadRegistry(context.plugins);
  std::string task;
  while (channel->Receive(&task)) channel->Send(CarryOutRun(registry, context, task));
  return 0;
}

int RunLocalSweepWorker(int argc, char** argv) {
  int fd = -1;
  if (argc >= 3) {
    const char* end = argv[2] + std::strlen(argv[2]);
    const auto [ptr, error] = std::from_chars(argv[2], end, fd);
    if (error != std::errc() || ptr != end) fd = -1;
  }
  if (fd < 0) {
    std::fprintf(stderr, "error: %s is started by pams sweep, not by hand\n",
                 kLocalWorkerCommand);
    return kExitBadInput;
  }
  // Not inherited by the processes of a parallel runner.
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  try {
    FdChannel channel(fd, fd);
    std::string first;
    if (!channel.Receive(&first)) return 0;
    return ServeSweepWorker(WorkerContext::FromJson(Json::parse(first)), &channel);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: sweep worker: %s\n", e.what());
    return kExitFailure;
  }
}

bool FdChannel::Receive(std::string* message) {
  for (;;) {
    if (TakeMessage(message)) return *message != "exit";
    if (!ReadAvailable()) return false;
  }
}

void FdChannel::Send(const std::string& message) {
  const std::string line = message + "\n";
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(out_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "sweep channel");
    done += static_cast<size_t>(n);
  }
}

bool FdChannel::ReadAvailable() {
  char chunk[4096];
  ssize_t n;
  do {
    n = read(in_, chunk, sizeof chunk);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return false;
  buffer_.append(chunk, static_cast<size_t>(n));
  return true;
}

bool FdChannel::TakeMessage(std::string* message) {
  const size_t end = buffer_.find('\n');
  if (end == std::string::npos) return false;
  message->assign(buffer_, 0, end);
  buffer_.erase(0, end + 1);
  return true;
}

}  // namespace pams::cli
