// Runs a SavedModel through pams-cpp's TensorFlow C API (Model::Run, what
// TensorFlowAgent calls), for tests/python_tf/test_keras_identity.py to
// compare with Keras's own model(x) on the same inputs and thread counts.
//
// Usage: tensorflow_model_check MODEL_DIR INTRA_OP INTER_OP < INPUTS.json
// INPUTS.json: {"<input key>": [[...], ...], ...}, each a 2-D list (float32
// or int32 by the model's signature). Prints {"<output key>": [...]} with
// every float32 output as its bit pattern (an unsigned int), so that the
// comparison is exact. Exit status 1 with a message on any failure.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "pams/config/json.h"
#include "pams/tensorflow/model.h"
#include "pams/tensorflow/tensorflow.h"

namespace tf = pams::tensorflow;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: tensorflow_model_check MODEL_DIR INTRA_OP INTER_OP < INPUTS.json\n");
    return 2;
  }
  try {
    tf::Configure({std::stoi(argv[2]), std::stoi(argv[3]), std::nullopt});
    const std::shared_ptr<const tf::Model> model = tf::Model::Load(argv[1]);
    const std::string text((std::istreambuf_iterator<char>(std::cin)),
                           std::istreambuf_iterator<char>());
    const pams::Json inputs = pams::ParseJson(text, "inputs");
    std::vector<tf::Tensor> tensors;
    tensors.reserve(inputs.size());
    std::vector<std::pair<std::string, const tf::Tensor*>> feed;
    for (auto it = inputs.begin(); it != inputs.end(); ++it) {
      const tf::TensorSpec* spec = model->input(it.key());
      if (spec == nullptr) throw std::runtime_error("the model has no input " + it.key());
      const pams::Json& rows = it.value();
      const int64_t n = static_cast<int64_t>(rows.size());
      const int64_t k = n == 0 ? 0 : static_cast<int64_t>(rows[0].size());
      tf::Tensor t(spec->dtype, {n, k});
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < k; ++j) {
          if (spec->dtype == tf::DataType::kInt32) {
            t.values<int32_t>()[i * k + j] = rows[i][j].get<int32_t>();
          } else {
            t.values<float>()[i * k + j] = rows[i][j].get<float>();
          }
        }
      }
      tensors.push_back(std::move(t));
    }
    size_t i = 0;
    for (auto it = inputs.begin(); it != inputs.end(); ++it) feed.emplace_back(it.key(), &tensors[i++]);
    std::vector<std::string> keys;
    for (const tf::TensorSpec& spec : model->outputs()) keys.push_back(spec.key);
    const std::vector<tf::Tensor> outputs = model->Run(feed, keys);
    pams::Json out = pams::Json::object();
    for (size_t o = 0; o < outputs.size(); ++o) {
      pams::Json bits = pams::Json::array();
      for (float v : outputs[o].values<float>()) {
        uint32_t b;
        std::memcpy(&b, &v, sizeof b);
        bits.push_back(b);
      }
      out[keys[o]] = bits;
    }
    std::printf("%s\n", out.dump().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensorflow_model_check: %s\n", e.what());
    return 1;
  }
}
