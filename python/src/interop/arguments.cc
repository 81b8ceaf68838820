// Arguments of PAMS's objects built by hand (interop/arguments.h).

#include "interop/arguments.h"

#include <cmath>
#include <limits>
#include <string>

namespace pams::python {

std::string Describe(nb::handle value) {
  std::string text;
  PyObject* repr = PyObject_Repr(value.ptr());
  if (repr == nullptr) {
    PyErr_Clear();  // a repr that raises: the type alone says enough
    text = "<unprintable>";
  } else {
    text = nb::borrow<nb::str>(repr).c_str();
    Py_DECREF(repr);
  }
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text + " (" + Py_TYPE(value.ptr())->tp_name + ")";
}

void RaiseArgument(PyObject* type, const char* what, const char* expected, nb::handle value) {
  Raise(type, std::string(what) + " must be " + expected + ", got " + Describe(value));
}

namespace {

// value's __index__ as a long long, `overflow` set past 64 bits (a plain
// int, the common case, without making its index object). REQUIRES: value
// is an int or has __index__.
long long AsIndex(PyObject* v, int* overflow) {
  if (PyLong_CheckExact(v)) return PyLong_AsLongLongAndOverflow(v, overflow);
  nb::object index = nb::steal(PyNumber_Index(v));
  if (!index.is_valid()) throw nb::python_error();
  return PyLong_AsLongLongAndOverflow(index.ptr(), overflow);
}

}  // namespace

int64_t IntArg(nb::handle value, const char* what) {
  PyObject* v = value.ptr();
  // A float or a str has no __index__; a bool and numpy's integers do.
  if (!PyLong_Check(v) && !PyIndex_Check(v)) RaiseArgument(PyExc_TypeError, what, "an int", value);
  int overflow = 0;
  const long long out = AsIndex(v, &overflow);
  if (overflow != 0) {
    RaiseArgument(PyExc_OverflowError, what, "an int of 64 bits (-2**63 to 2**63 - 1)", value);
  }
  if (out == -1 && PyErr_Occurred()) throw nb::python_error();
  return out;
}

std::optional<int64_t> OptionalIntArg(nb::handle value, const char* what) {
  if (value.is_none()) return std::nullopt;
  PyObject* v = value.ptr();
  if (!PyLong_Check(v) && !PyIndex_Check(v)) {
    RaiseArgument(PyExc_TypeError, what, "an int or None", value);
  }
  return IntArg(value, what);
}

std::optional<int64_t> TimeArgSlow(nb::handle value, const char* what) {
  if (value.is_none()) return std::nullopt;
  PyObject* v = value.ptr();
  if (!PyLong_Check(v) && !PyIndex_Check(v)) {
    RaiseArgument(PyExc_TypeError, what, "an int or None", value);
  }
  int overflow = 0;
  const long long out = AsIndex(v, &overflow);
  if (overflow > 0) return std::numeric_limits<int64_t>::max();
  if (overflow < 0) return std::numeric_limits<int64_t>::min();
  if (out == -1 && PyErr_Occurred()) throw nb::python_error();
  return out;
}

int IdArg(nb::handle value, const char* what) {
  const int64_t id = IntArg(value, what);
  if (id < 0 || id >= kMaxHandBuiltId) {
    RaiseArgument(PyExc_ValueError, what, "an id in [0, 10**8)", value);
  }
  return static_cast<int>(id);
}

int64_t StepArg(nb::handle value, const char* what, int64_t lowest) {
  const int64_t step = IntArg(value, what);
  if (step < lowest || step > kMaxHandBuiltStep) {
    const std::string range = "a step in [" + std::to_string(lowest) + ", 10**8]";
    RaiseArgument(PyExc_ValueError, what, range.c_str(), value);
  }
  return step;
}

double NumberArg(nb::handle value, const char* what) {
  PyObject* v = value.ptr();
  if (PyFloat_Check(v)) return PyFloat_AS_DOUBLE(v);
  // Ints, bools and numpy's numbers convert; a str or None does not (they
  // have no __float__, and PAMS's arithmetic on them raises TypeError).
  if (!PyLong_Check(v) && Py_TYPE(v)->tp_as_number == nullptr) {
    RaiseArgument(PyExc_TypeError, what, "a number", value);
  }
  if (!PyLong_Check(v) && Py_TYPE(v)->tp_as_number->nb_float == nullptr &&
      Py_TYPE(v)->tp_as_number->nb_index == nullptr) {
    RaiseArgument(PyExc_TypeError, what, "a number", value);
  }
  const double out = PyFloat_AsDouble(v);
  if (out == -1.0 && PyErr_Occurred()) {
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      RaiseArgument(PyExc_OverflowError, what, "a number a float can hold", value);
    }
    throw nb::python_error();
  }
  return out;
}

double NotNanArg(nb::handle value, const char* what) {
  const double out = NumberArg(value, what);
  if (std::isnan(out)) RaiseArgument(PyExc_ValueError, what, "a number (not NaN)", value);
  return out;
}

void RequireSettings(nb::handle settings, const char* method) {
  // Other values reach the config reader, whose ValueError names what is
  // missing (PAMS's `"tickSize" in "x"` is False: its ValueError too).
  if (settings.is_none()) {
    const std::string what = std::string(method) + ": settings";
    RaiseArgument(PyExc_TypeError, what.c_str(), "a dict (the object's config)", settings);
  }
}

bool TruthArg(nb::handle value, const char* what) {
  const int truth = PyObject_IsTrue(value.ptr());
  if (truth < 0) {
    PyErr_Clear();
    RaiseArgument(PyExc_TypeError, what, "True or False", value);
  }
  return truth == 1;
}

}  // namespace pams::python
