// TensorFlowAgentParallelRunner: MultiProcessAgentParallelRunner whose worker
// processes are prepared for agents that run TensorFlow in submit_orders()
// (the runner of PAMS's development branch, pams/runners/tensorflow_parallel.py,
// in C++).
//
// * Workers start with "spawn" by default: TensorFlow is not fork-safe once
//   it has run (a forked child keeps none of its thread pools). "forkserver"
//   is safe too; "fork" is refused with an error when TensorFlow already ran
//   in the main process.
// * Each worker configures TensorFlow once, before its first task and before
//   worker_initializer(), from these keys of "simulation":
//     tensorflowIntraOpThreads  int >= 1; default CPUs / concurrency(), >= 1
//     tensorflowInterOpThreads  int >= 1; default 1
//     tensorflowGpuMemoryGrowth bool; default true
//   passed to every session as a ConfigProto (tensorflow.h).
// * The default worker_initializer() loads the models of the simulation's
//   TensorFlowAgents, so the first tasks do not wait for them.
// * The main process is not configured by the runner. Results can depend on
//   the intra-op thread count, so for results identical to
//   SequentialRunner's set tensorflowIntraOpThreads and configure the main
//   process the same way (ConfigureFromSettings below; `pams run` does it
//   whenever the keys are set). Environment variables such as
//   TF_DETERMINISTIC_OPS reach the workers unchanged.
// Creating this runner when TensorFlow cannot be loaded throws ConfigError
// saying how to install it.

#ifndef PAMS_TENSORFLOW_TENSORFLOW_RUNNER_H_
#define PAMS_TENSORFLOW_TENSORFLOW_RUNNER_H_

#include <string>

#include "pams/export.h"
#include "pams/runners/parallel_runners.h"
#include "pams/tensorflow/tensorflow.h"

namespace pams {

class ClassRegistry;

namespace tensorflow {

class PAMS_EXPORT TensorFlowAgentParallelRunner : public MultiProcessAgentParallelRunner {
 public:
  TensorFlowAgentParallelRunner(Json settings, Random prng, Logger* logger,
                                const ClassRegistry& registry);

  // The "simulation" keys this class reads beyond SequentialRunner's.
  static std::vector<std::string> SimulationKeys();

  std::string default_start_method() const override { return "spawn"; }
  // Each worker's TensorFlow threads are sized to a share of the CPUs
  // (tensorflowIntraOpThreads' default); pinning keeps them on that share.
  bool default_worker_cpu_affinity() const override { return true; }
  // The options each worker applies.
  const Options& worker_options() const { return options_; }

  void worker_initializer() override;
  void prepare_worker_process() override;
  // Configures this process's TensorFlow as the workers' when it has not
  // run yet or runs with their options already (not for "fork": a forked
  // worker needs a main process where TensorFlow has not run).
  bool prepare_main_process() override;
  // The options (ConfigProto): workers configured otherwise are not reused.
  std::string worker_process_key() const override { return ConfigProtoBytes(options_); }

 protected:
  void configure(const Settings& simulation) override;
  void on_run_start() override;

 private:
  Options options_;
};

// The options TensorFlowAgentParallelRunner gives its workers for the whole
// config `config`: its tensorflow* keys, with intra-op threads defaulting to
// the CPUs / AgentParallelRunner::ConcurrencyFor(config) (at least 1, so
// that the workers together use no more threads than CPUs), one inter-op
// thread and memory growth on. Throws ConfigError naming a bad key.
PAMS_EXPORT Options WorkerOptionsFor(const Json& config);

// The TensorFlow options set by the tensorflow* keys of `simulation`
// (validated: ConfigError naming the key), with default_intra_op_threads
// when tensorflowIntraOpThreads is not set (nullopt: TensorFlow's default).
PAMS_EXPORT Options OptionsFromSettings(
    const Settings& simulation, std::optional<int> default_intra_op_threads);

// Configures this process from the tensorflow* keys of the config's
// "simulation" object when any is set (lazily: loads nothing), so that a
// SequentialRunner's process runs TensorFlow as the workers do.
PAMS_EXPORT void ConfigureFromSettings(const Json& config);

// Registers TensorFlowAgent and TensorFlowAgentParallelRunner.
PAMS_EXPORT void RegisterClasses(ClassRegistry* registry);

}  // namespace tensorflow
}  // namespace pams

#endif  // PAMS_TENSORFLOW_TENSORFLOW_RUNNER_H_
