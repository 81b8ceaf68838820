// Table's columns, and _core.Table: a table as Python sees it, exported
// through Arrow's C data interface and its PyCapsule protocol
// (__arrow_c_schema__, __arrow_c_array__, __arrow_c_stream__), which
// pyarrow, polars and pandas (through pyarrow) consume without copying.
//
// The interface is a fixed C ABI (arrow.apache.org/docs/format/
// CDataInterface.html), declared in arrow_c_data.h: the engine needs no
// Arrow library.
// The exported arrays point into the table's own vectors and keep the table
// alive through a shared_ptr, so releasing them needs no GIL (consumers may
// release on any thread).

#include "interop/table.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "interop/arrow_c_data.h"
#include "interop/python.h"
#include "interop/table_logger.h"
#include "interop/values.h"

namespace pams::python {

void Column::AppendValidity(bool valid) {
  if (!valid && validity_.empty()) {
    // The first null: every row before it was valid.
    validity_.assign(static_cast<size_t>(size_ / 8 + 1), 0xff);
  }
  if (!validity_.empty()) {
    if (static_cast<size_t>(size_ / 8) >= validity_.size()) validity_.push_back(0);
    const uint8_t bit = static_cast<uint8_t>(1u << (size_ % 8));
    if (valid) {
      validity_[size_ / 8] |= bit;
    } else {
      validity_[size_ / 8] &= static_cast<uint8_t>(~bit);
    }
  }
  if (!valid) ++null_count_;
  ++size_;
}

void Column::AppendInt(std::optional<int64_t> value) {
  ints_.push_back(value.value_or(0));
  AppendValidity(value.has_value());
}

void Column::AppendDouble(std::optional<double> value) {
  doubles_.push_back(value.value_or(0.0));
  AppendValidity(value.has_value());
}

void Column::AppendString(std::string_view value) {
  chars_.append(value);
  offsets_.push_back(static_cast<int64_t>(chars_.size()));
  AppendValidity(true);
}

void Column::AppendNull() {
  switch (type_) {
    case Type::kInt64:
      ints_.push_back(0);
      break;
    case Type::kFloat64:
      doubles_.push_back(0.0);
      break;
    case Type::kString:
      offsets_.push_back(static_cast<int64_t>(chars_.size()));
      break;
  }
  AppendValidity(false);
}

const Column* Table::Find(std::string_view name) const {
  for (const Column& c : columns) {
    if (c.name() == name) return &c;
  }
  return nullptr;
}

namespace {

constexpr int64_t kArrowFlagNullable = 2;

// Arrow wants a valid pointer for a buffer even when it is empty.
alignas(64) const uint8_t kEmptyBuffer[64] = {};

const void* BufferOf(const void* data, size_t size) {
  return size == 0 ? kEmptyBuffer : data;
}

const char* FormatOf(Column::Type type) {
  switch (type) {
    case Column::Type::kInt64:
      return "l";
    case Column::Type::kFloat64:
      return "g";
    case Column::Type::kString:
      return "U";  // large_utf8: int64 offsets, so that no size overflows
  }
  return "";
}

// --- schema -----------------------------------------------------------

struct SchemaData {
  std::string name;
  std::vector<ArrowSchema> child_storage;
  std::vector<ArrowSchema*> children;
};

void ReleaseSchema(ArrowSchema* schema) {
  auto* data = static_cast<SchemaData*>(schema->private_data);
  for (ArrowSchema* child : data->children) {
    if (child->release != nullptr) child->release(child);
  }
  delete data;
  schema->release = nullptr;
}

void InitSchema(const char* format, std::string name, int64_t flags, ArrowSchema* out) {
  auto* data = new SchemaData{std::move(name), {}, {}};
  *out = ArrowSchema{format, data->name.c_str(), nullptr, flags, 0, nullptr, nullptr,
                     &ReleaseSchema, data};
}

// The table as a struct of its columns (a record batch's schema).
void ExportSchema(const Table& table, ArrowSchema* out) {
  InitSchema("+s", "", 0, out);
  auto* data = static_cast<SchemaData*>(out->private_data);
  data->child_storage.resize(table.columns.size());
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const Column& c = table.columns[i];
    InitSchema(FormatOf(c.type()), c.name(), kArrowFlagNullable, &data->child_storage[i]);
    data->children.push_back(&data->child_storage[i]);
  }
  out->n_children = static_cast<int64_t>(data->children.size());
  out->children = data->children.data();
}

// --- arrays -----------------------------------------------------------

struct ArrayData {
  std::shared_ptr<const Table> table;  // what the buffers point into
  std::vector<const void*> buffers;
  std::vector<ArrowArray> child_storage;
  std::vector<ArrowArray*> children;
};

void ReleaseArray(ArrowArray* array) {
  auto* data = static_cast<ArrayData*>(array->private_data);
  for (ArrowArray* child : data->children) {
    if (child->release != nullptr) child->release(child);
  }
  delete data;
  array->release = nullptr;
}

void ExportColumn(const std::shared_ptr<const Table>& table, const Column& c, ArrowArray* out) {
  auto* data = new ArrayData{table, {}, {}, {}};
  data->buffers.push_back(c.validity().empty() ? nullptr : c.validity().data());
  switch (c.type()) {
    case Column::Type::kInt64:
      data->buffers.push_back(BufferOf(c.ints().data(), c.ints().size()));
      break;
    case Column::Type::kFloat64:
      data->buffers.push_back(BufferOf(c.doubles().data(), c.doubles().size()));
      break;
    case Column::Type::kString:
      data->buffers.push_back(c.offsets().data());
      data->buffers.push_back(BufferOf(c.chars().data(), c.chars().size()));
      break;
  }
  *out = ArrowArray{c.size(), c.null_count(), 0, static_cast<int64_t>(data->buffers.size()),
                    0, data->buffers.data(), nullptr, nullptr, &ReleaseArray, data};
}

void ExportArray(const std::shared_ptr<const Table>& table, ArrowArray* out) {
  auto* data = new ArrayData{table, {nullptr}, {}, {}};
  data->child_storage.resize(table->columns.size());
  for (size_t i = 0; i < table->columns.size(); ++i) {
    ExportColumn(table, table->columns[i], &data->child_storage[i]);
    data->children.push_back(&data->child_storage[i]);
  }
  *out = ArrowArray{table->num_rows(), 0, 0, 1, static_cast<int64_t>(data->children.size()),
                    data->buffers.data(), data->children.data(), nullptr, &ReleaseArray, data};
}

// --- stream: the table as one record batch ----------------------------

struct StreamData {
  std::shared_ptr<const Table> table;
  bool done = false;
};

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  ExportSchema(*static_cast<StreamData*>(stream->private_data)->table, out);
  return 0;
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  auto* data = static_cast<StreamData*>(stream->private_data);
  if (data->done) {
    std::memset(out, 0, sizeof(*out));  // release == nullptr: the end
    return 0;
  }
  data->done = true;
  ExportArray(data->table, out);
  return 0;
}

