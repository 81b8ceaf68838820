// ClassRegistry: the classes a config may name in its "class" keys, by name
// (PAMS's find_class + Runner.class_register). ClassRegistry::WithBuiltins()
// holds every built-in PAMS class; plugins and programs add their own.
//
// A registry is a value: there is no global registry. Build it, add classes,
// then hand it to a runner, which only reads it (from any thread).
//
// Runners are registered too (SequentialRunner and the parallel runners), so
// that `pams run --runner NAME` and worker processes can create them by name.
//
// Transaction fees (transaction_fee.h, a market group's "transactionFee")
// are classes of their own kind, registered and created like the others.
//
// The classes of the samples of PAMS's development branch (DarkPoolMarket,
// CancelFCNAgent, WorkloadFCNAgent, ...) are built in, but PAMS defines
// them as user classes of its samples: a class registered under one of
// their names (a plugin's, a Python class) replaces it, as the sample's own
// class_register would in PAMS.
//
// Plugins are shared libraries exporting
//   extern "C" void pams_register_classes(pams::ClassRegistry* registry);
// which LoadPlugin calls after dlopen. A plugin stays loaded for the life of
// the process (its classes' code must outlive every object made from them).
//
// A plugin must be built against the headers of the pams-cpp that loads it:
// each add_* call passes kPluginAbiVersion as the plugin's headers define
// it, and a registry of another version refuses the class with a message
// saying to rebuild (a plugin that needs symbols this library lacks, or
// another libpams.so.N, is refused by LoadPlugin the same way).

#ifndef PAMS_RUNNERS_CLASS_REGISTRY_H_
#define PAMS_RUNNERS_CLASS_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pams/agents/agent.h"
#include "pams/config/json.h"
#include "pams/events/event.h"
#include "pams/export.h"
#include "pams/market/market.h"
#include "pams/market/transaction_fee.h"

namespace pams {

class ClassRegistry;
class Logger;
class Runner;

// pams-cpp's version, and the version of the interface plugins are built
// against (raised whenever a public class's layout or virtual functions
// change).
inline constexpr const char* kVersion = "0.1.0";
inline constexpr int kPluginAbiVersion = 6;

// What a runner is made from (see Runner's constructor).
struct PAMS_EXPORT RunnerInit {
  Json settings;
  Random prng;
  Logger* logger = nullptr;
  const ClassRegistry* registry = nullptr;
};

// What ClassRegistry::create_runner makes a ready runner with.
struct RunnerSetUp {
  Json settings;
  Random prng;
  Logger* logger = nullptr;  // not owned; may be null
  // The directory the config's relative paths are read from (a config
  // file's own directory); empty: the working directory.
  std::string config_directory;
  // Where the simulation's warnings go; empty: stderr.
  std::function<void(std::string_view)> warning_handler;
};

class PAMS_EXPORT ClassRegistry {
 public:
  enum class Kind { kMarket, kAgent, kEvent, kRunner, kTransactionFee };
  using MarketFactory = std::function<std::unique_ptr<Market>(MarketInit)>;
  using AgentFactory = std::function<std::unique_ptr<Agent>(AgentInit)>;
  using EventFactory = std::function<std::unique_ptr<Event>(EventInit)>;
  using RunnerFactory = std::function<std::unique_ptr<Runner>(RunnerInit)>;
  using TransactionFeeFactory =
      std::function<std::unique_ptr<TransactionFee>(TransactionFeeInit)>;

  // An empty registry.
  ClassRegistry() = default;
  // A registry holding PAMS's built-in classes: Market, IndexMarket,
  // FCNAgent, MarketShareFCNAgent, ArbitrageAgent, MarketMakerAgent,
  // TestAgent, FundamentalPriceShock, PriceLimitRule, TradingHaltRule,
  // OrderMistakeShock (and the abstract Agent, HighFrequencyAgent, EventABC,
  // which a config cannot instantiate), the runners SequentialRunner,
  // MultiThreadAgentParallelRunner and MultiProcessAgentParallelRunner;
  // and since PAMS's development branch ProportionalTransactionFee (and the
  // abstract TransactionFee) and its samples' classes (DarkPoolMarket,
  // DarkPoolFCNAgent, InvestDivFCNAgent, CancelFCNAgent, WorkloadFCNAgent of
  // parallel_main and BlackScholesWorkloadFCNAgent, black_scholes's
  // WorkloadFCNAgent), which classes of those names replace.
  static ClassRegistry WithBuiltins();

