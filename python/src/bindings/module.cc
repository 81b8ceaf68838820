// pams_cpp._core: the C++ engine as a Python extension module.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings/bindings.h"
#include "interop/hand_built.h"
#include "interop/values.h"
#include "pams/errors.h"

namespace pams::python {

void BindErrors(nb::module_& m) {
  // ConfigError is a ValueError (what PAMS raises for bad configs) with the
  // key path and the bare message as attributes; SimulationError a
  // RuntimeError.
  // The types live as long as the interpreter: kept as new references that
  // are never released (a static nb::object would be released after the
  // interpreter is gone).
  static PyObject* config_error =
      nb::exception<ConfigError>(m, "ConfigError", PyExc_ValueError).ptr();
  static PyObject* simulation_error =
      nb::exception<SimulationError>(m, "SimulationError", PyExc_RuntimeError).ptr();
  Py_INCREF(config_error);
  Py_INCREF(simulation_error);
  nb::setattr(config_error, "__doc__",
              nb::str("A config that cannot run: a missing key, a value of the wrong type or\n"
                      "out of range, an unknown class (a ValueError, as PAMS raises).\n\n"
                      "Attributes:\n"
                      "    path (str): where in the config, e.g. \"FCNAgents.numAgents\".\n"
                      "    message (str): what is wrong, without the path."));
  nb::setattr(simulation_error, "__doc__",
              nb::str("A simulation that cannot go on (a RuntimeError): e.g. a fundamental\n"
                      "process whose correlations give no valid covariance, or an agent whose\n"
                      "computation gives a value that is not finite. The message says what and\n"
                      "where."));
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      nb::object error = nb::handle(config_error)(e.what());
      error.attr("path") = e.path();
      error.attr("message") = e.message();
      PyErr_SetObject(config_error, error.ptr());
    } catch (const SimulationError& e) {
      PyErr_SetString(simulation_error, e.what());
    }
  });
}

}  // namespace pams::python

NB_MODULE(_core, m) {
  m.doc() = "The pams-cpp engine (use the pams_cpp package, which wraps it).";
  pams::python::BindErrors(m);
  pams::python::BindConfig(m);
  pams::python::BindGenerator(m);
  pams::python::BindMarket(m);
  pams::python::BindTransactionFees(m);
  pams::python::BindSamples(m);
  pams::python::BindAgents(m);
  pams::python::BindEvents(m);
  pams::python::BindSimulation(m);
  pams::python::BindTable(m);
  pams::python::BindLoggers(m);
  pams::python::BindAnalysis(m);
  pams::python::BindRunner(m);
  // PAMS's objects built and driven by hand (after the classes they extend).
  pams::python::BindHandBuiltMarkets(m);
  pams::python::BindHandBuiltSimulation(m);
  pams::python::BindRunnerSteps(m);
  pams::python::BindWorker(m);
  pams::python::BindSweep(m);
}
