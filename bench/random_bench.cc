// Benchmarks of the random/ generators on the draws PAMS makes most: the
// per-step shuffle of agents (Random::sample_all, and LazySample as the
// runner uses it), random(), gauss() and the fundamentals' standard_normal().

#include <cstdint>
#include <numeric>
#include <vector>

#include <benchmark/benchmark.h>

#include "pams/random/lazy_sample.h"
#include "pams/random/numpy_random.h"
#include "pams/random/random.h"

namespace pams {
class Agent;
}  // namespace pams

namespace {

// sample_all of N agent indices into a reused vector, as the runner does
// every step; reported per element.
void BM_SampleAll(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<int32_t> agents(n);
  std::iota(agents.begin(), agents.end(), 0);
  std::vector<int32_t> out;
  out.reserve(n);
  pams::Random rng(42);
  for (auto _ : state) {
    rng.sample_all(std::span<const int32_t>(agents), &out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}
BENCHMARK(BM_SampleAll)->Arg(100)->Arg(1000)->Arg(10000);

// The runner's per-step shuffle as it runs: a LazySample of N agents of
// which the first is taken (maxNormalOrders 1), then finished so that the
// generator advances exactly as random.sample(agents, N) would. This is the
// floor of a step with N agents: exact reproduction cannot draw less.
void BM_ShuffleFloor(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<pams::Agent*> agents(n);
  for (size_t i = 0; i < n; ++i) {
    agents[i] = reinterpret_cast<pams::Agent*>(static_cast<uintptr_t>(i + 1));
  }
  pams::Random rng(42);
  pams::LazySample<pams::Agent*> sample;
  for (auto _ : state) {
    sample.start(&rng, agents);
    benchmark::DoNotOptimize(sample.next());
    sample.finish();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}
BENCHMARK(BM_ShuffleFloor)->Arg(100)->Arg(1000)->Arg(10000);

void BM_Random(benchmark::State& state) {
  pams::Random rng(42);
  for (auto _ : state) benchmark::DoNotOptimize(rng.random());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Random);

void BM_Gauss(benchmark::State& state) {
  pams::Random rng(42);
  for (auto _ : state) benchmark::DoNotOptimize(rng.gauss(0.0, 1.0));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Gauss);

void BM_StandardNormal(benchmark::State& state) {
  pams::NumpyRandom rng(42);
  for (auto _ : state) benchmark::DoNotOptimize(rng.standard_normal());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StandardNormal);

}  // namespace
