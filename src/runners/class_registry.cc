#include "pams/runners/class_registry.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <vector>

#include "pams/agents/arbitrage_agent.h"
#include "pams/agents/fcn_agent.h"
#include "pams/agents/market_maker_agent.h"
#include "pams/agents/test_agent.h"
#include "pams/errors.h"
#include "pams/events/fundamental_price_shock.h"
#include "pams/events/order_mistake_shock.h"
#include "pams/events/price_limit_rule.h"
#include "pams/events/trading_halt_rule.h"
#include "pams/market/index_market.h"
#include "pams/market/transaction_fee.h"
#include "pams/runners/parallel_runners.h"
#include "pams/runners/runner.h"
#include "pams/samples/black_scholes_workload_fcn_agent.h"
#include "pams/samples/cancel_fcn_agent.h"
#include "pams/samples/dark_pool_fcn_agent.h"
#include "pams/samples/dark_pool_market.h"
#include "pams/samples/invest_div_fcn_agent.h"
#include "pams/samples/workload_fcn_agent.h"
#include "support/edit_distance.h"

namespace pams {

namespace {

const char* KindName(ClassRegistry::Kind kind) {
  switch (kind) {
    case ClassRegistry::Kind::kMarket:
      return "market";
    case ClassRegistry::Kind::kAgent:
      return "agent";
    case ClassRegistry::Kind::kEvent:
      return "event";
    case ClassRegistry::Kind::kRunner:
      return "runner";
    case ClassRegistry::Kind::kTransactionFee:
      return "transaction fee";
  }
  return "?";
}

// The classes of PAMS's samples that pams-cpp builds as a plugin
// (samples/plugin/sample_classes.cc).
bool IsSampleClass(const std::string& name) {
  return name == "UserDefinedFCNAgent" || name == "ExtendedMarket";
}

std::string Article(ClassRegistry::Kind kind) {
  return std::string(kind == ClassRegistry::Kind::kAgent ||
                             kind == ClassRegistry::Kind::kEvent
                         ? "an "
                         : "a ") +
         KindName(kind);
}

// The class every class of `kind` inherits, in PAMS's words.
const char* BaseClassName(ClassRegistry::Kind kind) {
  switch (kind) {
    case ClassRegistry::Kind::kMarket:
      return "Market";
    case ClassRegistry::Kind::kAgent:
      return "Agent";
    case ClassRegistry::Kind::kEvent:
      return "EventABC";
    case ClassRegistry::Kind::kRunner:
      return "Runner";
    case ClassRegistry::Kind::kTransactionFee:
      return "TransactionFee";
  }
  return "";
}

}  // namespace

ClassRegistry ClassRegistry::WithBuiltins() {
  ClassRegistry r;
  r.add_market<Market>("Market");
  r.add_market<IndexMarket>("IndexMarket");
  r.add_abstract("Agent", Kind::kAgent);
  r.add_abstract("HighFrequencyAgent", Kind::kAgent);
  r.add_agent<FCNAgent>("FCNAgent");
  r.add_agent<MarketShareFCNAgent>("MarketShareFCNAgent");
  r.add_agent<ArbitrageAgent>("ArbitrageAgent");
  r.add_agent<MarketMakerAgent>("MarketMakerAgent");
  r.add_agent<TestAgent>("TestAgent");
  r.add_abstract("EventABC", Kind::kEvent);
  r.add_event<FundamentalPriceShock>("FundamentalPriceShock");
  r.add_event<OrderMistakeShock>("OrderMistakeShock");
  r.add_event<PriceLimitRule>("PriceLimitRule");
  r.add_event<TradingHaltRule>("TradingHaltRule");
  r.add_abstract("Runner", Kind::kRunner);
  r.add_runner<SequentialRunner>("SequentialRunner");
  r.add_runner<MultiThreadAgentParallelRunner>("MultiThreadAgentParallelRunner");
  r.add_runner<MultiProcessAgentParallelRunner>("MultiProcessAgentParallelRunner");
  // Since PAMS's development branch: transaction fees, and the classes its
  // samples define (replaceable: PAMS registers them as user classes).
  r.add_abstract("TransactionFee", Kind::kTransactionFee);
  r.add_transaction_fee<ProportionalTransactionFee>("ProportionalTransactionFee");
  r.add_market<DarkPoolMarket>("DarkPoolMarket");
  r.add_agent<DarkPoolFCNAgent>("DarkPoolFCNAgent");
  r.add_agent<InvestDivFCNAgent>("InvestDivFCNAgent");
  r.add_agent<CancelFCNAgent>("CancelFCNAgent");
  r.add_agent<WorkloadFCNAgent>("WorkloadFCNAgent");
  r.add_agent<BlackScholesWorkloadFCNAgent>("BlackScholesWorkloadFCNAgent");
  for (const char* name : {"DarkPoolMarket", "DarkPoolFCNAgent", "InvestDivFCNAgent",
                           "CancelFCNAgent", "WorkloadFCNAgent",
                           "BlackScholesWorkloadFCNAgent"}) {
    r.mark_replaceable(name);
  }
  return r;
}

void ClassRegistry::Add(const std::string& name, Entry entry, int abi_version) {
  if (abi_version != kPluginAbiVersion) {
    // The caller's code was compiled against other headers: what it built
    // (factories, classes) may not have the layout this library expects.
    throw ConfigError("", "class " + name + " was compiled against the pams-cpp " +
                              "plugin interface " + std::to_string(abi_version) +
                              ", but this pams-cpp (" + kVersion + ") has interface " +
                              std::to_string(kPluginAbiVersion) +
                              ": rebuild the plugin against this pams-cpp's headers "
                              "and library");
  }
  if (name.empty()) throw ConfigError("", "a class name cannot be empty");
  auto it = entries_.find(name);
  if (it != entries_.end()) {
    if (it->second.is_replaceable) {
      // A sample's class, which PAMS's sample itself registers as a user
      // class: the user's class of that name is the one meant.
      it->second = std::move(entry);
      return;
    }
    throw ConfigError("", "class " + name +
                              " is registered twice (a plugin may not reuse "
                              "the name of another class)");
  }
  entries_.emplace(name, std::move(entry));
}

void ClassRegistry::mark_replaceable(const std::string& name) {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    throw ConfigError("", "class " + name + " is not registered");
  }
  it->second.is_replaceable = true;
}

