#include "pams/tensorflow/model.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

#include "c_api.h"
#include "pams/errors.h"
#include "pams/tensorflow/tensorflow.h"
#include "proto.h"
#include "runtime_internal.h"

namespace pams::tensorflow {

namespace {

size_t ElementSize(DataType type) {
  switch (type) {
    case DataType::kFloat:
    case DataType::kInt32:
      return 4;
    case DataType::kDouble:
    case DataType::kInt64:
      return 8;
    case DataType::kBool:
      return 1;
  }
  return 1;
}

// A status that throws on error.
class Status {
 public:
  explicit Status(const Api& api) : api_(api), status_(api.NewStatus()) {}
  ~Status() { api_.DeleteStatus(status_); }
  Status(const Status&) = delete;
  Status& operator=(const Status&) = delete;
  TF_Status* get() { return status_; }
  bool ok() const { return api_.GetCode(status_) == kTfOk; }
  std::string message() const { return api_.Message(status_); }

 private:
  const Api& api_;
  TF_Status* status_;
};

// --- The signature, from the MetaGraphDef's wire format ---
// MetaGraphDef.signature_def = 5 (map<string, SignatureDef>); SignatureDef:
// inputs = 1, outputs = 2 (map<string, TensorInfo>); TensorInfo: name = 1,
// dtype = 2, tensor_shape = 3 (TensorShapeProto: dim = 2 {size = 1}).

TensorSpec ReadTensorInfo(std::string key, std::string_view bytes) {
  TensorSpec spec;
  spec.key = std::move(key);
  ProtoReader r(bytes);
  while (r.Next()) {
    if (r.field() == 1 && r.wire_type() == 2) spec.tensor_name = std::string(r.bytes());
    if (r.field() == 2 && r.wire_type() == 0) spec.dtype = static_cast<DataType>(r.varint());
    if (r.field() == 3 && r.wire_type() == 2) {
      ProtoReader shape(r.bytes());
      while (shape.Next()) {
        if (shape.field() != 2 || shape.wire_type() != 2) continue;
        int64_t size = 0;
        ProtoReader dim(shape.bytes());
        while (dim.Next()) {
          if (dim.field() == 1 && dim.wire_type() == 0) {
            size = static_cast<int64_t>(dim.varint());
          }
        }
        spec.shape.push_back(size);
      }
    }
  }
  return spec;
}

// A map entry (key = 1, value = 2).
std::pair<std::string, std::string_view> ReadMapEntry(std::string_view bytes) {
  std::pair<std::string, std::string_view> entry;
  ProtoReader r(bytes);
  while (r.Next()) {
    if (r.field() == 1 && r.wire_type() == 2) entry.first = std::string(r.bytes());
    if (r.field() == 2 && r.wire_type() == 2) entry.second = r.bytes();
  }
  return entry;
}

bool ReadSignature(std::string_view meta_graph, const std::string& name,
                   std::vector<TensorSpec>* inputs,
                   std::vector<TensorSpec>* outputs) {
  ProtoReader r(meta_graph);
  while (r.Next()) {
    if (r.field() != 5 || r.wire_type() != 2) continue;
    const auto [key, signature] = ReadMapEntry(r.bytes());
    if (key != name) continue;
    ProtoReader s(signature);
    while (s.Next()) {
      if ((s.field() == 1 || s.field() == 2) && s.wire_type() == 2) {
        const auto [tensor_key, info] = ReadMapEntry(s.bytes());
        (s.field() == 1 ? inputs : outputs)->push_back(ReadTensorInfo(tensor_key, info));
      }
    }
    // Maps have no order; keep a stable one.
    auto by_key = [](const TensorSpec& a, const TensorSpec& b) { return a.key < b.key; };
    std::sort(inputs->begin(), inputs->end(), by_key);
    std::sort(outputs->begin(), outputs->end(), by_key);
    return true;
  }
  return false;
}

TF_Output Resolve(const Api& api, TF_Graph* graph, const TensorSpec& spec,
                  const std::string& path) {
  const size_t colon = spec.tensor_name.rfind(':');
  const std::string op = spec.tensor_name.substr(0, colon);
  const int index = colon == std::string::npos
                        ? 0
                        : std::stoi(spec.tensor_name.substr(colon + 1));
  TF_Operation* oper = api.GraphOperationByName(graph, op.c_str());
  if (oper == nullptr) {
    throw ConfigError(path, "the model's graph has no operation " + op);
  }
  return TF_Output{oper, index};
}

}  // namespace

std::string DataTypeName(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return "float32";
    case DataType::kDouble:
      return "float64";
    case DataType::kInt32:
      return "int32";
    case DataType::kInt64:
      return "int64";
    case DataType::kBool:
      return "bool";
  }
  return "dtype " + std::to_string(static_cast<int>(type));
}

Tensor::Tensor(DataType type, std::vector<int64_t> shape)
    : dtype_(type), shape_(std::move(shape)) {
  data_.resize(num_elements() * ElementSize(type));
}

size_t Tensor::num_elements() const {
  size_t n = 1;
  for (int64_t d : shape_) n *= static_cast<size_t>(std::max<int64_t>(d, 0));
  return n;
}

struct Model::Handles {
  const Api* api = nullptr;
  TF_Graph* graph = nullptr;
  TF_Session* session = nullptr;
  std::map<std::string, TF_Output> inputs;
  std::map<std::string, TF_Output> outputs;
};