const char* StreamGetLastError(ArrowArrayStream*) { return nullptr; }

void ReleaseStream(ArrowArrayStream* stream) {
  delete static_cast<StreamData*>(stream->private_data);
  stream->release = nullptr;
}

// --- capsules -------------------------------------------------------------

// A capsule whose destructor releases what the consumer did not take
// (a consumer that takes it sets release to nullptr).
template <typename T>
nb::capsule Capsule(T* value, const char* name) {
  return nb::capsule(value, name, [](void* p) noexcept {
    T* v = static_cast<T*>(p);
    if (v->release != nullptr) v->release(v);
    delete v;
  });
}

nb::capsule SchemaCapsule(const Table& table) {
  auto* schema = new ArrowSchema{};
  ExportSchema(table, schema);
  return Capsule(schema, "arrow_schema");
}

// A column as a read-only numpy array viewing the table (kept alive by the
// array).
template <typename T>
nb::object NumpyView(const std::shared_ptr<const Table>& table, const std::vector<T>& values) {
  nb::capsule owner(new std::shared_ptr<const Table>(table), [](void* p) noexcept {
    delete static_cast<std::shared_ptr<const Table>*>(p);
  });
  size_t shape[1] = {values.size()};
  return nb::cast(nb::ndarray<nb::numpy, const T, nb::ndim<1>>(values.data(), 1, shape, owner));
}

}  // namespace

const Column& ColumnNamed(const Table& table, const std::string& name) {
  const Column* c = table.Find(name);
  if (c == nullptr) throw nb::key_error(("no column " + name).c_str());
  return *c;
}

nb::tuple ColumnAsNumpy(const std::shared_ptr<const Table>& table, const std::string& name) {
  const Column& c = ColumnNamed(*table, name);
  nb::object values;
  if (c.type() == Column::Type::kString) {
    nb::list texts;
    for (int64_t i = 0; i < c.size(); ++i) {
      texts.append(nb::str(c.chars().data() + c.offsets()[i],
                           static_cast<size_t>(c.offsets()[i + 1] - c.offsets()[i])));
    }
    values = texts;
  } else if (c.type() == Column::Type::kInt64) {
    values = NumpyView(table, c.ints());
  } else {
    values = NumpyView(table, c.doubles());
  }
  if (c.null_count() == 0) return nb::make_tuple(values, nb::none());
  auto* nulls = new bool[static_cast<size_t>(c.size())];
  for (int64_t i = 0; i < c.size(); ++i) nulls[i] = c.is_null(i);
  nb::capsule owner(nulls, [](void* p) noexcept { delete[] static_cast<bool*>(p); });
  size_t shape[1] = {static_cast<size_t>(c.size())};
  return nb::make_tuple(values, nb::ndarray<nb::numpy, bool, nb::ndim<1>>(nulls, 1, shape, owner));
}

nb::capsule ArrowSchemaCapsule(const Table& table) { return SchemaCapsule(table); }

nb::tuple ArrowArrayCapsules(const std::shared_ptr<const Table>& table) {
  auto* array = new ArrowArray{};
  ExportArray(table, array);
  return nb::make_tuple(SchemaCapsule(*table), Capsule(array, "arrow_array"));
}

nb::capsule ArrowStreamCapsule(const std::shared_ptr<const Table>& table) {
  auto* stream = new ArrowArrayStream{&StreamGetSchema, &StreamGetNext, &StreamGetLastError,
                                      &ReleaseStream, new StreamData{table}};
  return Capsule(stream, "arrow_array_stream");
}

}  // namespace pams::python
