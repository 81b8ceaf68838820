// What every file of python/src (interop and bindings) includes: nanobind,
// the casters of the standard types they all use, and the helpers both
// halves share (OwnedBy, Raise, EngineOf).
// Everything in python/src runs with the GIL held unless it says otherwise.

#ifndef PAMS_PYTHON_SRC_INTEROP_PYTHON_H_
#define PAMS_PYTHON_SRC_INTEROP_PYTHON_H_

#include <nanobind/nanobind.h>
// The casters of the standard types every file uses: a file without them
// would fail at run time (a cast_error) where another succeeds, so every
// file gets them from here.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

namespace pams::python {

namespace nb = nanobind;

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

// Raises a Python exception of `type` (PAMS's ValueError, AssertionError, ...).
[[noreturn]] inline void Raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

// The engine object of a PAMS object built by hand or by a runner (its
// _engine), or the object itself when it is one. Raises TypeError naming
// `what` otherwise.
template <typename T>
T& EngineOf(nb::handle object, const char* what) {
  if (nb::isinstance<T>(object)) return nb::cast<T&>(object);
  nb::object engine = nb::getattr(object, "_engine", nb::none());
  if (!engine.is_none() && nb::isinstance<T>(engine)) return nb::cast<T&>(engine);
  Raise(PyExc_TypeError, std::string("expected ") + what + ", got " +
                             nb::str(nb::repr(object)).c_str());
}

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_PYTHON_H_