Model::~Model() {
  if (handles_ && handles_->session != nullptr) {
    const Api& api = *handles_->api;
    Status status(api);
    api.CloseSession(handles_->session, status.get());
    api.DeleteSession(handles_->session, status.get());
    api.DeleteGraph(handles_->graph);
  }
}

std::shared_ptr<const Model> Model::Load(const std::string& path) {
  const Api& api = GetApi();
  if (!std::filesystem::is_directory(path)) {
    throw ConfigError(path, "no TensorFlow SavedModel directory here");
  }
  std::shared_ptr<Model> model(new Model);
  model->path_ = path;
  model->handles_ = std::make_unique<Handles>();
  Handles& h = *model->handles_;
  h.api = &api;
  Status status(api);
  TF_SessionOptions* options = api.NewSessionOptions();
  const std::string config = ConfigProtoBytes(CurrentOptions());
  if (!config.empty()) api.SetConfig(options, config.data(), config.size(), status.get());
  if (!status.ok()) {
    api.DeleteSessionOptions(options);
    throw ConfigError(path, "TensorFlow refused its options: " + status.message());
  }
  h.graph = api.NewGraph();
  TF_Buffer* meta_graph = api.NewBuffer();
  const char* tags[] = {"serve"};
  h.session = api.LoadSessionFromSavedModel(options, nullptr, path.c_str(), tags, 1,
                                            h.graph, meta_graph, status.get());
  api.DeleteSessionOptions(options);
  MarkInitialized();
  if (!status.ok() || h.session == nullptr) {
    api.DeleteBuffer(meta_graph);
    throw ConfigError(path, "TensorFlow cannot load this SavedModel: " +
                                status.message());
  }
  const std::string_view meta(static_cast<const char*>(meta_graph->data),
                              meta_graph->length);
  const bool found =
      ReadSignature(meta, "serving_default", &model->inputs_, &model->outputs_);
  api.DeleteBuffer(meta_graph);
  if (!found) {
    throw ConfigError(path, "the SavedModel has no \"serving_default\" signature "
                            "(export it with Keras's model.export())");
  }
  for (const TensorSpec& spec : model->inputs_) {
    h.inputs[spec.key] = Resolve(api, h.graph, spec, path);
  }
  for (const TensorSpec& spec : model->outputs_) {
    h.outputs[spec.key] = Resolve(api, h.graph, spec, path);
  }
  return model;
}

const TensorSpec* Model::input(const std::string& key) const {
  for (const TensorSpec& s : inputs_) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

const TensorSpec* Model::output(const std::string& key) const {
  for (const TensorSpec& s : outputs_) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

std::vector<Tensor> Model::Run(
    const std::vector<std::pair<std::string, const Tensor*>>& inputs,
    const std::vector<std::string>& output_keys) const {
  const Api& api = *handles_->api;
  std::vector<TF_Output> in_ops;
  std::vector<TF_Tensor*> in_values;
  auto release = [&] {
    for (TF_Tensor* t : in_values) api.DeleteTensor(t);
  };
  for (const auto& [key, tensor] : inputs) {
    auto it = handles_->inputs.find(key);
    if (it == handles_->inputs.end()) {
      release();
      throw SimulationError("model " + path_ + " has no input \"" + key + "\"");
    }
    in_ops.push_back(it->second);
    TF_Tensor* t = api.AllocateTensor(static_cast<int>(tensor->dtype()),
                                      tensor->shape().data(),
                                      static_cast<int>(tensor->shape().size()),
                                      tensor->bytes().size());
    std::memcpy(api.TensorData(t), tensor->bytes().data(), tensor->bytes().size());
    in_values.push_back(t);
  }
  std::vector<TF_Output> out_ops;
  for (const std::string& key : output_keys) {
    auto it = handles_->outputs.find(key);
    if (it == handles_->outputs.end()) {
      release();
      throw SimulationError("model " + path_ + " has no output \"" + key + "\"");
    }
    out_ops.push_back(it->second);
  }
  std::vector<TF_Tensor*> out_values(out_ops.size(), nullptr);
  Status status(api);
  api.SessionRun(handles_->session, nullptr, in_ops.data(), in_values.data(),
                 static_cast<int>(in_ops.size()), out_ops.data(), out_values.data(),
                 static_cast<int>(out_ops.size()), nullptr, 0, nullptr, status.get());
  release();
  if (!status.ok()) {
    for (TF_Tensor* t : out_values) {
      if (t != nullptr) api.DeleteTensor(t);
    }
    throw SimulationError("model " + path_ + " failed: " + status.message());
  }
  std::vector<Tensor> results;
  for (TF_Tensor* t : out_values) {
    std::vector<int64_t> shape;
    for (int d = 0; d < api.NumDims(t); ++d) shape.push_back(api.Dim(t, d));
    Tensor out(static_cast<DataType>(api.TensorType(t)), std::move(shape));
    const size_t n = std::min(out.bytes().size(), api.TensorByteSize(t));
    std::memcpy(out.bytes().data(), api.TensorData(t), n);
    api.DeleteTensor(t);
    results.push_back(std::move(out));
  }
  return results;
}

std::shared_ptr<const Model> GetModel(const std::string& path) {
  // Process-wide, as PAMS's lru_cache: one load per process and path.
  static std::mutex* mutex = new std::mutex;
  static auto* cache = new std::map<std::string, std::shared_ptr<const Model>>;
  std::lock_guard<std::mutex> lock(*mutex);
  auto it = cache->find(path);
  if (it != cache->end()) return it->second;
  std::shared_ptr<const Model> model = Model::Load(path);
  (*cache)[path] = model;
  return model;
}

}  // namespace pams::tensorflow
