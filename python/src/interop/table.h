// Table: columns of a run's records (steps, agents, events) kept as typed
// arrays, which Python receives through Arrow's C data interface
// (pyarrow.table(t), polars.DataFrame(t), pandas through pyarrow) or as
// numpy arrays, without a Python object per row.
//
// A column is int64, float64 or UTF-8 text, each value possibly null
// (PAMS's None). A table is filled by one thread (the simulation's) and
// then shared read-only: exported arrays keep a shared_ptr to it, so it
// lives as long as the last of them. TableLogger (table_logger.cc) never
// appends to a table that was handed out; it copies it first.

#ifndef PAMS_PYTHON_SRC_INTEROP_TABLE_H_
#define PAMS_PYTHON_SRC_INTEROP_TABLE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interop/python.h"

namespace pams::python {

class Column {
 public:
  enum class Type { kInt64, kFloat64, kString };

  Column(std::string name, Type type) : name_(std::move(name)), type_(type) {}

  const std::string& name() const { return name_; }
  Type type() const { return type_; }
  int64_t size() const { return size_; }
  int64_t null_count() const { return null_count_; }

  // REQUIRES: the column's type (AppendNull: any).
  void AppendInt(std::optional<int64_t> value);
  void AppendDouble(std::optional<double> value);
  void AppendString(std::string_view value);
  void AppendNull();

  // The values (a null's slot holds 0); kString: the text of every row, row
  // i at [offsets[i], offsets[i+1]).
  const std::vector<int64_t>& ints() const { return ints_; }
  const std::vector<double>& doubles() const { return doubles_; }
  const std::vector<int64_t>& offsets() const { return offsets_; }
  const std::string& chars() const { return chars_; }
  // Arrow's validity bitmap (bit i set: row i is not null); empty while the
  // column has no null.
  const std::vector<uint8_t>& validity() const { return validity_; }
  bool is_null(int64_t row) const {
    return !validity_.empty() && ((validity_[row / 8] >> (row % 8)) & 1) == 0;
  }

 private:
  void AppendValidity(bool valid);

  std::string name_;
  Type type_;
  int64_t size_ = 0;
  int64_t null_count_ = 0;
  std::vector<int64_t> ints_;
  std::vector<double> doubles_;
  std::vector<int64_t> offsets_{0};
  std::string chars_;
  std::vector<uint8_t> validity_;
};

struct Table {
  std::vector<Column> columns;

  int64_t num_rows() const { return columns.empty() ? 0 : columns.front().size(); }
  // The column of that name; nullptr if there is none.
  const Column* Find(std::string_view name) const;
};

// --- Python's views of a table (REQUIRES for each: the GIL is held) ---

// The column of that name; KeyError if there is none.
const Column& ColumnNamed(const Table& table, const std::string& name);

// Column `name` as (values, nulls): a numeric column's values as a
// read-only numpy array viewing the table (kept alive by the array; a null's
// slot holds 0), a text column's as a list of str; nulls: a numpy bool
// array of the rows that are null, None when there is none.
nb::tuple ColumnAsNumpy(const std::shared_ptr<const Table>& table, const std::string& name);

// Arrow's PyCapsule interface: the schema ("arrow_schema"), the table as
// one record batch (schema, "arrow_array") and as a stream of one batch
// ("arrow_array_stream"). Each capsule releases what its consumer did not
// take; exported arrays keep the table alive.
nb::capsule ArrowSchemaCapsule(const Table& table);
nb::tuple ArrowArrayCapsules(const std::shared_ptr<const Table>& table);
nb::capsule ArrowStreamCapsule(const std::shared_ptr<const Table>& table);

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_TABLE_H_
