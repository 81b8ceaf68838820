#include "runners/model_batches.h"

#include <exception>
#include <string>

#include "pams/agents/model_call.h"
#include "pams/errors.h"
#include "runners/agent_task.h"
#include "runners/host_error.h"

namespace pams {

namespace {

class EngineModelBatcher final : public ModelBatcher {
 public:
  bool batches(const Agent& agent) const override { return agent.batches_model_calls(); }

  void prepare(Agent& agent, Markets markets) override {
    const size_t begin = calls_.size();
    agent.prepare_model_calls(markets, &calls_);
    for (size_t i = begin; i < calls_.size(); ++i) {
      if (calls_[i].model == nullptr) {
        throw SimulationError("prepare_model_calls made a ModelCall without a model");
      }
    }
    entries_.push_back(Entry{&agent, begin, calls_.size()});
  }

  void call_models() override {
    // The models in order of first appearance (a round has few).
    models_.clear();
    for (auto& group : groups_) group.clear();
    for (ModelCall& call : calls_) {
      size_t k = 0;
      while (k < models_.size() && models_[k] != call.model) ++k;
      if (k == models_.size()) {
        models_.push_back(call.model);
        if (groups_.size() < models_.size()) groups_.emplace_back();
      }
      groups_[k].push_back(&call);
    }
    for (size_t k = 0; k < models_.size(); ++k) {
      try {
        models_[k]->run_batch(groups_[k]);
      } catch (const std::exception& e) {
        std::string agents;
        for (const Entry& entry : entries_) {
          for (size_t i = entry.begin; i < entry.end; ++i) {
            if (calls_[i].model == models_[k]) {
              agents += (agents.empty() ? "" : ", ") + entry.agent->name();
              break;
            }
          }
        }
        throw SimulationError("the batched call of model " + models_[k]->name() + " on " +
                              std::to_string(groups_[k].size()) + " rows, for agents " +
                              agents + ", failed: " + e.what());
      }
    }
  }

  void submit(Agent& agent, Markets markets, std::vector<Action>* actions) override {
    while (next_ < entries_.size() && entries_[next_].agent != &agent) ++next_;
    if (next_ == entries_.size()) {
      throw SimulationError("agent " + agent.name() + " has no prepared model calls");
    }
    const Entry& e = entries_[next_++];
    agent.submit_orders_with_model_outputs(
        markets, std::span<const ModelCall>(calls_.data() + e.begin, e.end - e.begin), actions);
  }

  void clear() override {
    calls_.clear();
    entries_.clear();
    next_ = 0;
  }

 private:
  struct Entry {
    Agent* agent;
    size_t begin, end;  // its calls in calls_
  };
  std::vector<ModelCall> calls_;
  std::vector<Entry> entries_;
  size_t next_ = 0;
  std::vector<const BatchModel*> models_;
  std::vector<std::vector<ModelCall*>> groups_;
};

}  // namespace

std::unique_ptr<ModelBatcher> MakeEngineModelBatcher() {
  return std::make_unique<EngineModelBatcher>();
}

void RunBatchedAgents(ModelBatcher& batcher, std::span<Agent* const> agents, Markets markets,
                      std::vector<AgentTaskResult>* results) {
  if (agents.empty()) return;
  // Forgets the round's calls whatever happens (a batcher's calls may hold
  // large inputs and outputs).
  struct Clear {
    ModelBatcher& batcher;
    ~Clear() { batcher.clear(); }
  } clear{batcher};
  batcher.clear();
  for (size_t i = 0; i < agents.size(); ++i) {
    AgentTaskResult& r = (*results)[i];
    RunAgentCall(
        agents[i], [&] { batcher.prepare(*agents[i], markets); },
        /*check_public_state=*/true, &r.error, &r.warnings, &r.host_error);
    if (!r.error.empty()) {
      r.method = "prepare_model_calls";
      return;
    }
  }
  {
    AgentTaskResult& first = (*results)[0];
    first.method = "a batched model call";
    try {
      batcher.call_models();
    } catch (const HostError& e) {
      first.error = e.what();
      first.host_error = e.payload();
      return;
    } catch (const std::exception& e) {
      first.error = e.what();
      return;
    } catch (...) {
      first.error = "unknown exception in a batched model call";
      return;
    }
    first.method = "submit_orders";
  }
  for (size_t i = 0; i < agents.size(); ++i) {
    AgentTaskResult& r = (*results)[i];
    RunAgentCall(
        agents[i], [&] { batcher.submit(*agents[i], markets, &r.actions); },
        /*check_public_state=*/true, &r.error, &r.warnings, &r.host_error);
    if (!r.error.empty()) {
      r.method = "submit_orders_with_model_outputs";
      return;
    }
  }
}

}  // namespace pams
