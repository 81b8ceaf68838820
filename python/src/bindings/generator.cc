// _core.Generator: pams::Random, the engine's CPython-compatible Mersenne
// Twister, for pams_cpp's random.Random subclass (pams_cpp/_random.py),
// which makes every random.Random method draw from it. A Generator is
// either Python's own or a view of an engine object's generator (an
// agent's, a market's), kept alive with it.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "bindings/bindings.h"
#include "interop/values.h"
#include "pams/random/random.h"

namespace pams::python {

namespace {

// random.getrandbits(k) for any k >= 0: 32-bit words, least significant
// first, the last one cut to the bits left (CPython's algorithm).
nb::object GetRandBits(Random& r, int k) {
  if (k < 0) throw nb::value_error("number of bits must be non-negative");
  if (k <= 64) return nb::steal(PyLong_FromUnsignedLongLong(r.getrandbits(k)));
  std::vector<uint8_t> bytes;
  bytes.reserve(static_cast<size_t>((k + 31) / 32) * 4);
  for (int left = k; left > 0; left -= 32) {
    uint32_t word = r.genrand_uint32();
    if (left < 32) word >>= 32 - left;
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<uint8_t>(word >> (8 * b)));
  }
  nb::bytes data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return nb::borrow<nb::object>(reinterpret_cast<PyObject*>(&PyLong_Type))
      .attr("from_bytes")(data, "little");
}

using PyState = std::tuple<std::vector<uint32_t>, uint32_t, std::optional<double>>;

PyState GetState(const Random& r) {
  const Random::State s = r.getstate();
  return {std::vector<uint32_t>(s.mt.begin(), s.mt.end()), s.index,
          s.has_gauss_next ? std::optional<double>(s.gauss_next) : std::nullopt};
}

void SetState(Random& r, const std::vector<uint32_t>& mt, uint32_t index,
              std::optional<double> gauss_next) {
  r.setstate(ToRandomState(mt, index, gauss_next));
}

}  // namespace

void BindGenerator(nb::module_& m) {
  nb::class_<Random>(m, "Generator", nb::dynamic_attr())
      .def(nb::init<>())
      .def("random", &Random::random)
      .def("getrandbits", &GetRandBits, nb::arg("k"))
      .def("gauss", &Random::gauss, nb::arg("mu"), nb::arg("sigma"))
      // (624 words, index, gauss_next or None): CPython's state, which the
      // Python side turns into getstate()'s tuple.
      .def("state", &GetState)
      .def("set_state", &SetState, nb::arg("mt"), nb::arg("index"),
           nb::arg("gauss_next").none());
}

}  // namespace pams::python
