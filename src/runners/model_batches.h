// RunBatchedAgents: one round's agents whose model calls are batched, run
// through a ModelBatcher (pams/runners/model_batcher.h: the program's, or
// the engine's own for engine agents) on the simulation thread. Private to
// the library.

#ifndef PAMS_SRC_RUNNERS_MODEL_BATCHES_H_
#define PAMS_SRC_RUNNERS_MODEL_BATCHES_H_

#include <memory>
#include <span>
#include <vector>

#include "pams/agents/agent.h"
#include "pams/runners/model_batcher.h"
#include "pams/runners/runner.h"

namespace pams {

// Runs batcher's phases for agents (in this order): each agent's prepare,
// one call_models, each agent's submit, leaving agents[i]'s orders,
// warnings and error in (*results)[i]. The agent contract of the parallel
// runners holds in every phase (an agent that changes its cash, asset
// volumes or accessible markets fails), since the agents of a round see
// the round's start under every runner. The first failure ends the round:
// a failing agent's error is its own; a failing model call's is given to
// the round's first agent (its message names the model's agents). Never
// throws. REQUIRES: batcher.batches(*a) for each agent, results has
// agents.size() cleared entries.
void RunBatchedAgents(ModelBatcher& batcher, std::span<Agent* const> agents, Markets markets,
                      std::vector<AgentTaskResult>* results);

// The batcher of the engine's agents that batch their model calls
// (Agent::batches_model_calls, pams/agents/model_call.h): their calls of a
// round grouped by model (in order of first appearance), each group one
// BatchModel::run_batch; a failing model's error names the model and its
// agents. Every runner has one.
std::unique_ptr<ModelBatcher> MakeEngineModelBatcher();

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_MODEL_BATCHES_H_
