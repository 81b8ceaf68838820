// Engine benchmarks: whole simulations of the samples (setup outside the
// timing), to see the warm per-step cost of the sequential engine.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "pams/config/json.h"
#include "pams/logs/market_step_loggers.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"

namespace {

void BM_Sample(benchmark::State& state, const std::string& config, bool print) {
  const pams::ClassRegistry registry = pams::ClassRegistry::WithBuiltins();
  const pams::Json settings =
      pams::ParseJsonFile(std::string(PAMS_SOURCE_DIR) + "/" + config);
  std::FILE* devnull = std::fopen("/dev/null", "w");
  int64_t steps = 0;
  uint64_t seed = 1;
  for (auto _ : state) {
    state.PauseTiming();
    pams::MarketStepPrintLogger logger(devnull);
    pams::SequentialRunner runner(settings, pams::Random(seed++),
                                  print ? &logger : nullptr, registry);
    runner.setup();
    steps = 0;
    for (const auto& s : runner.simulator().sessions()) steps += s->iteration_steps();
    state.ResumeTiming();
    runner.run();
  }
  state.counters["ns_per_step"] = benchmark::Counter(
      static_cast<double>(steps), benchmark::Counter::kIsIterationInvariantRate |
                                      benchmark::Counter::kInvert);
  std::fclose(devnull);
}

BENCHMARK_CAPTURE(BM_Sample, CI2002_print, "samples/CI2002/config.json", true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Sample, CI2002_quiet, "samples/CI2002/config.json", false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Sample, fat_finger, "samples/fat_finger/config.json", true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Sample, price_limit, "samples/price_limit/config.json", true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Sample, shock_transfer, "samples/shock_transfer/config.json", true)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
