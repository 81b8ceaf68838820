// Worker CPU affinity (simulation.workerCpuAffinity): which CPUs each worker
// process of MultiProcessAgentParallelRunner may run on. Private to the
// library.
//
// Why: a framework's model call (TensorFlow's, for one) hops between the
// calling thread and the framework's own threads. Each hop is a wake-up that
// the kernel may place on another core, so two workers on two cores keep
// trading cores, queueing behind each other and losing their L2 caches.
// Pinning each worker's threads to its own cores stops that (on a 2-core
// machine, a Keras model whose weights fit in L2 went from 1.2-1.5x to
// 1.7-2.0x over SequentialRunner, bench/tensorflow_python_bench.py).
//
// Thread safety: the functions keep no state; PinProcess changes the whole
// process and is meant for a worker before it starts serving tasks.

#ifndef PAMS_SRC_RUNNERS_CPU_AFFINITY_H_
#define PAMS_SRC_RUNNERS_CPU_AFFINITY_H_

#include <string>
#include <vector>

namespace pams {

class Settings;

// The CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> AllowedCpus();

// `allowed` cut into `workers` consecutive blocks as even as possible, the
// first blocks one larger where it does not divide; with more workers than
// CPUs, worker k gets CPU allowed[k mod size]. REQUIRES: allowed non-empty,
// workers >= 1.
std::vector<std::vector<int>> SplitCpus(const std::vector<int>& allowed,
                                        int workers);

// The CPUs of each of `workers` workers that simulation.workerCpuAffinity
// (`value`) asks for: false: none (an empty result: no pinning); true:
// SplitCpus(allowed, workers); an array: worker k gets entry k mod size, an
// entry being a CPU number or a non-empty array of them, each one in
// `allowed`. Throws ConfigError naming the key (or the entry) for anything
// else.
std::vector<std::vector<int>> PlanWorkerCpus(const Settings& value,
                                             const std::vector<int>& allowed,
                                             int workers);

// "0-3,6": a CPU list as Linux writes it (for messages).
std::string FormatCpus(const std::vector<int>& cpus);

// Restricts every thread of this process to `cpus` (threads started later
// inherit it). Returns what failed, empty on success. REQUIRES: cpus
// non-empty.
std::string PinProcess(const std::vector<int>& cpus);

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_CPU_AFFINITY_H_
