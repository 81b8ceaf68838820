#include "pams/tensorflow/tensorflow_agent.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/market/market.h"
#include "pams/simulator/simulator_view.h"
#include "pams/tensorflow/model.h"
#include "pams/tensorflow/tensorflow.h"
#include "support/python_format.h"

namespace pams::tensorflow {

void TensorFlowAgent::setup(const Settings& settings,
                            std::span<const int> accessible_market_ids) {
  Agent::setup(settings, accessible_market_ids);
  const Settings path = settings["modelPath"];
  std::filesystem::path p(path.as_string());
  if (p.is_relative() && !simulator().config_directory().empty()) {
    p = std::filesystem::path(simulator().config_directory()) / p;
  }
  model_path_ = p.lexically_normal().string();
  if (!std::filesystem::exists(std::filesystem::path(model_path_) / "saved_model.pb")) {
    path.fail("no TensorFlow SavedModel at " + model_path_ +
              " (relative paths are relative to the config file)");
  }
  // Fail now, not at the first order, when TensorFlow is missing (this
  // loads the library only; no model runs in this process yet).
  EnsureLoaded();
  const Settings features = settings["features"];
  if (!features.json().is_array() || features.size() == 0) {
    features.fail("expected a non-empty list such as [{\"logReturns\": 5}, "
                  "\"fundamentalGap\", \"position\"]");
  }
  for (size_t i = 0; i < features.size(); ++i) {
    const Settings f = features.at(i);
    if (f.json().is_string() && f.as_string() == "fundamentalGap") {
      features_.push_back({Feature::kFundamentalGap, 1});
    } else if (f.json().is_string() && f.as_string() == "position") {
      features_.push_back({Feature::kPosition, 1});
    } else if (f.is_object() && f.size() == 1 && f.has("logReturns")) {
      const int64_t n = f["logReturns"].as_int();
      if (n < 1 || n > 10000) f["logReturns"].fail("must be between 1 and 10000");
      features_.push_back({Feature::kLogReturns, static_cast<int>(n)});
    } else {
      f.fail("expected {\"logReturns\": n}, \"fundamentalGap\" or \"position\", got " +
             f.json().dump());
    }
    feature_count_ += features_.back().window;
  }
  if (auto v = settings.find("returnScale")) {
    return_scale_ = v->as_float();
    if (!std::isfinite(return_scale_)) v->fail("must be a finite number");
  }
  if (auto v = settings.find("orderMargin")) {
    order_margin_ = v->json_random(prng());
    // Orders go at price * (1 -+ margin): a margin of 1 or more would give
    // a price <= 0.
    if (!(order_margin_ >= 0.0 && order_margin_ < 1.0)) {
      v->fail("must draw a margin in [0, 1), drew " + PythonFloat(order_margin_));
    }
  }
  if (auto v = settings.find("orderVolume")) {
    order_volume_ = v->as_int();
    if (order_volume_ < 1) v->fail("must be positive");
  }
  if (auto v = settings.find("timeWindowSize")) {
    const double x = v->json_random(prng());
    if (!(x >= 1 && x < 1e12)) v->fail("must draw a value >= 1");
    time_window_size_ = static_cast<int64_t>(x);
  }
}

const Model& TensorFlowAgent::model() {
  if (model_ == nullptr) {
    model_ = GetModel(model_path_);
    const TensorSpec* in = model_->input("features");
    if (in == nullptr || in->dtype != DataType::kFloat) {
      throw SimulationError("agent " + name() + ": model " + model_path_ +
                            " needs a float32 input named \"features\"");
    }
    if (in->shape.size() != 2 ||
        (in->shape[1] >= 0 && in->shape[1] != feature_count_)) {
      throw SimulationError("agent " + name() + ": model " + model_path_ +
                            " takes features of shape [-1, " +
                            std::to_string(in->shape.size() == 2 ? in->shape[1] : -1) +
                            "], the agent's features make " +
                            std::to_string(feature_count_));
    }
    if (model_->output("signal") == nullptr) {
      throw SimulationError("agent " + name() + ": model " + model_path_ +
                            " has no output named \"signal\"");
    }
  }
  return *model_;
}

void TensorFlowAgent::Features(const Market& market, std::vector<float>* out) const {
  out->clear();
  const int64_t t = market.get_time();
  const double price = market.get_market_price();
  for (const Feature& f : features_) {
    switch (f.kind) {
      case Feature::kLogReturns:
        for (int i = 0; i < f.window; ++i) {
          const int64_t a = t - i;
          out->push_back(a >= 1 ? static_cast<float>(std::log(
                                      market.get_market_price(a) /
                                      market.get_market_price(a - 1)))
                                : 0.0f);
        }
        break;
      case Feature::kFundamentalGap:
        out->push_back(static_cast<float>(std::log(market.get_fundamental_price() / price)));
        break;
      case Feature::kPosition:
        out->push_back(static_cast<float>(get_asset_volume(market.market_id())));
        break;
    }
  }
}

namespace {

// The model's "features" and "seed" inputs for a batch of rows, its
// "signal" output split into the rows' outputs.
class AgentModel final : public BatchModel {
 public:
  explicit AgentModel(std::shared_ptr<const Model> model) : model_(std::move(model)) {}

  std::string name() const override { return model_->path(); }

