// Batched model calls of engine agents: an agent whose submit_orders is
// "build a model input from the markets, call a model, turn its output
// into orders" says so (Agent::batches_model_calls) and splits it in two
// phases, prepare_model_calls and submit_orders_with_model_outputs, so that
// a runner makes the model calls of every agent of a round as one call per
// model (src/runners/model_batches.cc). The agents of a round all see the
// market as it was when the round started, so the split changes nothing
// but the batch; and the batched calls run on the simulation thread under
// every runner, so that the batches (and the results, last bits included)
// are the same under every runner. simulation.batchModelCalls false asks
// such agents' submit_orders instead.
//
// ModelCall and BatchModel hold no Agent: this header is included by
// agent.h.

#ifndef PAMS_AGENTS_MODEL_CALL_H_
#define PAMS_AGENTS_MODEL_CALL_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pams/export.h"

namespace pams {

class BatchModel;

// One model call of one agent: one input row, and the output row the
// model gives for it.
struct ModelCall {
  // The calls of a round with the same model (the same object) are
  // evaluated together.
  const BatchModel* model = nullptr;
  std::vector<float> inputs;        // the row of features
  std::vector<int64_t> int_inputs;  // a row of integers beside it (e.g. seeds); may be empty
  std::vector<float> outputs;       // filled by the model
};

// A model that evaluates many calls' rows at once.
class PAMS_EXPORT BatchModel {
 public:
  virtual ~BatchModel() = default;
  // For error messages.
  virtual std::string name() const = 0;
  // Fills calls[i]->outputs for every call, in one evaluation of the model.
  // Throws on error. REQUIRES: calls is not empty, each call's model is
  // this.
  virtual void run_batch(std::span<ModelCall* const> calls) const = 0;
  // Runs one call alone (run_batch of one row), for submit_orders.
  void run_one(ModelCall* call) const {
    ModelCall* calls[1] = {call};
    run_batch(calls);
  }
};

}  // namespace pams

#endif  // PAMS_AGENTS_MODEL_CALL_H_
