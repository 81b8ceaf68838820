// The main of the interop tests (embedded_python.h): starts the
// interpreter, makes pams_cpp._core, imports pams_cpp, runs the tests.

#include "interop/testing/embedded_python.h"

#include <gtest/gtest.h>
#include <nanobind/eval.h>

#include <cstdio>
#include <string>

// The extension's init function (bindings/module.cc, NB_MODULE).
extern "C" PyObject* PyInit__core();

namespace pams::python::testing {

namespace {

// sys.path gets the source tree's package; _core is made through the
// import machinery from the init function registered as a built-in module
// (its name then is pams_cpp._core's, as an extension's is), and put where
// `from . import _core` finds it. The classes nanobind made took the
// module's bare name; they get the extension's, which pickle and reprs use.
constexpr const char* kStart = R"(
import importlib.machinery, importlib.util, sys
sys.path.insert(0, PACKAGE_DIR)
spec = importlib.machinery.ModuleSpec(
    "pams_cpp._core", importlib.machinery.BuiltinImporter, origin="built-in")
core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(core)  # nanobind's modules initialize in two phases
core.__name__ = "pams_cpp._core"
for value in vars(core).values():
    if isinstance(value, type) and value.__module__ == "_core":
        value.__module__ = "pams_cpp._core"
sys.modules["pams_cpp._core"] = core
import pams_cpp
)";

nb::dict FreshNamespace() {
  nb::dict globals;
  globals["__builtins__"] = nb::module_::import_("builtins");
  globals["pams_cpp"] = nb::module_::import_("pams_cpp");
  return globals;
}

}  // namespace

nb::dict Exec(const std::string& code) {
  nb::dict globals = FreshNamespace();
  try {
    nb::exec(nb::str(code.c_str(), code.size()), globals);
  } catch (nb::python_error& e) {
    ADD_FAILURE() << "the Python code raised " << e.what() << "\n" << code;
    return nb::dict();
  }
  return globals;
}

nb::object Eval(const std::string& expression, const std::string& setup) {
  nb::dict globals = FreshNamespace();
  if (!setup.empty()) nb::exec(nb::str(setup.c_str(), setup.size()), globals);
  return nb::eval(nb::str(expression.c_str(), expression.size()), globals);
}

}  // namespace pams::python::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (PyImport_AppendInittab("pams_cpp._core", &PyInit__core) != 0) {
    std::fprintf(stderr, "embedded_python: cannot register pams_cpp._core\n");
    return 1;
  }
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  // The test program's arguments are GoogleTest's, and Ctrl-C stops it.
  config.parse_argv = 0;
  config.install_signal_handlers = 0;
  // The venv's interpreter as the program's name: Python then finds the
  // venv (its pyvenv.cfg) and its site-packages (numpy, ...), as that
  // interpreter would.
  PyStatus named =
      PyConfig_SetBytesString(&config, &config.program_name, PAMS_PYTHON_EXECUTABLE);
  if (PyStatus_Exception(named)) Py_ExitStatusException(named);
  PyStatus status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) Py_ExitStatusException(status);
  // The C API, not nanobind's: nanobind's internals exist once the module
  // that the start code makes has been initialized.
  const std::string start = std::string("PACKAGE_DIR = r'") + PAMS_PYTHON_PACKAGE_DIR + "'\n" +
                            pams::python::testing::kStart;
  if (PyRun_SimpleString(start.c_str()) != 0) {  // it printed the traceback
    std::fprintf(stderr, "embedded_python: cannot import pams_cpp from %s\n",
                 PAMS_PYTHON_PACKAGE_DIR);
    return 1;
  }
  // The interpreter is not finalized: objects the tests leave to the
  // garbage collector would be freed after the engine's statics.
  return RUN_ALL_TESTS();
}
