// The worker side of MultiProcessAgentParallelRunner for Python: a worker
// process is a Python interpreter (pams_cpp.runners._worker) that builds
// its replica of the simulation with the Python classes of the main
// process, and then serves the runner's tasks with the engine's worker loop
// (src/runners/worker.cc), which calls the Python agents.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>
#include <vector>

#include "bindings/bindings.h"
#include "interop/values.h"
#include "runners/host_error.h"
#include "runners/worker_protocol.h"

namespace pams::python {

void BindWorker(nb::module_& m) {
  // Serves the runner on descriptor fd, one run after another: for each
  // run, receives the replica's config, calls build(init) (a dict:
  // settings_json, runner_class, prng_mt, prng_index, prng_gauss,
  // config_directory, worker_index, host_payload, and first: whether this
  // is the process's first run, which prepares the process) for the
  // pams_cpp runner set up as the replica, and then runs tasks until the
  // run ends; exits the process once the main process stops it. Never
  // returns.
  m.def("_serve_python_worker", [](int fd, nb::object build) {
    nb::object runner;  // the current run's replica
    ServeWorker(fd, [&](const WorkerInit& init, bool first) -> Runner* {
      runner = nb::none();  // the previous run's replica goes first
      nb::dict d;
      d["first"] = first;
      d["settings_json"] = init.settings_json;
      d["runner_class"] = init.runner_class;
      d["prng_mt"] = std::vector<uint32_t>(init.prng_state.mt.begin(), init.prng_state.mt.end());
      d["prng_index"] = init.prng_state.index;
      d["prng_gauss"] =
          init.prng_state.has_gauss_next ? nb::cast(init.prng_state.gauss_next) : nb::none();
      d["config_directory"] = init.config_directory;
      d["worker_index"] = init.worker_index;
      d["host_payload"] = nb::bytes(init.host_payload.data(), init.host_payload.size());
      try {
        runner = build(d);
      } catch (nb::python_error& e) {
        // Raised again in the main process as it is (an ImportError of
        // the main module, the worker initializer's own error).
        std::string payload;
        try {
          nb::bytes bytes(nb::module_::import_("pams_cpp.runners._errors")
                              .attr("dumps")(e.value()));
          payload.assign(bytes.c_str(), bytes.size());
        } catch (nb::python_error&) {
          payload.clear();
        }
        throw HostError(e.what(), std::move(payload));
      }
      return &EngineRunnerOf(runner);
    });
  });
  // The worker process's signal handling and life (see worker_protocol.h).
  m.def("_become_worker_process", &BecomeWorkerProcess);
  // Moves fd to descriptor 3 and closes the descriptors above; returns 3.
  m.def("_keep_only_descriptor", &KeepOnlyDescriptor, nb::arg("fd"));
}

}  // namespace pams::python
