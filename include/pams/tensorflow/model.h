// Model: a TensorFlow SavedModel (tag "serve"), run through its
// "serving_default" signature, whose inputs and outputs are named as in the
// model (a Keras 3 model.export() names them after the keras.Input names and
// the output dict's keys). Tensors are plain host values.
//
// Models are loaded through a per-process cache keyed by path (PAMS's
// functools.lru_cache pattern): agents hold a path, never a model, so they
// stay cheap to copy into worker processes, and each process loads a model
// once. A Model may be run from several threads at once.

#ifndef PAMS_TENSORFLOW_MODEL_H_
#define PAMS_TENSORFLOW_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>
#include "pams/export.h"

namespace pams::tensorflow {

enum class DataType { kFloat = 1, kDouble = 2, kInt32 = 3, kInt64 = 9, kBool = 10 };

PAMS_EXPORT std::string DataTypeName(DataType type);

// A dense host tensor.
class PAMS_EXPORT Tensor {
 public:
  Tensor() = default;
  Tensor(DataType type, std::vector<int64_t> shape);

  template <typename T>
  static Tensor Of(DataType type, std::vector<int64_t> shape,
                   std::span<const T> values) {
    Tensor t(type, std::move(shape));
    std::memcpy(t.data_.data(), values.data(),
                std::min(t.data_.size(), values.size_bytes()));
    return t;
  }

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  size_t num_elements() const;
  // The values, reinterpreted. REQUIRES: T matches dtype().
  template <typename T>
  std::span<T> values() {
    return {reinterpret_cast<T*>(data_.data()), data_.size() / sizeof(T)};
  }
  template <typename T>
  std::span<const T> values() const {
    return {reinterpret_cast<const T*>(data_.data()), data_.size() / sizeof(T)};
  }
  std::vector<char>& bytes() { return data_; }
  const std::vector<char>& bytes() const { return data_; }

 private:
  DataType dtype_ = DataType::kFloat;
  std::vector<int64_t> shape_;
  std::vector<char> data_;
};

// An input or output of the signature.
struct PAMS_EXPORT TensorSpec {
  std::string key;          // the signature's name for it ("features")
  std::string tensor_name;  // the graph tensor ("serving_default_features:0")
  DataType dtype = DataType::kFloat;
  std::vector<int64_t> shape;  // -1 for unknown sizes
};

class PAMS_EXPORT Model {
 public:
  // Loads the SavedModel in directory `path` with this process's
  // TensorFlow options (see tensorflow.h). Throws ConfigError naming the path
  // when TensorFlow is missing or the model cannot be loaded.
  static std::shared_ptr<const Model> Load(const std::string& path);

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const std::string& path() const { return path_; }
  const std::vector<TensorSpec>& inputs() const { return inputs_; }
  const std::vector<TensorSpec>& outputs() const { return outputs_; }
  // nullptr when there is no such input/output.
  const TensorSpec* input(const std::string& key) const;
  const TensorSpec* output(const std::string& key) const;

  // Runs the signature: every input by key, the outputs asked for by key.
  // Throws SimulationError with TensorFlow's message on failure.
  std::vector<Tensor> Run(const std::vector<std::pair<std::string, const Tensor*>>& inputs,
                          const std::vector<std::string>& output_keys) const;

 private:
  struct Handles;
  Model() = default;

  std::string path_;
  std::vector<TensorSpec> inputs_;
  std::vector<TensorSpec> outputs_;
  std::unique_ptr<Handles> handles_;
};

// The process's model cache: the model at path, loaded on first use.
PAMS_EXPORT std::shared_ptr<const Model> GetModel(const std::string& path);

}  // namespace pams::tensorflow

#endif  // PAMS_TENSORFLOW_MODEL_H_
