// Python values as engine values and back: a config given as Python values
// as a JSON value, a JSON value as Python values, a random.Random state as
// the engine generator's. Pure conversions: they touch no engine object.

#ifndef PAMS_PYTHON_SRC_INTEROP_VALUES_H_
#define PAMS_PYTHON_SRC_INTEROP_VALUES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interop/python.h"
#include "pams/config/json.h"
#include "pams/random/random.h"

namespace pams::python {

// A config given as Python values (dict, list, str, int, float, bool,
// None), as a JSON value with the keys in the dict's order. Throws
// ConfigError naming the key path of a value JSON cannot hold (a float
// NaN, an int beyond 64 bits, a non-str key, another type) and for nesting
// deeper than kMaxJsonDepth. `path` is the key path of `value` itself
// ("" for a whole config).
Json ToJson(nb::handle value, const std::string& path);

// A JSON value as Python values (dicts keep the keys' order).
nb::object ToPython(const Json& json);

// The state of a random.Random from getstate()'s parts: the 624 words, the
// index and gauss_next (None: none). Throws ValueError for a state of
// another size.
Random::State ToRandomState(const std::vector<uint32_t>& mt, uint32_t index,
                            std::optional<double> gauss_next);

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_VALUES_H_