void ClassRegistry::add_alias(const std::string& alias, const std::string& name) {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    throw ConfigError("", "class " + name + " is not registered");
  }
  if (alias == name) return;
  Entry copy = it->second;
  copy.is_replaceable = false;
  Add(alias, std::move(copy), kPluginAbiVersion);
}

void ClassRegistry::add_market(const std::string& name, MarketFactory factory,
                               int abi_version) {
  Entry e;
  e.kind = Kind::kMarket;
  e.market = std::move(factory);
  Add(name, std::move(e), abi_version);
}

void ClassRegistry::add_agent(const std::string& name, AgentFactory factory,
                               int abi_version) {
  Entry e;
  e.kind = Kind::kAgent;
  e.agent = std::move(factory);
  Add(name, std::move(e), abi_version);
}

void ClassRegistry::add_event(const std::string& name, EventFactory factory,
                               int abi_version) {
  Entry e;
  e.kind = Kind::kEvent;
  e.event = std::move(factory);
  Add(name, std::move(e), abi_version);
}

void ClassRegistry::add_runner(const std::string& name, RunnerFactory factory,
                               int abi_version) {
  Entry e;
  e.kind = Kind::kRunner;
  e.runner = std::move(factory);
  Add(name, std::move(e), abi_version);
}

void ClassRegistry::declare_simulation_keys(const std::string& name,
                                            std::vector<std::string> keys) {
  auto it = entries_.find(name);
  if (it == entries_.end() || it->second.kind != Kind::kRunner) {
    throw std::logic_error("declare_simulation_keys: " + name + " is not a registered runner");
  }
  std::vector<std::string>& declared = it->second.simulation_keys;
  declared.insert(declared.end(), keys.begin(), keys.end());
}

std::vector<std::string> ClassRegistry::runner_simulation_keys() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries_) {
    out.insert(out.end(), entry.simulation_keys.begin(), entry.simulation_keys.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void ClassRegistry::add_transaction_fee(const std::string& name,
                                        TransactionFeeFactory factory, int abi_version) {
  Entry e;
  e.kind = Kind::kTransactionFee;
  e.transaction_fee = std::move(factory);
  Add(name, std::move(e), abi_version);
}

void ClassRegistry::add_abstract(const std::string& name, Kind kind) {
  Entry e;
  e.kind = kind;
  e.is_abstract = true;
  Add(name, std::move(e), kPluginAbiVersion);
}

void ClassRegistry::add_foreign(const std::string& name) {
  if (name.empty() || entries_.count(name) > 0) return;
  Entry e;
  e.is_foreign = true;
  entries_.emplace(name, std::move(e));
}

std::vector<std::string> ClassRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries_) {
    if (!entry.is_abstract && !entry.is_foreign) out.push_back(name);
  }
  return out;
}

