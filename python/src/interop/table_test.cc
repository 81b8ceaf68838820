// Tests of table.h: columns with nulls, and what Python receives of a table
// (numpy views, Arrow's C structs in their capsules), read back here through
// the C ABI itself, as a consumer with no Arrow library would.

#include "interop/table.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "interop/arrow_c_data.h"
#include "interop/testing/embedded_python.h"

namespace pams::python {
namespace {

using testing::RaisedBy;
using testing::Str;

// Three columns of 10 rows: ints with nulls at rows 3 and 9 (a null in the
// second byte of the bitmap), doubles without null, text with a null.
std::shared_ptr<Table> SampleTable() {
  auto table = std::make_shared<Table>();
  table->columns.emplace_back("step", Column::Type::kInt64);
  table->columns.emplace_back("price", Column::Type::kFloat64);
  table->columns.emplace_back("name", Column::Type::kString);
  for (int i = 0; i < 10; ++i) {
    Column& step = table->columns[0];
    if (i == 3 || i == 9) {
      step.AppendNull();
    } else {
      step.AppendInt(i * 10);
    }
    table->columns[1].AppendDouble(0.1 * i);
    if (i == 1) {
      table->columns[2].AppendNull();
    } else {
      table->columns[2].AppendString(i % 2 == 0 ? "even" : "odd");
    }
  }
  return table;
}

template <typename T>
T* CapsulePointer(nb::handle capsule, const char* name) {
  return static_cast<T*>(PyCapsule_GetPointer(capsule.ptr(), name));
}

TEST(TableTest, NullsAreCountedAndMarkedInTheValidityBitmap) {
  auto table = SampleTable();
  const Column& step = table->columns[0];
  EXPECT_EQ(step.size(), 10);
  EXPECT_EQ(step.null_count(), 2);
  ASSERT_EQ(step.validity().size(), 2u);
  EXPECT_EQ(step.validity()[0], 0xf7);      // row 3 cleared
  EXPECT_EQ(step.validity()[1] & 0x3, 0x1);  // row 8 set, row 9 cleared
  EXPECT_TRUE(step.is_null(3));
  EXPECT_TRUE(step.is_null(9));
  EXPECT_FALSE(step.is_null(8));
  EXPECT_EQ(step.ints()[3], 0);  // a null's slot holds 0
  // A column without null keeps no bitmap.
  EXPECT_TRUE(table->columns[1].validity().empty());
  EXPECT_FALSE(table->columns[1].is_null(0));
  EXPECT_EQ(table->num_rows(), 10);
}

TEST(TableTest, TextColumnsKeepOffsetsIntoOneBuffer) {
  auto table = SampleTable();
  const Column& name = table->columns[2];
  EXPECT_EQ(name.chars().substr(0, 4), "even");
  // Row 1 is null: an empty slice.
  EXPECT_EQ(name.offsets()[1], name.offsets()[2]);
  EXPECT_EQ(name.offsets()[10], static_cast<int64_t>(name.chars().size()));
}

TEST(TableTest, FindAndColumnNamed) {
  auto table = SampleTable();
  EXPECT_EQ(table->Find("price"), &table->columns[1]);
  EXPECT_EQ(table->Find("nope"), nullptr);
  EXPECT_EQ(&ColumnNamed(*table, "name"), &table->columns[2]);
  EXPECT_EQ(RaisedBy([&] { ColumnNamed(*table, "nope"); }), "KeyError: 'no column nope'");
}

TEST(TableTest, NumericColumnsAreReadOnlyNumpyViewsThatKeepTheTableAlive) {
  std::shared_ptr<Table> table = SampleTable();
  const double* data = table->columns[1].doubles().data();
  nb::tuple prices = ColumnAsNumpy(table, "price");
  EXPECT_TRUE(prices[1].is_none());  // no null
  nb::object values = prices[0];
  EXPECT_EQ(Str(values.attr("dtype")), "float64");
  EXPECT_FALSE(nb::cast<bool>(values.attr("flags").attr("writeable")));
  // A view, not a copy.
  EXPECT_EQ(nb::cast<uintptr_t>(values.attr("ctypes").attr("data")),
            reinterpret_cast<uintptr_t>(data));
  std::weak_ptr<Table> weak = table;
  table.reset();
  EXPECT_FALSE(weak.expired());
  EXPECT_EQ(nb::cast<double>(values[nb::int_(9)]), 0.1 * 9);
  values = nb::object();
  prices = nb::tuple();
  EXPECT_TRUE(weak.expired());
}

TEST(TableTest, NullsComeAsABoolArrayAndTextAsStr) {
  auto table = SampleTable();
  nb::tuple steps = ColumnAsNumpy(table, "step");
  EXPECT_EQ(Str(steps[1].attr("tolist")()),
            "[False, False, False, True, False, False, False, False, False, True]");
  EXPECT_EQ(Str(steps[0].attr("dtype")), "int64");
  nb::tuple names = ColumnAsNumpy(table, "name");
  EXPECT_EQ(Str(names[0][nb::int_(2)]), "even");
  EXPECT_EQ(Str(names[1][nb::int_(1)]), "True");
}

TEST(TableTest, ArrowSchemaNamesEveryColumnAndItsType) {
  auto table = SampleTable();
  nb::capsule capsule = ArrowSchemaCapsule(*table);
  auto* schema = CapsulePointer<ArrowSchema>(capsule, "arrow_schema");
  ASSERT_NE(schema, nullptr);
  EXPECT_STREQ(schema->format, "+s");
  ASSERT_EQ(schema->n_children, 3);
  EXPECT_STREQ(schema->children[0]->name, "step");
  EXPECT_STREQ(schema->children[0]->format, "l");
  EXPECT_STREQ(schema->children[1]->format, "g");
  EXPECT_STREQ(schema->children[2]->format, "U");  // large_utf8
  EXPECT_EQ(schema->children[2]->flags & 2, 2);    // nullable
}

TEST(TableTest, ArrowArrayPointsIntoTheTable) {
  std::shared_ptr<Table> table = SampleTable();
  nb::tuple capsules = ArrowArrayCapsules(table);
  auto* array = CapsulePointer<ArrowArray>(capsules[1], "arrow_array");
  ASSERT_NE(array, nullptr);
  EXPECT_EQ(array->length, 10);
  ASSERT_EQ(array->n_children, 3);
  const ArrowArray& step = *array->children[0];
  EXPECT_EQ(step.length, 10);
  EXPECT_EQ(step.null_count, 2);
  ASSERT_EQ(step.n_buffers, 2);
  EXPECT_EQ(step.buffers[0], table->columns[0].validity().data());
  EXPECT_EQ(static_cast<const int64_t*>(step.buffers[1])[8], 80);
  const ArrowArray& price = *array->children[1];
  EXPECT_EQ(price.null_count, 0);
  EXPECT_EQ(price.buffers[0], nullptr);  // no bitmap: no null
  const ArrowArray& name = *array->children[2];
  ASSERT_EQ(name.n_buffers, 3);
  const auto* offsets = static_cast<const int64_t*>(name.buffers[1]);
  const auto* chars = static_cast<const char*>(name.buffers[2]);
  EXPECT_EQ(std::string(chars + offsets[3], static_cast<size_t>(offsets[4] - offsets[3])), "odd");
}

TEST(TableTest, AConsumerThatTakesTheArrayKeepsTheTableUntilItReleases) {
  std::shared_ptr<Table> table = SampleTable();
  std::weak_ptr<Table> weak = table;
  ArrowArray taken;
  {
    nb::tuple capsules = ArrowArrayCapsules(table);
    auto* array = CapsulePointer<ArrowArray>(capsules[1], "arrow_array");
    // Moving out, as the specification says: the capsule's copy is
    // marked released, so its destructor leaves the array alone.
    std::memcpy(&taken, array, sizeof(taken));
    array->release = nullptr;
  }
  table.reset();
  EXPECT_FALSE(weak.expired());
  taken.release(&taken);
  EXPECT_EQ(taken.release, nullptr);
  EXPECT_TRUE(weak.expired());
}

TEST(TableTest, StreamGivesOneBatchThenTheEnd) {
  auto table = SampleTable();
  nb::capsule capsule = ArrowStreamCapsule(table);
  auto* stream = CapsulePointer<ArrowArrayStream>(capsule, "arrow_array_stream");
  ASSERT_NE(stream, nullptr);
  ArrowSchema schema;
  ASSERT_EQ(stream->get_schema(stream, &schema), 0);
  EXPECT_EQ(schema.n_children, 3);
  schema.release(&schema);
  ArrowArray batch;
  ASSERT_EQ(stream->get_next(stream, &batch), 0);
  ASSERT_NE(batch.release, nullptr);
  EXPECT_EQ(batch.length, 10);
  batch.release(&batch);
  ASSERT_EQ(stream->get_next(stream, &batch), 0);
  EXPECT_EQ(batch.release, nullptr);  // the end
}

}  // namespace
}  // namespace pams::python
