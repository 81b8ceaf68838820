// TensorFlowAgent: an agent whose decisions come from a TensorFlow model.
// Each call it computes features of the market, feeds them (and two seeds
// drawn from its prng, for the model's stateless random ops) to the model,
// and turns the model's signal s into an expected future price
// p * exp(s * returnScale), around which it places one limit order as an
// FCNAgent with fixed margins does.
//
// Config keys (besides those of Agent):
//   modelPath      SavedModel directory, relative to the config file
//   features       list of: {"logReturns": n} (the last n log returns of the
//                  market price, 0 before the start), "fundamentalGap"
//                  (log(fundamental / market price)), "position" (the
//                  agent's asset volume); fed as float32 [1, n] to the
//                  model's input "features"
//   returnScale    number, default 0.01
//   orderMargin    JsonRandom, default 0
//   orderVolume    int, default 1
//   timeWindowSize JsonRandom, time to live of the orders, default 100
// The model's inputs: "features" (float32 [-1, n]) and, if present, "seed"
// (int32 or int64 [-1, 2]); its output "signal" (float32 [-1, 1]).
//
// The agent holds the model's path, not the model: each process loads the
// model once from its cache (model.h), so the agent is cheap to send to
// worker processes.
//
// Its model calls are batched (pams/agents/model_call.h): while
// simulation.batchModelCalls is true (the default), the TensorFlowAgents of
// a round with the same model make one call on a batch of their rows
// ("features" [n, f], "seed" [n, 2]), on the simulation thread under every
// runner; submit_orders (batchModelCalls false) makes the same call on its
// one row.

#ifndef PAMS_TENSORFLOW_TENSORFLOW_AGENT_H_
#define PAMS_TENSORFLOW_TENSORFLOW_AGENT_H_

#include <memory>
#include <string>
#include <vector>

#include "pams/agents/agent.h"
#include "pams/export.h"

namespace pams::tensorflow {

class Model;

class PAMS_EXPORT TensorFlowAgent : public Agent {
 public:
  explicit TensorFlowAgent(AgentInit init) : Agent(std::move(init)) {}

  void setup(const Settings& settings,
             std::span<const int> accessible_market_ids) override;
  void submit_orders(Markets markets, std::vector<Action>* orders) override;
  bool batches_model_calls() const override { return true; }
  void prepare_model_calls(Markets markets, std::vector<ModelCall>* calls) override;
  void submit_orders_with_model_outputs(Markets markets, std::span<const ModelCall> calls,
                                        std::vector<Action>* orders) override;

  const std::string& model_path() const { return model_path_; }
  // The model, from this process's cache (loaded on first use).
  const Model& model();

 private:
  struct Feature {
    enum Kind { kLogReturns, kFundamentalGap, kPosition } kind;
    int window = 1;
  };
  void Features(const Market& market, std::vector<float>* out) const;

  std::string model_path_;
  std::vector<Feature> features_;
  int feature_count_ = 0;
  double return_scale_ = 0.01;
  double order_margin_ = 0.0;
  int64_t order_volume_ = 1;
  int64_t time_window_size_ = 100;
  std::shared_ptr<const Model> model_;  // this process's, once used
  // model_'s batch evaluation, shared by the agents of the same model.
  std::shared_ptr<const BatchModel> batch_model_;
  std::vector<ModelCall> one_call_;  // submit_orders's scratch
  std::vector<float> scratch_;
};

}  // namespace pams::tensorflow

#endif  // PAMS_TENSORFLOW_TENSORFLOW_AGENT_H_