const ClassRegistry::Entry& ClassRegistry::Find(const std::string& name,
                                                Kind kind,
                                                const std::string& path) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    std::string known;
    std::string nearest;
    size_t nearest_distance = std::max<size_t>(2, name.size() / 4) + 1;
    for (const auto& [n, e] : entries_) {
      if (e.kind != kind || e.is_abstract || e.is_foreign) continue;
      known += (known.empty() ? "" : ", ") + n;
      // Long names are not compared: the distance is quadratic.
      const size_t distance = name.size() < 200
                                  ? EditDistance(name, n, /*ignore_case=*/true)
                                  : nearest_distance;
      if (distance < nearest_distance) {
        nearest = n;
        nearest_distance = distance;
      }
    }
    const std::string unknown =
        "unknown " + std::string(KindName(kind)) + " class \"" + name + "\"";
    if (IsSampleClass(name)) {
      throw ConfigError(path, unknown + ": a class of PAMS's samples, which pams-cpp "
                                        "builds as a plugin: add --plugin "
                                        "build/lib/libpams_samples.so (known without "
                                        "it: " + known + ")");
    }
    throw ConfigError(path, unknown + " (" +
                                (nearest.empty() ? "" : "did you mean " + nearest + "? ") +
                                "known: " + known + "; " + unknown_class_hint_ + ")");
  }
  if (it->second.is_foreign) {
    throw ConfigError(path, "class \"" + name + "\" does not inherit " + BaseClassName(kind) +
                                " class, so it cannot be used as " + Article(kind) +
                                " class");
  }
  if (it->second.kind != kind) {
    throw ConfigError(path, "class \"" + name + "\" is " +
                                Article(it->second.kind) + " class, not " +
                                Article(kind) + " class");
  }
  if (it->second.is_abstract) {
    throw ConfigError(path, "class \"" + name +
                                "\" is abstract and cannot be used directly");
  }
  return it->second;
}

void ClassRegistry::check_class(const std::string& name, Kind kind,
                                const std::string& path) const {
  Find(name, kind, path);
}

std::unique_ptr<Market> ClassRegistry::create_market(
    const std::string& name, MarketInit init, const std::string& path) const {
  const Entry& e = Find(name, Kind::kMarket, path);
  init.class_name = name;
  return e.market(std::move(init));
}

std::unique_ptr<Agent> ClassRegistry::create_agent(const std::string& name,
                                                   AgentInit init,
                                                   const std::string& path) const {
  const Entry& e = Find(name, Kind::kAgent, path);
  init.class_name = name;
  return e.agent(std::move(init));
}

std::unique_ptr<Event> ClassRegistry::create_event(const std::string& name,
                                                   EventInit init,
                                                   const std::string& path) const {
  const Entry& e = Find(name, Kind::kEvent, path);
  init.class_name = name;
  return e.event(std::move(init));
}

std::unique_ptr<TransactionFee> ClassRegistry::create_transaction_fee(
    const std::string& name, TransactionFeeInit init, const std::string& path) const {
  const Entry& e = Find(name, Kind::kTransactionFee, path);
  init.class_name = name;
  return e.transaction_fee(std::move(init));
}

std::unique_ptr<Runner> ClassRegistry::create_runner(const std::string& name,
                                                    RunnerSetUp setup,
                                                    const std::string& path) const {
  const Entry& e = Find(name, Kind::kRunner, path);
  std::unique_ptr<Runner> runner = e.runner(
      RunnerInit{std::move(setup.settings), std::move(setup.prng), setup.logger, this});
  runner->set_class_name(name);
  runner->simulator().set_config_directory(std::move(setup.config_directory));
  if (setup.warning_handler) {
    runner->simulator().set_warning_handler(std::move(setup.warning_handler));
  }
  return runner;
}

std::unique_ptr<Runner> ClassRegistry::create_runner(
    const std::string& name, Json settings, Random prng, Logger* logger,
    const std::string& path) const {
  return create_runner(name, RunnerSetUp{std::move(settings), std::move(prng), logger, {}, {}},
                       path);
}

void LoadPlugin(const std::string& path, ClassRegistry* registry) {
  // A name without a slash would be searched on the loader's path; plugins
  // are files, so make it relative to the working directory.
  const std::string file =
      path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    std::string message = std::string("cannot load plugin: ") +
                          (err ? err : "unknown error");
    // A pams symbol this library lacks, or another libpams.so.N: the plugin
    // was built against another version of pams-cpp.
    const std::string text = err ? err : "";
    if ((text.find("undefined symbol") != std::string::npos &&
         text.find("pams") != std::string::npos) ||
        text.find("libpams.so") != std::string::npos) {
      message += std::string(" (it was built against another version of pams-cpp ") +
                 "than this one, " + kVersion + ": rebuild it against this "
                 "pams-cpp's headers and library)";
    }
    throw ConfigError(path, message);
  }
  using RegisterFn = void (*)(ClassRegistry*);
  auto fn = reinterpret_cast<RegisterFn>(dlsym(handle, "pams_register_classes"));
  if (fn == nullptr) {
    throw ConfigError(path,
                      "not a pams plugin: it does not export "
                      "extern \"C\" void pams_register_classes(pams::ClassRegistry*)");
  }
  try {
    fn(registry);
  } catch (const ConfigError& e) {
    throw ConfigError(path, "while registering its classes: " + e.message());
  } catch (const std::exception& e) {
    throw ConfigError(path, std::string("while registering its classes: ") +
                                e.what());
  }
  registry->record_plugin(path);
}

}  // namespace pams
