#include "pams/tensorflow/tensorflow_runner.h"

#include <algorithm>
#include <thread>

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"
#include "pams/tensorflow/model.h"
#include "pams/tensorflow/tensorflow_agent.h"

namespace pams::tensorflow {

TensorFlowAgentParallelRunner::TensorFlowAgentParallelRunner(
    Json settings, Random prng, Logger* logger, const ClassRegistry& registry)
    : MultiProcessAgentParallelRunner(std::move(settings), std::move(prng),
                                      logger, registry) {
  set_class_name("TensorFlowAgentParallelRunner");
  // As the seed's runner imports TensorFlow when it is created.
  EnsureLoaded();
}

std::vector<std::string> TensorFlowAgentParallelRunner::SimulationKeys() {
  std::vector<std::string> keys = MultiProcessAgentParallelRunner::SimulationKeys();
  for (const char* key :
       {"tensorflowIntraOpThreads", "tensorflowInterOpThreads", "tensorflowGpuMemoryGrowth"}) {
    keys.push_back(key);
  }
  return keys;
}

Options OptionsFromSettings(const Settings& simulation,
                            std::optional<int> default_intra_op_threads) {
  Options options;
  options.intra_op_threads = default_intra_op_threads;
  auto positive = [](const Settings& s) {
    const int64_t v = s.as_int();
    if (v < 1 || v > 4096) {
      s.fail("must be an integer between 1 and 4096, got " + s.json().dump());
    }
    return static_cast<int>(v);
  };
  if (auto v = simulation.find("tensorflowIntraOpThreads")) {
    options.intra_op_threads = positive(*v);
  }
  if (auto v = simulation.find("tensorflowInterOpThreads")) {
    options.inter_op_threads = positive(*v);
  }
  if (auto v = simulation.find("tensorflowGpuMemoryGrowth")) {
    options.gpu_memory_growth = v->as_bool();
  }
  return options;
}

void ConfigureFromSettings(const Json& config) {
  if (!config.is_object() || !config.contains("simulation")) return;
  const Settings simulation(config["simulation"], "simulation");
  if (!simulation.is_object()) return;
  if (!simulation.has("tensorflowIntraOpThreads") &&
      !simulation.has("tensorflowInterOpThreads") &&
      !simulation.has("tensorflowGpuMemoryGrowth")) {
    return;
  }
  Configure(OptionsFromSettings(simulation, std::nullopt));
}

Options WorkerOptionsFor(const Json& config) {
  static const Json kEmpty = Json::object();
  const Json& simulation =
      config.is_object() && config.contains("simulation") ? config["simulation"] : kEmpty;
  // So that the workers do not use more threads than CPUs in total.
  const int cpus = std::max(1u, std::thread::hardware_concurrency());
  Options options = OptionsFromSettings(
      Settings(simulation, "simulation"),
      std::max(1, cpus / AgentParallelRunner::ConcurrencyFor(config)));
  if (!options.inter_op_threads) options.inter_op_threads = 1;
  if (!options.gpu_memory_growth) options.gpu_memory_growth = true;
  return options;
}

void TensorFlowAgentParallelRunner::configure(const Settings& simulation) {
  MultiProcessAgentParallelRunner::configure(simulation);
  options_ = WorkerOptionsFor(settings());
}

void TensorFlowAgentParallelRunner::on_run_start() {
  if (!is_replica() && start_method() == "fork" && IsInitialized()) {
    throw SimulationError(
        "TensorFlow has already run in this process, so workers started by "
        "\"fork\" would hang (a forked child has none of TensorFlow's thread "
        "pools): use \"spawn\" (the default) or \"forkserver\"");
  }
  MultiProcessAgentParallelRunner::on_run_start();
}

void TensorFlowAgentParallelRunner::prepare_worker_process() {
  Configure(options_);
}

bool TensorFlowAgentParallelRunner::prepare_main_process() {
  if (!MultiProcessAgentParallelRunner::prepare_main_process()) return false;
  if (start_method() == "fork") return false;
  if (IsInitialized() && !(CurrentOptions() == options_)) return false;
  Configure(options_);
  return true;
}

void TensorFlowAgentParallelRunner::worker_initializer() {
  for (const auto& agent : simulator().agents()) {
    if (auto* tf_agent = dynamic_cast<TensorFlowAgent*>(agent.get())) {
      tf_agent->model();
    }
  }
}

void RegisterClasses(ClassRegistry* registry) {
  registry->add_agent<TensorFlowAgent>("TensorFlowAgent");
  registry->add_runner<TensorFlowAgentParallelRunner>("TensorFlowAgentParallelRunner");
}

}  // namespace pams::tensorflow
