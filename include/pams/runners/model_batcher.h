// ModelBatcher: how a runner makes the model calls of one round's agents as
// one call per model.
//
// The agents asked in one round (see Runner::CollectInRounds) all see the
// market as it was when the round started, so an agent whose submit_orders
// is "build a model input from the markets, call a model, turn its output
// into orders" can be split in three phases, and the middle phase of every
// agent of the round run together: one call per model on the stacked
// inputs. A ModelBatcher is what a program driving the runner (the Python
// package) provides for the agents that opt in (Python agents defining
// prepare_model_calls and submit_orders_with_model_outputs); the runner
// calls it on its simulation thread, for every runner alike, so that the
// batches (and so the results) do not depend on the runner.
//
// For one round the runner calls prepare() for each batching agent in
// SequentialRunner's order, call_models() once, then submit() for each
// agent in the same order, and clear() at the end (also after an error).

#ifndef PAMS_RUNNERS_MODEL_BATCHER_H_
#define PAMS_RUNNERS_MODEL_BATCHER_H_

#include <vector>

#include "pams/agents/agent.h"
#include "pams/export.h"
#include "pams/market/order.h"

namespace pams {

class PAMS_EXPORT ModelBatcher {
 public:
  virtual ~ModelBatcher() = default;

  // Whether agent's orders come from the three phases below instead of its
  // submit_orders. Must give the same answer for an agent all run long.
  virtual bool batches(const Agent& agent) const = 0;
  // Phase 1: keeps agent's model calls (the inputs it built from markets)
  // for this round. Throws on error (the runner names the agent).
  virtual void prepare(Agent& agent, Markets markets) = 0;
  // Phase 2: calls each model once on the inputs prepare() kept, and keeps
  // each call's output. Throws on error, with a message naming the model
  // and the agents whose calls it had.
  virtual void call_models() = 0;
  // Phase 3: agent's orders from the outputs of its calls, appended to
  // *actions. REQUIRES: prepare(agent) and call_models() succeeded this
  // round. Throws on error (the runner names the agent).
  virtual void submit(Agent& agent, Markets markets, std::vector<Action>* actions) = 0;
  // Forgets the round's calls and outputs.
  virtual void clear() = 0;
};

}  // namespace pams

#endif  // PAMS_RUNNERS_MODEL_BATCHER_H_
