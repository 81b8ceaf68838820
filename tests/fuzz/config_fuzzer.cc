// libFuzzer target: config loading and validation, then a short run.
//
// Each input is a config file's bytes. It is parsed as pams run parses it
// (ParseJson), validated (Runner::validate, which reaches every built-in
// class's setup), and, when valid and small, run. Bad input must end in
// ConfigError or SimulationError: any crash, sanitizer report, leak,
// uncaught exception or hang is a finding.
//
// Sizes are capped before validation (groups of at most kMaxEntities
// entities, runs of at most kMaxRunSteps steps): a config asking for 10^8
// agents is legitimately slow and large, not a bug, and would only make the
// fuzzer time out. The refusal of absurd sizes is tested by
// tests/bad_configs.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pams/config/json.h"
#include "pams/errors.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"
#include "pams/simulator/session.h"
#include "simulator/simulator_access.h"

namespace {

constexpr int64_t kMaxEntities = 300;
constexpr int64_t kMaxRunSteps = 60;

// Whether some count in the config is too large to fuzz quickly.
bool TooLarge(const pams::Json& j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      const pams::Json& v = it.value();
      if ((key == "numAgents" || key == "numMarkets" || key == "from" || key == "to") &&
          v.is_number() && (v.get<double>() > kMaxEntities || v.get<double>() < -kMaxEntities)) {
        return true;
      }
      if (TooLarge(v)) return true;
    }
  } else if (j.is_array()) {
    for (const pams::Json& v : j) {
      if (TooLarge(v)) return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const pams::ClassRegistry registry = pams::ClassRegistry::WithBuiltins();
  pams::Json config;
  try {
    config = pams::ParseJson(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
  } catch (const pams::ConfigError&) {
    return 0;
  }
  if (TooLarge(config)) return 0;
  try {
    pams::SequentialRunner checker(config, pams::Random(1), nullptr, registry);
    pams::internal::SimulatorAccess::SetQuiet(&checker.simulator(), true);
    if (!checker.validate().empty()) return 0;
    int64_t steps = 0;
    for (const auto& session : checker.simulator().sessions()) {
      steps += session->iteration_steps();
    }
    if (steps > kMaxRunSteps) return 0;
    pams::SequentialRunner runner(config, pams::Random(1), nullptr, registry);
    pams::internal::SimulatorAccess::SetQuiet(&runner.simulator(), true);
    try {
      runner.setup();
    } catch (const pams::ConfigError&) {
      // validate() accepted it: the two must agree.
      __builtin_trap();
    }
    runner.run();
  } catch (const pams::ConfigError&) {
  } catch (const pams::SimulationError&) {
  }
  return 0;
}
