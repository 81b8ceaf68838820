// Loading TensorFlow's C API at run time, and the process's TensorFlow
// options. The state here is process-wide by nature (one TensorFlow per
// process), guarded by a mutex.

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "c_api.h"
#include "pams/errors.h"
#include "pams/tensorflow/tensorflow.h"
#include "proto.h"
#include "runtime_internal.h"

namespace pams::tensorflow {

namespace {

constexpr const char* kLibrary = "libtensorflow_cc.so.2";
constexpr const char* kFramework = "libtensorflow_framework.so.2";

struct Runtime {
  std::mutex mutex;
  bool tried = false;
  std::string error;  // why loading failed
  Api api{};
  Options options;
  bool initialized = false;
};

Runtime& State() {
  static Runtime* runtime = new Runtime;  // never destroyed: TF stays loaded
  return *runtime;
}

std::string InstallHint() {
  // The version that scripts/setup-tensorflow.sh pins and the tests use.
  // Short: error messages are capped (pams/errors.h), and what was tried
  // follows.
  return "TensorFlow is needed here but is not available: `make tensorflow` "
         "installs the pinned tensorflow-cpu 2.21.0 into .venv-tf (or pip install "
         "tensorflow-cpu==2.21.0 into a venv of your own) and "
         "PAMS_TENSORFLOW_LIBRARY=.venv-tf/lib/python3.11/site-packages/tensorflow/"
         "libtensorflow_cc.so.2 points pams at it";
}

// dlopen of the framework library (when beside path) and of path.
void* Open(const std::string& path, std::string* why) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) {
    const std::string framework = (p.parent_path() / kFramework).string();
    if (std::filesystem::exists(framework)) {
      dlopen(framework.c_str(), RTLD_NOW | RTLD_LOCAL);
    }
  } else {
    dlopen(kFramework, RTLD_NOW | RTLD_LOCAL);
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = dlerror();
    *why += "\n  " + path + ": " + (e ? e : "cannot be loaded");
  }
  return handle;
}

template <typename Fn>
bool Bind(void* handle, const char* name, Fn* fn, std::string* why) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (*fn == nullptr) *why += std::string("\n  missing symbol ") + name;
  return *fn != nullptr;
}

bool BindAll(void* handle, Api* a, std::string* why) {
  bool ok = true;
  ok &= Bind(handle, "TF_Version", &a->Version, why);
  ok &= Bind(handle, "TF_NewStatus", &a->NewStatus, why);
  ok &= Bind(handle, "TF_DeleteStatus", &a->DeleteStatus, why);
  ok &= Bind(handle, "TF_GetCode", &a->GetCode, why);
  ok &= Bind(handle, "TF_Message", &a->Message, why);
  ok &= Bind(handle, "TF_NewGraph", &a->NewGraph, why);
  ok &= Bind(handle, "TF_DeleteGraph", &a->DeleteGraph, why);
  ok &= Bind(handle, "TF_GraphOperationByName", &a->GraphOperationByName, why);
  ok &= Bind(handle, "TF_NewSessionOptions", &a->NewSessionOptions, why);
  ok &= Bind(handle, "TF_DeleteSessionOptions", &a->DeleteSessionOptions, why);
  ok &= Bind(handle, "TF_SetConfig", &a->SetConfig, why);
  ok &= Bind(handle, "TF_NewBuffer", &a->NewBuffer, why);
  ok &= Bind(handle, "TF_DeleteBuffer", &a->DeleteBuffer, why);
  ok &= Bind(handle, "TF_LoadSessionFromSavedModel", &a->LoadSessionFromSavedModel, why);
  ok &= Bind(handle, "TF_CloseSession", &a->CloseSession, why);
  ok &= Bind(handle, "TF_DeleteSession", &a->DeleteSession, why);
  ok &= Bind(handle, "TF_SessionRun", &a->SessionRun, why);
  ok &= Bind(handle, "TF_AllocateTensor", &a->AllocateTensor, why);
  ok &= Bind(handle, "TF_DeleteTensor", &a->DeleteTensor, why);
  ok &= Bind(handle, "TF_TensorType", &a->TensorType, why);
  ok &= Bind(handle, "TF_NumDims", &a->NumDims, why);
  ok &= Bind(handle, "TF_Dim", &a->Dim, why);
  ok &= Bind(handle, "TF_TensorByteSize", &a->TensorByteSize, why);
  ok &= Bind(handle, "TF_TensorData", &a->TensorData, why);
  return ok;
}

// REQUIRES: the state's mutex is held.
void LoadLocked(Runtime& r) {
  if (r.tried) return;
  r.tried = true;
  // TensorFlow logs every model load at INFO level; keep warnings and
  // errors only, unless the user chose a level. (Worker processes inherit
  // the setting.)
  setenv("TF_CPP_MIN_LOG_LEVEL", "1", /*overwrite=*/0);
  std::string why;
  for (const std::string& path : LibraryCandidates()) {
    void* handle = Open(path, &why);
    if (handle == nullptr) continue;
    Api api{};
    if (BindAll(handle, &api, &why)) {
      r.api = api;
      return;
    }
    why += "\n  (" + path + " is not TensorFlow's C API library)";
  }
  r.error = InstallHint() + ". Tried:" + why;
}

}  // namespace

std::vector<std::string> LibraryCandidates() {
  if (const char* env = std::getenv("PAMS_TENSORFLOW_LIBRARY")) return {env};
  std::vector<std::string> out;
#ifdef PAMS_TENSORFLOW_DEFAULT_LIBRARY
  if (std::string(PAMS_TENSORFLOW_DEFAULT_LIBRARY).size() > 0) {
    out.push_back(PAMS_TENSORFLOW_DEFAULT_LIBRARY);
  }
#endif
  out.push_back(kLibrary);
  return out;
}

const Api& GetApi() {
  Runtime& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  LoadLocked(r);
  if (!r.error.empty()) throw ConfigError("TensorFlow", r.error);
  return r.api;
}

void EnsureLoaded() { GetApi(); }

bool IsAvailable(std::string* why) {
  try {
    GetApi();
    return true;
  } catch (const ConfigError& e) {
    if (why != nullptr) *why = e.message();
    return false;
  }
}

std::string Version() { return GetApi().Version(); }

std::string ConfigProtoBytes(const Options& options) {
  std::string out;
  // Fields in field-number order, as protobuf serializes them.
  if (options.intra_op_threads) PutVarintField(2, *options.intra_op_threads, &out);
  if (options.inter_op_threads) PutVarintField(5, *options.inter_op_threads, &out);
  if (options.gpu_memory_growth) {
    std::string gpu;
    // proto3 leaves a false bool out.
    if (*options.gpu_memory_growth) PutVarintField(4, 1, &gpu);
    PutBytesField(6, gpu, &out);
  }
  return out;
}

void Configure(const Options& options) {
  Runtime& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.initialized && !(options == r.options)) {
    throw SimulationError(
        "TensorFlow was configured after it ran in this process; set its "
        "options before the first model is loaded");
  }
  r.options = options;
}

Options CurrentOptions() {
  Runtime& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.options;
}

bool IsInitialized() {
  Runtime& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.initialized;
}

void MarkInitialized() {
  Runtime& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.initialized = true;
}

}  // namespace pams::tensorflow