  // Registers a class. Throws ConfigError if the name is taken (PAMS would
  // find the class twice; a sample class's name is replaced instead) or if
  // abi_version, which defaults to the caller's kPluginAbiVersion, is not
  // this library's.
  void add_market(const std::string& name, MarketFactory factory,
                  int abi_version = kPluginAbiVersion);
  void add_agent(const std::string& name, AgentFactory factory,
                 int abi_version = kPluginAbiVersion);
  void add_event(const std::string& name, EventFactory factory,
                 int abi_version = kPluginAbiVersion);
  void add_runner(const std::string& name, RunnerFactory factory,
                  int abi_version = kPluginAbiVersion);
  void add_transaction_fee(const std::string& name, TransactionFeeFactory factory,
                           int abi_version = kPluginAbiVersion);
  // Convenience: registers T, constructed from its Init struct.
  template <typename T>
  void add_market(const std::string& name) {
    add_market(name, [](MarketInit init) -> std::unique_ptr<Market> {
      return std::make_unique<T>(std::move(init));
    });
  }
  template <typename T>
  void add_agent(const std::string& name) {
    add_agent(name, [](AgentInit init) -> std::unique_ptr<Agent> {
      return std::make_unique<T>(std::move(init));
    });
  }
  template <typename T>
  void add_event(const std::string& name) {
    add_event(name, [](EventInit init) -> std::unique_ptr<Event> {
      return std::make_unique<T>(std::move(init));
    });
  }
  template <typename T>
  void add_transaction_fee(const std::string& name) {
    add_transaction_fee(name,
                        [](TransactionFeeInit init) -> std::unique_ptr<TransactionFee> {
                          return std::make_unique<T>(std::move(init));
                        });
  }
  // Registers runner T and, where T declares them (a static
  // SimulationKeys()), the "simulation" keys it reads.
  template <typename T>
  void add_runner(const std::string& name) {
    add_runner(name, [](RunnerInit init) -> std::unique_ptr<Runner> {
      return std::make_unique<T>(std::move(init.settings), std::move(init.prng),
                                 init.logger, *init.registry);
    });
    if constexpr (requires { T::SimulationKeys(); }) {
      declare_simulation_keys(name, T::SimulationKeys());
    }
  }
  // Adds `keys` to the "simulation" keys that runner `name` reads beyond
  // those every runner reads (its parallelism, its workers, a framework's
  // options): a config written for one runner then runs with any other
  // without warnings that these keys are unread, and tools can list them.
  // REQUIRES: `name` is a registered runner.
  void declare_simulation_keys(const std::string& name, std::vector<std::string> keys);
  // The keys every registered runner declared, sorted, each once.
  std::vector<std::string> runner_simulation_keys() const;
  // Registers a name that exists but cannot be instantiated.
  void add_abstract(const std::string& name, Kind kind);
  // Registers a name the program knows as a class that is none of the
  // engine's kinds (pams_cpp: a Python class given to class_register that
  // is not an agent, market, event or fee, which PAMS keeps too): a config
  // naming it is told that it does not inherit the class it must, as PAMS
  // tells it. Does nothing if the name is registered already.
  void add_foreign(const std::string& name);
  // What a config that names an unknown class is told to do. Default: load
  // a plugin with --plugin (the CLI's way to add classes).
  void set_unknown_class_hint(std::string hint) { unknown_class_hint_ = std::move(hint); }
  // Marks a registered class as a sample's: registering its name again
  // replaces it (see the top of this file).
  void mark_replaceable(const std::string& name);
  // Registers `alias` for the class registered as `name`, replacing a
  // replaceable class of that name (pams_cpp: a sample's Python face whose
  // name differs from its engine class's). Objects are created with the
  // class_name `alias`. Throws ConfigError as add_* does, or when `name`
  // is not registered.
  void add_alias(const std::string& alias, const std::string& name);

  bool contains(const std::string& name) const {
    return entries_.count(name) > 0;
  }
  std::vector<std::string> names() const;

  // Create an object of class `name` (its class_name is set to `name`).
  // Throws ConfigError at `path` when the class is unknown, abstract or of
  // another kind ("class Market is a market class, not an agent class").
  std::unique_ptr<Market> create_market(const std::string& name,
                                        MarketInit init,
                                        const std::string& path) const;
  std::unique_ptr<Agent> create_agent(const std::string& name, AgentInit init,
                                      const std::string& path) const;
  std::unique_ptr<Event> create_event(const std::string& name, EventInit init,
                                      const std::string& path) const;
  std::unique_ptr<TransactionFee> create_transaction_fee(
      const std::string& name, TransactionFeeInit init, const std::string& path) const;
  // A runner of class `name`, using this registry, ready to set up and run:
  // the config, generator and logger of `setup`, its simulator reading
  // relative paths from setup.config_directory and warning through
  // setup.warning_handler. Its class_name() is `name` (worker processes
  // recreate it by that name). Every program that makes runners (the CLI's
  // commands, the Python package, worker processes) makes them here.
  std::unique_ptr<Runner> create_runner(const std::string& name, RunnerSetUp setup,
                                        const std::string& path) const;
  // The same with no config directory (the working directory) and the
  // default warnings (stderr).
  std::unique_ptr<Runner> create_runner(const std::string& name, Json settings,
                                        Random prng, Logger* logger,
                                        const std::string& path) const;
  // Throws like create_* when `name` is not an instantiable class of `kind`.
  void check_class(const std::string& name, Kind kind,
                   const std::string& path) const;

  // Shared libraries loaded into this registry, in load order.
  const std::vector<std::string>& plugin_paths() const { return plugins_; }
  void record_plugin(const std::string& path) { plugins_.push_back(path); }

 private:
  struct Entry {
    Kind kind = Kind::kMarket;
    bool is_abstract = false;
    bool is_replaceable = false;
    bool is_foreign = false;  // add_foreign: known, but of no kind
    MarketFactory market;
    AgentFactory agent;
    EventFactory event;
    RunnerFactory runner;
    TransactionFeeFactory transaction_fee;
    std::vector<std::string> simulation_keys;  // a runner's (declare_simulation_keys)
  };
  void Add(const std::string& name, Entry entry, int abi_version);
  const Entry& Find(const std::string& name, Kind kind,
                    const std::string& path) const;

  std::map<std::string, Entry> entries_;
  std::vector<std::string> plugins_;
  std::string unknown_class_hint_ = "a plugin loaded with --plugin can add classes";
};

// Loads a plugin into the registry. Throws ConfigError naming the file when
// it cannot be opened or lacks pams_register_classes, or when registering
// fails (e.g. a class name that is already taken).
PAMS_EXPORT void LoadPlugin(const std::string& path, ClassRegistry* registry);

}  // namespace pams

#endif  // PAMS_RUNNERS_CLASS_REGISTRY_H_
