// TensorFlowAgentParallelRunner and "fork": workers forked from a process
// where TensorFlow has not run work; once it has run (here: a model loaded
// in this process), "fork" is refused with a clear error, and "spawn" still
// works. Exit status 0 when all holds.
//
// Usage: tensorflow_fork_check CONFIG

#include <cstdio>
#include <string>

#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"
#include "pams/runners/worker.h"
#include "pams/tensorflow/model.h"
#include "pams/tensorflow/tensorflow.h"
#include "pams/tensorflow/tensorflow_runner.h"

namespace {

std::string RunWith(const pams::ClassRegistry& registry, pams::Json settings,
                    const std::string& method, const std::string& dir) {
  settings["simulation"]["startMethod"] = method;
  settings["simulation"]["numParallel"] = 2;
  settings["simulation"]["sessions"][1]["iterationSteps"] = 50;
  std::unique_ptr<pams::Runner> runner = registry.create_runner(
      "TensorFlowAgentParallelRunner",
      pams::RunnerSetUp{settings, pams::Random(1), nullptr, dir, {}}, "runner");
  try {
    runner->setup();
    runner->run();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

int main(int argc, char** argv) {
  pams::InitWorkerProcess(argc, argv, &pams::tensorflow::RegisterClasses);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CONFIG\n", argv[0]);
    return 2;
  }
  const std::string config = argv[1];
  const std::string dir = config.substr(0, config.rfind('/'));
  pams::ClassRegistry registry = pams::ClassRegistry::WithBuiltins();
  pams::tensorflow::RegisterClasses(&registry);
  const pams::Json settings = pams::ParseJsonFile(config);
  int failures = 0;

  std::string error = RunWith(registry, settings, "fork", dir);
  std::printf("fork before TensorFlow ran here: %s\n", error.empty() ? "ok" : error.c_str());
  failures += !error.empty();

  pams::tensorflow::GetModel(dir + "/model");  // TensorFlow runs in this process
  error = RunWith(registry, settings, "fork", dir);
  const bool refused = error.find("\"fork\" would hang") != std::string::npos;
  std::printf("fork after TensorFlow ran here: %s\n",
              refused ? ("refused: " + error).c_str() : ("NOT refused: " + error).c_str());
  failures += !refused;

  error = RunWith(registry, settings, "spawn", dir);
  std::printf("spawn after TensorFlow ran here: %s\n", error.empty() ? "ok" : error.c_str());
  failures += !error.empty();
  return failures == 0 ? 0 : 1;
}
