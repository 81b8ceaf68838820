// The pieces of pams_cpp._core, one per concept, each adding its classes
// and functions to the module (module.cc calls them in order). Everything
// here is the binding layer: PAMS's Python names and call shapes live in
// the Python package (python/pams_cpp/), which wraps these.

#ifndef PAMS_PYTHON_SRC_BINDINGS_H_
#define PAMS_PYTHON_SRC_BINDINGS_H_

#include <nanobind/nanobind.h>
// The casters of the standard types every file of the binding uses: a
// file without them would fail at run time (a cast_error) where another
// succeeds, so every file gets them from here.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "pams/config/json.h"
#include "pams/random/random.h"

namespace pams::python {

namespace nb = nanobind;

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

// The state of a random.Random from getstate()'s parts: the 624 words, the
// index and gauss_next (None: none). Throws ValueError for a state of
// another size (generator.cc).
Random::State ToRandomState(const std::vector<uint32_t>& mt, uint32_t index,
                            std::optional<double> gauss_next);

// A config given as Python values (dict, list, str, int, float, bool,
// None), as a JSON value with the keys in the dict's order. Throws
// ConfigError naming the key path of a value JSON cannot hold (a float
// NaN, an int beyond 64 bits, a non-str key, another type) and for nesting
// deeper than kMaxJsonDepth.
Json ToJson(nb::handle value, const std::string& path);

// A Python reference to *object, which lives as long as `owner` (the
// Python object it belongs to: its simulator, its runner). The reference
// keeps owner alive through its attribute _owner, which the garbage
// collector sees: nanobind's keep_alive is invisible to it, and would make
// a runner whose Python agents refer back to it uncollectable.
// REQUIRES: T's class is bound with nb::dynamic_attr().
template <typename T>
nb::object OwnedBy(T* object, nb::handle owner) {
  nb::object o = nb::cast(object, nb::rv_policy::reference);
  if (owner.is_valid()) nb::setattr(o, "_owner", owner);
  return o;
}

// A JSON value as Python values (dicts keep the keys' order).
nb::object ToPython(const Json& json);

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_BINDINGS_H_