  void run_batch(std::span<ModelCall* const> calls) const override {
    const int64_t n = static_cast<int64_t>(calls.size());
    const int64_t f = static_cast<int64_t>(calls[0]->inputs.size());
    std::vector<float> rows(static_cast<size_t>(n * f));
    for (int64_t i = 0; i < n; ++i) {
      if (static_cast<int64_t>(calls[i]->inputs.size()) != f) {
        throw SimulationError("rows of different widths in one batch");
      }
      std::copy(calls[i]->inputs.begin(), calls[i]->inputs.end(), rows.begin() + i * f);
    }
    const Tensor features =
        Tensor::Of<float>(DataType::kFloat, {n, f}, std::span<const float>(rows));
    std::vector<std::pair<std::string, const Tensor*>> inputs = {{"features", &features}};
    Tensor seed;
    if (const TensorSpec* s = model_->input("seed")) {
      if (s->dtype == DataType::kInt64) {
        std::vector<int64_t> v;
        for (const ModelCall* c : calls) v.insert(v.end(), c->int_inputs.begin(), c->int_inputs.end());
        seed = Tensor::Of<int64_t>(DataType::kInt64, {n, 2}, std::span<const int64_t>(v));
      } else {
        std::vector<int32_t> v;
        for (const ModelCall* c : calls) {
          for (int64_t x : c->int_inputs) v.push_back(static_cast<int32_t>(x));
        }
        seed = Tensor::Of<int32_t>(DataType::kInt32, {n, 2}, std::span<const int32_t>(v));
      }
      inputs.emplace_back("seed", &seed);
    }
    const std::vector<Tensor> out = model_->Run(inputs, {"signal"});
    if (out.empty() || out[0].dtype() != DataType::kFloat ||
        out[0].num_elements() < static_cast<size_t>(n) ||
        out[0].num_elements() % static_cast<size_t>(n) != 0) {
      throw SimulationError("model " + model_->path() + " did not return a float32 signal row "
                            "per input row");
    }
    const size_t k = out[0].num_elements() / static_cast<size_t>(n);
    const std::span<const float> values = out[0].values<float>();
    for (int64_t i = 0; i < n; ++i) {
      calls[i]->outputs.assign(values.begin() + i * k, values.begin() + (i + 1) * k);
    }
  }

 private:
  std::shared_ptr<const Model> model_;
};

// The AgentModel of each model of this process, so that agents of the same
// model share one (and its calls are batched together).
std::shared_ptr<const BatchModel> AgentModelOf(const std::shared_ptr<const Model>& model) {
  static std::mutex mutex;
  static std::map<const Model*, std::shared_ptr<const BatchModel>>* models =
      new std::map<const Model*, std::shared_ptr<const BatchModel>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = (*models)[model.get()];
  if (slot == nullptr) slot = std::make_shared<AgentModel>(model);
  return slot;
}

}  // namespace

void TensorFlowAgent::prepare_model_calls(Markets markets, std::vector<ModelCall>* calls) {
  for (const Market* market : markets) {
    if (!is_market_accessible(market->market_id())) continue;
    const Model& m = model();
    if (batch_model_ == nullptr) batch_model_ = AgentModelOf(model_);
    ModelCall call;
    call.model = batch_model_.get();
    Features(*market, &call.inputs);
    if (m.input("seed") != nullptr) {
      // Seeds of the model's stateless random ops come from the agent's
      // prng, so results do not depend on which process runs the agent.
      call.int_inputs = {prng().randint(0, 0x7fffffff), prng().randint(0, 0x7fffffff)};
    }
    calls->push_back(std::move(call));
  }
}

void TensorFlowAgent::submit_orders_with_model_outputs(Markets markets,
                                                       std::span<const ModelCall> calls,
                                                       std::vector<Action>* orders) {
  size_t next = 0;
  for (const Market* market : markets) {
    if (!is_market_accessible(market->market_id())) continue;
    if (next >= calls.size() || calls[next].outputs.empty()) {
      throw SimulationError("agent " + name() + ": model " + model_path_ +
                            " did not return a float32 signal");
    }
    const double signal = calls[next++].outputs[0];
    const double price = market->get_market_price();
    const double expected = price * std::exp(signal * return_scale_);
    if (!std::isfinite(expected)) {
      throw SimulationError("agent " + name() + ": model signal " +
                            std::to_string(signal) + " gives no finite price");
    }
    if (expected > price) {
      orders->push_back(Order::Limit({.agent_id = agent_id(),
                                      .market_id = market->market_id(),
                                      .is_buy = true,
                                      .price = expected * (1 - order_margin_),
                                      .volume = order_volume_,
                                      .ttl = time_window_size_}));
    } else if (expected < price) {
      orders->push_back(Order::Limit({.agent_id = agent_id(),
                                      .market_id = market->market_id(),
                                      .is_buy = false,
                                      .price = expected * (1 + order_margin_),
                                      .volume = order_volume_,
                                      .ttl = time_window_size_}));
    }
  }
}

void TensorFlowAgent::submit_orders(Markets markets, std::vector<Action>* orders) {
  // The two phases, each model call on its one row (what a batch of one
  // gives).
  one_call_.clear();
  prepare_model_calls(markets, &one_call_);
  for (ModelCall& call : one_call_) call.model->run_one(&call);
  submit_orders_with_model_outputs(markets, one_call_, orders);
}

}  // namespace pams::tensorflow
