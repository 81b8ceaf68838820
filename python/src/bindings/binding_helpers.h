// Helpers for the bindings that extend classes bound elsewhere (the
// methods of PAMS's objects built by hand: hand_built.cc and its siblings):
// adding a method or a property to an already bound class.
// Header-only; the GIL is held wherever they run.

#ifndef PAMS_PYTHON_SRC_BINDINGS_BINDING_HELPERS_H_
#define PAMS_PYTHON_SRC_BINDINGS_BINDING_HELPERS_H_

#include "interop/python.h"

#include <string>
#include <utility>

namespace pams::python {

// Drops what an already bound class defines under `name` (a function
// defined there again would become an overload of it).
inline void Forget(nb::handle cls, const char* name) {
  nb::object dict = cls.attr("__dict__");
  if (PySequence_Contains(dict.ptr(), nb::str(name).ptr()) == 1) nb::delattr(cls, name);
}

// Adds a method to an already bound class (replacing one of that name).
template <typename F, typename... Extra>
void Method(nb::handle cls, const char* name, F&& f, const Extra&... extra) {
  Forget(cls, name);
  nb::cpp_function(std::forward<F>(f), nb::is_method(), nb::name(name), nb::scope(cls),
                   extra...);
}

// Adds a property to an already bound class; `doc` is its docstring (what
// help() shows: a property's getter carries only its signature). The
// setter gets every value, None included: one that takes an Arg<T>
// (interop/arguments.h) checks it itself, naming the attribute.
template <typename Get, typename Set>
void Property(nb::handle cls, const char* name, Get&& get, Set&& set,
              const char* doc = nullptr) {
  Forget(cls, name);
  nb::object property = nb::module_::import_("builtins").attr("property");
  nb::setattr(cls, name,
              property(nb::cpp_function(std::forward<Get>(get), nb::is_method()),
                       nb::cpp_function(std::forward<Set>(set), nb::is_method(),
                                        nb::arg("value").none()),
                       nb::none(), doc ? nb::object(nb::str(doc)) : nb::none()));
}
template <typename Get>
void ReadOnlyProperty(nb::handle cls, const char* name, Get&& get, const char* doc = nullptr) {
  Forget(cls, name);
  nb::object property = nb::module_::import_("builtins").attr("property");
  nb::setattr(cls, name,
              property(nb::cpp_function(std::forward<Get>(get), nb::is_method()), nb::none(),
                       nb::none(), doc ? nb::object(nb::str(doc)) : nb::none()));
}

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_BINDINGS_BINDING_HELPERS_H_
