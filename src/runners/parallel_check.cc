// CheckParallel (see parallel_check.h): both runs are recorded event by
// event by a Recorder logger, and the records compared in order.

#include "pams/runners/parallel_check.h"


#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pams/agents/agent.h"
#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/runner.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"
#include "simulator/simulator_access.h"
#include "support/python_format.h"

namespace pams {

namespace {

// One observable thing of a run, as text, with the agent behind it.
struct Record {
  int64_t time;
  int agent_id;  // -1: none (a market's step)
  std::string text;
};

class Recorder : public Logger {
 public:
  void process_order_log(const OrderLog& log) override {
    Add(log.time, log.agent_id,
        std::string("order ") + (log.is_buy ? "buy " : "sell ") +
            std::to_string(log.volume) + " at " + Price(log.price) + " in market " +
            std::to_string(log.market_id) + Ttl(log.ttl));
  }
  void process_cancel_log(const CancelLog& log) override {
    Add(log.cancel_time, log.agent_id,
        "cancel of order " + std::to_string(log.order_id) + " in market " +
            std::to_string(log.market_id));
  }
  void process_execution_log(const ExecutionLog& log) override {
    Add(log.time, log.buy_agent_id,
        "execution of " + std::to_string(log.volume) + " at " + PythonFloat(log.price) +
            " in market " + std::to_string(log.market_id) + " (seller agent " +
            std::to_string(log.sell_agent_id) + ")");
  }
  void process_market_step_end_log(const MarketStepEndLog& log) override {
    Add(log.market.get_time(), -1,
        "market " + log.market.name() + " price " +
            PythonFloat(log.market.get_market_price()));
  }
  void process_simulation_end_log(const SimulationEndLog& log) override {
    for (const auto& agent : log.simulator.agents()) {
      std::string text = "final cash " + PythonFloat(agent->cash_amount());
      for (int id : agent->accessible_market_ids()) {
        text += ", market " + std::to_string(id) + " volume " +
                std::to_string(agent->get_asset_volume(id));
      }
      Add(log.simulator.time(), agent->agent_id(), text);
    }
  }

  const std::vector<Record>& records() const { return records_; }

 private:
  static std::string Price(const std::optional<double>& price) {
    return price ? PythonFloat(*price) : std::string("market price");
  }
  static std::string Ttl(const std::optional<int64_t>& ttl) {
    return ttl ? ", ttl " + std::to_string(*ttl) : std::string();
  }
  void Add(int64_t time, int agent_id, std::string text) {
    records_.push_back(Record{time, agent_id, std::move(text)});
  }
  std::vector<Record> records_;
};

struct Outcome {
  std::vector<Record> records;
  std::vector<std::string> agent_names;  // by id, with the class
  std::string error;                     // the run failed with this
};

Outcome RunOnce(const ClassRegistry& registry, const std::string& runner_name,
                const Json& settings, const Random& prng,
                const std::string& config_directory, bool quiet) {
  Recorder recorder;
  Outcome outcome;
  std::unique_ptr<Runner> runner = registry.create_runner(
      runner_name, RunnerSetUp{settings, prng, &recorder, config_directory, {}}, "--runner");
  if (quiet) internal::SimulatorAccess::SetQuiet(&runner->simulator(), true);
  runner->setup();
  for (const auto& agent : runner->simulator().agents()) {
    outcome.agent_names.push_back(agent->name() + " (" + agent->class_name() + ")");
  }
  try {
    runner->run();
  } catch (const SimulationError& e) {
    outcome.error = e.what();
  }
  outcome.records = recorder.records();
  return outcome;
}

std::string Who(const Outcome& outcome, int agent_id) {
  if (agent_id >= 0 && static_cast<size_t>(agent_id) < outcome.agent_names.size()) {
    return outcome.agent_names[agent_id];
  }
  return "";
}

}  // namespace

ParallelCheckResult CheckParallel(const ClassRegistry& registry,
                                  const Json& settings, const Random& prng,
                                  const std::string& parallel_runner,
                                  const std::string& config_directory) {
  // Every task in a worker process and at least two workers where the config
  // does not say, so that agents move between processes as they can.
  Json parallel_settings = settings;
  if (parallel_settings.is_object() && parallel_settings.contains("simulation") &&
      parallel_settings["simulation"].is_object()) {
    Json& simulation = parallel_settings["simulation"];
    if (!simulation.contains("workerTimeout")) simulation["workerTimeout"] = 1e8;
    // Every task with the agent's whole state: a field that save_state()
    // misses is then lost at every call, whichever worker runs the agent.
    if (!simulation.contains("workerKeepsAgentStates")) {
      simulation["workerKeepsAgentStates"] = false;
    }
    if (!simulation.contains("numParallel")) simulation["numParallel"] = 2;
  }
  const Outcome sequential = RunOnce(registry, "SequentialRunner", settings, prng,
                                     config_directory, false);
  // The sequential run printed the warnings.
  const Outcome parallel = RunOnce(registry, parallel_runner, parallel_settings,
                                   prng, config_directory, true);
  ParallelCheckResult result;
  const size_t n = std::min(sequential.records.size(), parallel.records.size());
  for (size_t i = 0; i < n; ++i) {
    const Record& a = sequential.records[i];
    const Record& b = parallel.records[i];
    if (a.time == b.time && a.agent_id == b.agent_id && a.text == b.text) continue;
    result.identical = false;
    result.events = static_cast<int64_t>(i);
    result.step = std::min(a.time, b.time);
    result.agent = Who(sequential, a.agent_id >= 0 ? a.agent_id : b.agent_id);
    const std::string who_a = Who(sequential, a.agent_id);
    const std::string who_b = Who(parallel, b.agent_id);
    result.sequential = (who_a.empty() ? "" : "agent " + who_a + ": ") + a.text;
    result.parallel = (who_b.empty() ? "" : "agent " + who_b + ": ") + b.text;
    return result;
  }
  result.events = static_cast<int64_t>(n);
  if (sequential.error != parallel.error ||
      sequential.records.size() != parallel.records.size()) {
    result.identical = false;
    result.step = n > 0 ? sequential.records[n - 1].time : 0;
    auto ending = [](const Outcome& o) {
      return (o.error.empty() ? std::string("finished") : "failed: " + o.error) +
             " after " + std::to_string(o.records.size()) + " events";
    };
    result.sequential = ending(sequential);
    result.parallel = ending(parallel);
  }
  return result;
}

}  // namespace pams
