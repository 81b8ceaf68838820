// The Arrow C data interface: the C structs through which a table's
// columns cross to Arrow's consumers (pyarrow, polars, ...), declared as the
// specification defines them (arrow.apache.org/docs/format/
// CDataInterface.html and CStreamInterface.html). The ABI is fixed, so no
// Arrow library is needed to produce (table.cc) or read (table_test.cc)
// them.

#ifndef PAMS_PYTHON_SRC_INTEROP_ARROW_C_DATA_H_
#define PAMS_PYTHON_SRC_INTEROP_ARROW_C_DATA_H_

#include <cstdint>

extern "C" {
struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};

struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};
}

#endif  // PAMS_PYTHON_SRC_INTEROP_ARROW_C_DATA_H_
