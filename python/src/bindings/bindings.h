// The declarations of pams_cpp._core: one Bind function per concept, each
// adding its classes and functions to the module (module.cc calls them in
// order). This half of python/src says what Python sees (names,
// signatures, docstrings); the other half, interop/, holds the logic that
// crosses between Python and the engine (Python classes run by the engine,
// conversions, loggers, tables), which has C++ tests of its own. PAMS's
// Python names and call shapes live in the Python package
// (python/pams_cpp/), which wraps these.

#ifndef PAMS_PYTHON_SRC_BINDINGS_BINDINGS_H_
#define PAMS_PYTHON_SRC_BINDINGS_BINDINGS_H_

#include "interop/python.h"

namespace pams {
class IndexMarket;
class Market;
class Runner;
}  // namespace pams

namespace pams::python {

struct PythonRun;

void BindErrors(nb::module_& m);
void BindConfig(nb::module_& m);
void BindGenerator(nb::module_& m);
void BindMarket(nb::module_& m);
void BindTransactionFees(nb::module_& m);
// The classes of the samples of PAMS's development branch (samples.cc).
void BindSamples(nb::module_& m);
void BindSimulation(nb::module_& m);
void BindAgents(nb::module_& m);
void BindEvents(nb::module_& m);
void BindTable(nb::module_& m);
void BindLoggers(nb::module_& m);
void BindAnalysis(nb::module_& m);
void BindRunner(nb::module_& m);
void BindWorker(nb::module_& m);
void BindSweep(nb::module_& m);
void BindRunnerSteps(nb::module_& m);
// PAMS's objects built and driven by hand (after the classes they extend).
void BindHandBuiltMarkets(nb::module_& m);  // also calls the two below
void BindHandBuiltOrderBooks(nb::module_& m);
void BindHandBuiltFundamentals(nb::module_& m);
void BindHandBuiltSimulation(nb::module_& m);
// Market's and IndexMarket's methods for objects built by hand
// (hand_built_market.cc).
void BindHandBuiltMarketMethods(nb::handle market_cls, nb::handle index_cls);

// The engine runner and the Python side of the run of a _core.Runner
// (runner.cc), for the bindings of its steps and workers; runner is a
// pams_cpp runner (its _core), runner_core a _core.Runner.
Runner& EngineRunnerOf(nb::handle runner);
Runner& EngineOfRunnerCore(nb::handle runner_core);
PythonRun& PythonRunOf(nb::handle runner_core);

// Raises, naming `method`, for a price the market's tick grid cannot take:
// ValueError for NaN (PAMS's round() raises it), OverflowError for one of
// more than 9.2e18 ticks or infinite (the engine's tick levels are ints of
// 64 bits; PAMS's round() raises OverflowError for an infinite one).
void CheckTickPrice(const Market& market, double price, const char* method);
// Raises, naming `method`, where PAMS's index computations would: no
// component or shares adding up to 0 (ZeroDivisionError), a component whose
// outstanding_shares was set to None after it was added (TypeError: None
// times a price).
void CheckComponents(const IndexMarket& index, const char* method);

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_BINDINGS_BINDINGS_H_
