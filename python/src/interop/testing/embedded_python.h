// The interop tests' Python: an interpreter embedded in the test program,
// with pams_cpp._core made from the program's own objects and the pams_cpp
// package from the source tree, so that the tests call the interop code as
// the extension does, on the objects the package builds.
//
// The tests run on the main thread, which holds the GIL throughout.

#ifndef PAMS_PYTHON_SRC_INTEROP_TESTING_EMBEDDED_PYTHON_H_
#define PAMS_PYTHON_SRC_INTEROP_TESTING_EMBEDDED_PYTHON_H_

#include <string>

#include "interop/python.h"

namespace pams::python::testing {

// Runs `code` (statements) in a fresh namespace that has imported pams_cpp,
// and returns the namespace (a dict). Fails the calling test, and returns
// an empty dict, if the code raises.
nb::dict Exec(const std::string& code);

// The value of the Python expression `expression`, evaluated in a fresh
// namespace that has imported pams_cpp (after running `setup`, if any).
// Throws nb::python_error if it raises.
nb::object Eval(const std::string& expression, const std::string& setup = "");

// str(value), as Python prints it.
inline std::string Str(nb::handle value) { return nb::str(value).c_str(); }

// The Python exception `call` raises, as "TypeName: str(exception)"; "" if
// it raises none. `call` runs as a function of the extension would, so a C++
// exception is seen as Python sees it (nb::key_error as a KeyError, a
// ConfigError as pams_cpp's).
template <typename F>
std::string RaisedBy(F&& call) {
  nb::object function = nb::cpp_function([&call] { call(); });
  try {
    function();
  } catch (nb::python_error& e) {
    return Str(e.type().attr("__name__")) + ": " + Str(e.value());
  }
  return "";
}

}  // namespace pams::python::testing

#endif  // PAMS_PYTHON_SRC_INTEROP_TESTING_EMBEDDED_PYTHON_H_
