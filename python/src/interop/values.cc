// Python values as engine values and back: configs (dicts, as PAMS takes
// them) as JSON values and JSON values as Python values (runner.settings);
// random.Random states.

#include "interop/values.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "pams/config/json.h"
#include "pams/errors.h"

namespace pams::python {

namespace {

Json Convert(nb::handle v, const std::string& path, int depth) {
  if (depth > kMaxJsonDepth) {
    throw ConfigError(path, "nested more than " + std::to_string(kMaxJsonDepth) +
                                " levels deep (a config needs a few)");
  }
  if (v.is_none()) return nullptr;
  // bool before int: True is an int in Python.
  if (PyBool_Check(v.ptr())) return v.ptr() == Py_True;
  if (PyLong_Check(v.ptr())) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow == 0) return static_cast<int64_t>(x);
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
      if (!PyErr_Occurred()) return static_cast<uint64_t>(u);
      PyErr_Clear();
    }
    throw ConfigError(path, "the integer " + std::string(nb::str(v).c_str()).substr(0, 60) +
                                " does not fit in 64 bits");
  }
  if (PyFloat_Check(v.ptr())) {
    const double x = PyFloat_AsDouble(v.ptr());
    if (!std::isfinite(x)) {
      throw ConfigError(path, "the number " + std::string(nb::repr(v).c_str()) +
                                  " is not a JSON number");
    }
    return x;
  }
  if (PyUnicode_Check(v.ptr())) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(v.ptr(), &size);
    if (data == nullptr) throw nb::python_error();
    return std::string(data, static_cast<size_t>(size));
  }
  if (PyDict_Check(v.ptr())) {
    Json object = Json::object();
    PyObject* key;
    PyObject* value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(v.ptr(), &pos, &key, &value)) {
      if (!PyUnicode_Check(key)) {
        throw ConfigError(path, "keys must be strings, got " +
                                    std::string(nb::repr(nb::handle(key)).c_str()));
      }
      const std::string k = nb::borrow<nb::str>(key).c_str();
      object[k] = Convert(value, path.empty() ? k : path + "." + k, depth + 1);
    }
    return object;
  }
  if (PyList_Check(v.ptr()) || PyTuple_Check(v.ptr())) {
    Json array = Json::array();
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(v.ptr());
    for (Py_ssize_t i = 0; i < n; ++i) {
      array.push_back(Convert(PySequence_Fast_GET_ITEM(v.ptr(), i),
                              path + "[" + std::to_string(i) + "]", depth + 1));
    }
    return array;
  }
  throw ConfigError(path, "expected a JSON value (dict, list, str, int, float, bool "
                          "or None), got " +
                              std::string(nb::str(v.type().attr("__name__")).c_str()));
}

}  // namespace

nb::object ToPython(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return nb::none();
    case Json::value_t::boolean:
      return nb::bool_(j.get<bool>());
    case Json::value_t::number_integer:
      return nb::int_(j.get<int64_t>());
    case Json::value_t::number_unsigned:
      return nb::steal(PyLong_FromUnsignedLongLong(j.get<uint64_t>()));
    case Json::value_t::number_float:
      return nb::float_(j.get<double>());
    case Json::value_t::string:
      return nb::str(j.get_ref<const std::string&>().c_str(),
                     j.get_ref<const std::string&>().size());
    case Json::value_t::array: {
      nb::list out;
      for (const Json& e : j) out.append(ToPython(e));
      return out;
    }
    case Json::value_t::object: {
      nb::dict out;
      for (auto it = j.begin(); it != j.end(); ++it) {
        out[nb::str(it.key().c_str(), it.key().size())] = ToPython(it.value());
      }
      return out;
    }
    default:
      return nb::none();
  }
}


Json ToJson(nb::handle value, const std::string& path) {
  return Convert(value, path, 0);
}

Random::State ToRandomState(const std::vector<uint32_t>& mt, uint32_t index,
                            std::optional<double> gauss_next) {
  if (mt.size() != Random::kStateWords || index > Random::kStateWords) {
    throw nb::value_error("a random.Random state has 624 words and an index <= 624");
  }
  Random::State state;
  std::copy(mt.begin(), mt.end(), state.mt.begin());
  state.index = index;
  state.has_gauss_next = gauss_next.has_value();
  state.gauss_next = gauss_next.value_or(0.0);
  return state;
}

}  // namespace pams::python
