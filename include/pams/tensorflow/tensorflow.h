// TensorFlow for pams-cpp, loaded at run time: the tensorflow-cpu (or
// tensorflow) pip wheel's libtensorflow_cc.so.2, which exports TensorFlow's
// C API. Nothing links TensorFlow: without it everything else builds and
// runs, and only what needs TensorFlow fails, with a message saying how to
// install it.
//
// Where the library is looked for, in order:
//   1. $PAMS_TENSORFLOW_LIBRARY (the path of libtensorflow_cc.so.2); when it
//      is set, the only place tried;
//   2. the path recorded at build time (CMake's PAMS_TENSORFLOW_LIBRARY,
//      found in the project's .venv-tf by default);
//   3. the dynamic loader's search path.
// The framework library beside it (libtensorflow_framework.so.2) is loaded
// first; both with RTLD_NOW | RTLD_LOCAL.
//
// A process configures TensorFlow once, before it first runs anything
// (TensorFlow creates its thread pools with the first session): the
// intra-op and inter-op thread counts and GPU memory growth, passed to every
// session as a ConfigProto. All functions are thread-safe.

#ifndef PAMS_TENSORFLOW_TENSORFLOW_H_
#define PAMS_TENSORFLOW_TENSORFLOW_H_

#include <optional>
#include <string>
#include <vector>
#include "pams/export.h"

namespace pams::tensorflow {

struct PAMS_EXPORT Options {
  std::optional<int> intra_op_threads;    // ConfigProto field 2
  std::optional<int> inter_op_threads;    // ConfigProto field 5
  std::optional<bool> gpu_memory_growth;  // gpu_options.allow_growth
  bool operator==(const Options&) const = default;
};

// The serialized tensorflow.ConfigProto for options (only the fields set),
// byte-identical to Python's ConfigProto(...).SerializeToString().
PAMS_EXPORT std::string ConfigProtoBytes(const Options& options);

// Where TensorFlow will be looked for, in order (see above).
PAMS_EXPORT std::vector<std::string> LibraryCandidates();

// Loads TensorFlow if needed. Throws ConfigError (path "TensorFlow") saying
// what was tried and how to install it.
PAMS_EXPORT void EnsureLoaded();
// Whether TensorFlow can be loaded; if not and why != null, why it cannot.
PAMS_EXPORT bool IsAvailable(std::string* why = nullptr);
// TensorFlow's version (loads it).
PAMS_EXPORT std::string Version();

// Sets the options of this process's TensorFlow. Loads nothing: they take
// effect when the first model is loaded. Throws SimulationError when a model
// was loaded already with other options (too late to change them).
PAMS_EXPORT void Configure(const Options& options);
// The options set (empty: TensorFlow's defaults, all CPUs).
PAMS_EXPORT Options CurrentOptions();
// Whether this process has run TensorFlow (loaded a model). After that, a
// forked child cannot use TensorFlow (its thread pools stay behind).
PAMS_EXPORT bool IsInitialized();

}  // namespace pams::tensorflow

#endif  // PAMS_TENSORFLOW_TENSORFLOW_H_
