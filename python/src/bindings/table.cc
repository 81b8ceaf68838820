// _core.Table: a table of the engine's values (interop/table.h) as Python
// reads it: numpy views of its columns, and Arrow's PyCapsule interface
// (pandas, polars and pyarrow take it without a copy).

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "bindings/bindings.h"
#include "interop/table.h"
#include "interop/table_logger.h"

namespace pams::python {

void BindTable(nb::module_& m) {
  nb::class_<TableHandle>(m, "Table")
      .def_prop_ro("num_rows", [](const TableHandle& t) { return t.table->num_rows(); })
      .def("__len__", [](const TableHandle& t) { return t.table->num_rows(); })
      .def_prop_ro("column_names",
                   [](const TableHandle& t) {
                     std::vector<std::string> names;
                     for (const Column& c : t.table->columns) names.push_back(c.name());
                     return names;
                   })
      // "int64", "float64" or "string".
      .def("column_type",
           [](const TableHandle& t, const std::string& name) {
             static const char* const kNames[] = {"int64", "float64", "string"};
             return kNames[static_cast<int>(ColumnNamed(*t.table, name).type())];
           })
      // A numeric column as a read-only numpy array viewing the table (a
      // null's slot holds 0), and the rows that are null as a numpy bool
      // array (None when there is none); a text column as a list of str.
      .def("numpy",
           [](const TableHandle& t, const std::string& name) {
             return ColumnAsNumpy(t.table, name);
           })
      .def("__arrow_c_schema__",
           [](const TableHandle& t) { return ArrowSchemaCapsule(*t.table); })
      // The table as one record batch. A requested schema is ignored (the
      // protocol lets a producer do so; the consumer then converts).
      .def(
          "__arrow_c_array__",
          [](const TableHandle& t, nb::handle) { return ArrowArrayCapsules(t.table); },
          nb::arg("requested_schema") = nb::none())
      .def(
          "__arrow_c_stream__",
          [](const TableHandle& t, nb::handle) { return ArrowStreamCapsule(t.table); },
          nb::arg("requested_schema") = nb::none());
}

}  // namespace pams::python
