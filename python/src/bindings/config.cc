// The config functions of _core: parsing config text as `pams run` does,
// and the engine's rules that the Python runners ask for (workers at once,
// TensorFlow's worker options) instead of recomputing them.

#include <nanobind/stl/string.h>

#include <string>

#include "bindings/bindings.h"
#include "interop/values.h"
#include "pams/config/json.h"
#include "pams/runners/parallel_runners.h"
#include "pams/tensorflow/tensorflow_runner.h"

namespace pams::python {

void BindConfig(nb::module_& m) {
  // The JSON text of a config file or stream, parsed as `pams run` parses
  // files (the same errors), into Python values.
  m.def("parse_config", [](const std::string& text, const std::string& source) {
    return ToPython(ParseJson(text, source));
  });
  m.def("read_config", [](const std::string& path) {
    return ToPython(ParseJsonFile(path));
  });
  // Checks that a Python config is JSON (the ConfigError pams_cpp raises
  // for a value that is not).
  m.def("check_config", [](nb::handle settings) { ToJson(settings, ""); });
  // The engine's rules for the parallel runners, for the Python runners
  // that prepare workers themselves (one rule, not a copy in Python).
  m.def("concurrency_for",
        [](nb::handle settings) {
          return AgentParallelRunner::ConcurrencyFor(ToJson(settings, ""));
        },
        nb::arg("settings"),
        "How many calls run at once for a config: min(numParallel (default: the CPUs "
        "less one), the largest maxNormalOrders of its sessions), at least 1.");
  m.def("tensorflow_worker_options",
        [](nb::handle settings) {
          const tensorflow::Options o = tensorflow::WorkerOptionsFor(ToJson(settings, ""));
          nb::dict d;
          d["intra_op_threads"] = *o.intra_op_threads;
          d["inter_op_threads"] = *o.inter_op_threads;
          d["gpu_memory_growth"] = *o.gpu_memory_growth;
          return d;
        },
        nb::arg("settings"),
        "The TensorFlow options the TensorFlow runner gives each worker for a config "
        "(intra_op_threads, inter_op_threads, gpu_memory_growth).");
}

}  // namespace pams::python
